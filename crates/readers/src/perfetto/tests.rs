//! Tests of the Perfetto reader on traces encoded here with its own prost messages (the Python oracle in
//! tests/oracle/perfetto_traces.py checks it against traces Perfetto's own protos write).

use super::protos::*;
use super::*;
use prost::Message;
use weft_model::{MessageKind, Trace as Model, WarningKind};

fn packet(seq: u32) -> TracePacket {
    TracePacket { trusted_packet_sequence_id: Some(seq), ..Default::default() }
}

fn descriptor(uuid: u64, parent: Option<u64>, name: Option<&str>) -> TrackDescriptor {
    TrackDescriptor { uuid: Some(uuid), parent_uuid: parent, name: name.map(String::from), ..Default::default() }
}

fn process_track(uuid: u64, pid: i32, name: &str) -> TracePacket {
    let mut d = descriptor(uuid, None, None);
    d.process = Some(ProcessDescriptor { pid: Some(pid), process_name: Some(name.into()), ..Default::default() });
    TracePacket { track_descriptor: Some(d), ..packet(1) }
}

fn thread_track(uuid: u64, parent: u64, pid: i32, tid: i64, name: &str) -> TracePacket {
    let mut d = descriptor(uuid, Some(parent), None);
    d.thread =
        Some(ThreadDescriptor { pid: Some(pid), tid: Some(tid), thread_name: Some(name.into()), ..Default::default() });
    TracePacket { track_descriptor: Some(d), ..packet(1) }
}

fn event(seq: u32, ts: u64, track: u64, ty: i32, name: Option<&str>) -> TracePacket {
    TracePacket {
        timestamp: Some(ts),
        track_event: Some(TrackEvent {
            r#type: Some(ty),
            track_uuid: Some(track),
            name: name.map(String::from),
            ..Default::default()
        }),
        ..packet(seq)
    }
}

fn encode(packets: Vec<TracePacket>) -> Vec<u8> {
    super::protos::Trace { packet: packets }.encode_to_vec()
}

fn slices(t: &Model) -> Vec<(String, String, u64, u64, u16)> {
    let mut v: Vec<_> = (0..t.intervals.len())
        .map(|i| {
            let iv = &t.intervals;
            let l = iv.location[i];
            (
                t.location_name(l).to_string(),
                t.region_name(iv.region[i]).to_string(),
                t.origin_ns as u64 + iv.start_ns[i],
                iv.dur_ns[i],
                iv.depth[i],
            )
        })
        .collect();
    v.sort();
    v
}

/// A small trace with what the reader reads: two processes, three threads, nested slices with interned
/// names, an instant, a counter in bytes, a flow across threads and args.
fn sample() -> Vec<TracePacket> {
    let mut p = vec![
        process_track(1, 10, "server"),
        thread_track(2, 1, 10, 11, "main"),
        thread_track(3, 1, 10, 12, "worker"),
        process_track(4, 20, "client"),
        thread_track(5, 4, 20, 21, "ui"),
    ];
    let mut counter = descriptor(6, Some(1), Some("heap"));
    counter.counter = Some(CounterDescriptor { unit: Some(3), ..Default::default() });
    p.push(TracePacket { track_descriptor: Some(counter), ..packet(1) });
    // Sequence 7: interned names, cleared state first.
    let mut first = event(7, 1000, 2, TYPE_SLICE_BEGIN, None);
    first.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
    first.interned_data = Some(InternedData {
        event_names: vec![Interned { iid: Some(1), name: Some("request".into()) }],
        event_categories: vec![Interned { iid: Some(1), name: Some("net".into()) }],
        debug_annotation_names: vec![Interned { iid: Some(1), name: Some("bytes".into()) }],
        ..Default::default()
    });
    let e = first.track_event.as_mut().unwrap();
    e.name_iid = Some(1);
    e.category_iids = vec![1];
    e.flow_ids = vec![99];
    e.debug_annotations = vec![
        DebugAnnotation { name_iid: Some(1), uint_value: Some(512), ..Default::default() },
        DebugAnnotation { name: Some("url".into()), string_value: Some("/a".into()), ..Default::default() },
    ];
    p.push(first);
    let mut inner = event(7, 1200, 2, TYPE_SLICE_BEGIN, None);
    inner.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
    inner.track_event.as_mut().unwrap().name_iid = Some(1);
    p.push(inner);
    p.push(event(7, 1500, 2, TYPE_SLICE_END, None));
    p.push(event(7, 1600, 2, TYPE_INSTANT, Some("tick")));
    p.push(event(7, 2000, 2, TYPE_SLICE_END, None));
    let mut c = event(7, 1700, 6, TYPE_COUNTER, None);
    c.track_event.as_mut().unwrap().counter_value = Some(4096);
    p.push(c);
    // Sequence 8: the flow's end on another process's thread.
    let mut handle = event(8, 2500, 5, TYPE_SLICE_BEGIN, Some("handle"));
    handle.track_event.as_mut().unwrap().terminating_flow_ids = vec![99];
    p.push(handle);
    p.push(event(8, 3000, 5, TYPE_SLICE_END, None));
    p.push(event(8, 2600, 3, TYPE_SLICE_BEGIN, Some("work")));
    p.push(event(8, 2700, 3, TYPE_SLICE_END, None));
    p
}

#[test]
fn reads_slices_instants_counters_flows_and_args() {
    let t = read("t.pftrace", &encode(sample())).unwrap();
    assert_eq!(t.format, weft_model::Format::Perfetto);
    assert_eq!(
        slices(&t),
        vec![
            ("main".into(), "request".into(), 1000, 1000, 0),
            ("main".into(), "request".into(), 1200, 300, 1),
            ("ui".into(), "handle".into(), 2500, 500, 0),
            ("worker".into(), "work".into(), 2600, 100, 0),
        ]
    );
    let mut processes: Vec<&str> =
        (0..t.processes.len()).map(|p| t.process_name(weft_model::ProcessId(p as u32))).collect();
    processes.sort();
    assert_eq!(processes, ["client", "server"]);
    assert_eq!(t.instants.time_ns.len(), 1);
    assert_eq!(t.region_name(t.instants.region[0]), "tick");
    assert_eq!(t.counters.series_name.len(), 1);
    assert_eq!(t.str(t.counters.series_name[0]), "heap (bytes)");
    assert_eq!(t.counters.sample_value, [4096.0]);
    assert_eq!(t.messages.len(), 1);
    assert_eq!(t.messages.kind[0], MessageKind::Flow);
    assert_eq!(t.location_name(t.messages.sender[0]), "main");
    assert_eq!(t.location_name(t.messages.receiver[0]), "ui");
    assert_eq!(t.origin_ns as u64 + t.messages.send_ns[0], 1000);
    assert_eq!(t.origin_ns as u64 + t.messages.recv_ns[0], 2500);
    // The outer request's args: the interned annotation name and an inline one.
    let k = (0..t.intervals.len())
        .find(|&i| t.intervals.depth[i] == 0 && t.region_name(t.intervals.region[i]) == "request");
    let args: Vec<(String, String)> =
        t.intervals.args.of(k.unwrap()).unwrap().map(|a| (t.str(a.key).to_string(), a.value.to_string())).collect();
    assert_eq!(args, [("bytes".to_string(), "512".to_string()), ("url".to_string(), "/a".to_string())]);
    let cat = t.regions.category[t.intervals.region[k.unwrap()].index()];
    assert_eq!(t.str(cat), "net");
    assert_eq!(t.event_records, 10);
    assert_eq!(t.warnings.total(), 0, "{:?}", t.warnings.examples());
}

#[test]
fn chunked_and_gzipped_reads_equal_the_whole() {
    use std::io::Write;
    let bytes = encode(sample());
    let whole = read("t", &bytes).unwrap();
    for size in [1, 2, 3, 7, 64] {
        let mut r = PerfettoStreamReader::new("t");
        for c in bytes.chunks(size) {
            r.feed(c).unwrap();
        }
        assert_eq!(slices(&r.finish().unwrap()), slices(&whole), "chunks of {size}");
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(slices(&read("t.gz", &gz).unwrap()), slices(&whole));
    let mut r = PerfettoStreamReader::new("t.gz");
    for c in gz.chunks(5) {
        r.feed(c).unwrap();
    }
    assert_eq!(slices(&r.finish().unwrap()), slices(&whole));
}

#[test]
fn lost_incremental_state_skips_and_warns() {
    // Sequence 3 never clears its state: its packet needing it is skipped.
    let mut p = sample();
    let mut orphan = event(3, 5000, 2, TYPE_INSTANT, None);
    orphan.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
    orphan.track_event.as_mut().unwrap().name_iid = Some(1);
    p.push(orphan);
    // Sequence 7 reports dropped packets: its state is gone until the next clear.
    let mut after_loss = event(7, 5100, 2, TYPE_INSTANT, None);
    after_loss.previous_packet_dropped = Some(1);
    after_loss.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
    after_loss.track_event.as_mut().unwrap().name_iid = Some(1);
    p.push(after_loss);
    let t = read("t", &encode(p)).unwrap();
    assert_eq!(t.instants.time_ns.len(), 1);
    assert_eq!(t.warnings.count(WarningKind::Other), 2, "{:?}", t.warnings.examples());
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("incremental state")));
    assert_eq!(t.warnings.count(WarningKind::Truncated), 1);
}

#[test]
fn incremental_clock_and_defaults() {
    // The SDK's way: clock 64 incremental (µs units), on by the sequence's defaults, with a default track.
    let mut first = packet(5);
    first.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
    first.trace_packet_defaults = Some(TracePacketDefaults {
        timestamp_clock_id: Some(64),
        track_event_defaults: Some(TrackEventDefaults { track_uuid: Some(2), ..Default::default() }),
    });
    let clock = |id, ts, inc, unit| Clock {
        clock_id: Some(id),
        timestamp: Some(ts),
        is_incremental: Some(inc),
        unit_multiplier_ns: unit,
    };
    let snap = ClockSnapshot {
        clocks: vec![clock(6, 1_000_000, false, None), clock(64, 500, true, Some(1000))],
        ..Default::default()
    };
    let mut snap_packet = packet(5);
    snap_packet.clock_snapshot = Some(snap);
    let ev = |delta: u64, ty: i32, name: Option<&str>| {
        let mut e = event(5, delta, 0, ty, name);
        e.track_event.as_mut().unwrap().track_uuid = None;
        e
    };
    let p = vec![
        process_track(1, 10, "p"),
        thread_track(2, 1, 10, 11, "t"),
        first,
        snap_packet,
        ev(10, TYPE_SLICE_BEGIN, Some("a")),
        ev(5, TYPE_SLICE_END, None),
    ];
    let t = read("t", &encode(p)).unwrap();
    // 500 + 10 units = 10 µs after the snapshot's 1 ms; 5 more µs to the end.
    assert_eq!(slices(&t), vec![("t".into(), "a".into(), 1_010_000, 5_000, 0)]);
}

#[test]
fn async_tracks_share_rows_like_chrome_async_slices() {
    let mut p = vec![process_track(1, 10, "p")];
    // Three "op" tracks: the first two overlap, the third comes after both.
    for (uuid, start, end) in [(20, 100, 300), (21, 200, 400), (22, 500, 600)] {
        p.push(TracePacket { track_descriptor: Some(descriptor(uuid, Some(1), Some("op"))), ..packet(1) });
        p.push(event(1, start, uuid, TYPE_SLICE_BEGIN, Some("step")));
        p.push(event(1, end, uuid, TYPE_SLICE_END, None));
    }
    // A track with no process among its ancestors: global.
    p.push(TracePacket { track_descriptor: Some(descriptor(30, None, Some("global"))), ..packet(1) });
    p.push(event(1, 50, 30, TYPE_INSTANT, Some("mark")));
    let t = read("t", &encode(p)).unwrap();
    let rows: Vec<(String, u64)> = (0..t.intervals.len())
        .map(|i| (t.location_name(t.intervals.location[i]).to_string(), t.intervals.location[i].0 as u64))
        .collect();
    let distinct: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.1).collect();
    assert_eq!(distinct.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r.0 == "op"));
    let l = t.instants.location[0];
    assert_eq!(t.location_name(l), "global");
    assert_eq!(t.process_name(t.locations.process[l.index()]), "Global tracks");
    assert_eq!(t.locations.kind[l.index()], weft_model::LocationKind::AsyncTrack);
}

#[test]
fn legacy_complete_events_unmatched_ends_and_other_packets() {
    let mut p = vec![process_track(1, 10, "p"), thread_track(2, 1, 10, 11, "t")];
    let mut x = event(1, 1000, 2, 0, Some("x"));
    x.track_event.as_mut().unwrap().r#type = None;
    x.track_event.as_mut().unwrap().legacy_event =
        Some(LegacyEvent { phase: Some(i32::from(b'X')), duration_us: Some(3), ..Default::default() });
    p.push(x);
    p.push(event(1, 5000, 2, TYPE_SLICE_END, None));
    p.push(event(1, 6000, 2, TYPE_SLICE_BEGIN, Some("open")));
    p.push(event(1, 6500, 2, TYPE_INSTANT, Some("last")));
    let mut bytes = encode(p);
    // Two process_tree packets (field 2 of TracePacket), hand-framed: packet { process_tree { } }.
    for _ in 0..2 {
        bytes.extend_from_slice(&[0x0a, 0x02, 0x12, 0x00]);
    }
    let t = read("t", &bytes).unwrap();
    assert_eq!(slices(&t), vec![("t".into(), "open".into(), 6000, 500, 0), ("t".into(), "x".into(), 1000, 3000, 0)]);
    assert_eq!(t.warnings.count(WarningKind::UnmatchedEnd), 1);
    assert_eq!(t.warnings.count(WarningKind::UnclosedBegin), 1);
    assert_eq!(t.warnings.count(WarningKind::UnknownRecord), 2);
    assert!(t.warnings.examples().iter().any(|w| w.message.contains("2 process_tree packets are not read")));
}

fn switch(ts: u64, pid: i32, comm: &str) -> Vec<u8> {
    let s = SchedSwitchFtraceEvent { next_pid: Some(pid), next_comm: Some(comm.into()), ..Default::default() };
    FtraceEvent { timestamp: Some(ts), sched_switch: Some(s), ..Default::default() }.encode_to_vec()
}

#[test]
fn sched_switch_bundles_become_cpu_tracks() {
    // CPU 0: full events, a print event (FtraceEvent field 3) between them; CPU 1: the compact form.
    let mut print = FtraceEvent { timestamp: Some(150), ..Default::default() }.encode_to_vec();
    print.extend_from_slice(&[0x1a, 0x00]);
    let full = FtraceEventBundle {
        cpu: Some(0),
        event: vec![switch(100, 5, "a"), print, switch(200, 0, "swapper/0"), switch(300, 6, "b")],
        compact_sched: None,
    };
    let compact = FtraceEventBundle {
        cpu: Some(1),
        event: vec![],
        compact_sched: Some(CompactSched {
            intern_table: vec!["b".into(), "c".into()],
            switch_timestamp: vec![120, 80, 300],
            switch_next_pid: vec![6, 7, 6],
            switch_next_comm_index: vec![0, 1, 0],
        }),
    };
    let packets = [full, compact].map(|f| TracePacket { ftrace_events: Some(f), ..packet(1) });
    let t = read("t", &encode(packets.to_vec())).unwrap();
    // The trace's last switch is at 500: each CPU's last slice ends there.
    let want = [("CPU 0", "a", 100, 100), ("CPU 0", "b", 300, 200), ("CPU 1", "b", 120, 80), ("CPU 1", "c", 200, 300)];
    let want: Vec<_> = want.iter().map(|&(l, n, s, d)| (l.to_string(), n.to_string(), s, d, 0)).collect();
    let mut got = slices(&t);
    got.sort_by(|a, b| (&a.0, a.2).cmp(&(&b.0, b.2)));
    assert_eq!(got, want);
    let l = t.intervals.location[0];
    assert_eq!(t.process_name(t.locations.process[l.index()]), "CPUs");
    let a = (0..t.intervals.len()).find(|&i| t.region_name(t.intervals.region[i]) == "a").unwrap();
    let pid = t.intervals.args.of(a).unwrap().next().unwrap();
    assert_eq!((t.str(pid.key), pid.value), ("pid", "5"));
    let w = t.warnings.examples().iter().find(|w| w.message.contains("other than sched_switch")).unwrap();
    assert!(w.message.starts_with("1 ftrace events other than sched_switch are not read: print (1)"), "{}", w.message);
}

#[test]
fn compressed_packets_are_inflated() {
    use std::io::Write;
    let inner = encode(sample());
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).unwrap();
    let outer = encode(vec![TracePacket { compressed_packets: Some(z.finish().unwrap()), ..packet(1) }]);
    assert_eq!(slices(&read("t", &outer).unwrap()), slices(&read("t", &inner).unwrap()));
}

#[test]
fn bad_framing_is_a_typed_error_naming_the_offset() {
    let good = encode(sample());
    let malformed = |bytes: &[u8]| match read("bad.pftrace", bytes) {
        Err(ReadError::Malformed { file, offset, detail, .. }) => (file, offset, detail),
        other => panic!("{other:?}"),
    };
    // A varint length that never ends.
    let (file, offset, detail) = malformed(&[0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    assert_eq!((file.as_str(), offset), ("bad.pftrace", 0));
    assert!(detail.contains("ten bytes"), "{detail}");
    // A huge length.
    let (_, _, detail) = malformed(&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    assert!(detail.contains("more than"), "{detail}");
    // A wire type no trace uses, after the good packets.
    let mut bytes = good.clone();
    let at = bytes.len() as u64;
    bytes.extend_from_slice(&[0x0b, 0x00]);
    let (_, offset, _) = malformed(&bytes);
    assert_eq!(offset, at);
    // Cut inside the first packet.
    let (_, _, detail) = malformed(&good[..5]);
    assert!(detail.contains("first packet"), "{detail}");
    // Cut later: the packets before are kept, with a warning.
    let t = read("t", &good[..good.len() - 3]).unwrap();
    assert_eq!(t.warnings.count(WarningKind::Truncated), 1);
    // A packet that frames but does not decode, alone: empty, saying so.
    match read("t", &[0x0a, 0x02, 0x08, 0x80]) {
        Err(ReadError::Empty { detail, .. }) => assert!(detail.contains("decodes"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // Only packets of kinds weft does not read: empty, naming them.
    match read("t", &[0x0a, 0x02, 0x12, 0x00]) {
        Err(ReadError::Empty { detail, .. }) => assert!(detail.contains("process_tree (1)"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // Only ftrace events of kinds weft does not read (a print event): empty, saying so.
    match read("t", &[0x0a, 0x06, 0x0a, 0x04, 0x12, 0x02, 0x1a, 0x00]) {
        Err(ReadError::Empty { detail, .. }) => {
            assert!(detail.contains("ftrace events other than sched_switch (1)"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn never_panics_on_mutated_traces() {
    let good = encode(sample());
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..3000 {
        let mut b = good.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % b.len() as u64) as usize;
            b[i] = next() as u8;
        }
        let cut = b.len() - (next() % 8) as usize;
        let _ = read("m", &b[..cut]);
    }
}

#[test]
fn sniffing_tells_traces_from_text_and_other_binaries() {
    let good = encode(sample());
    assert!(looks_like_trace(&good));
    assert!(looks_like_trace(&good[..40]));
    assert!(!looks_like_trace(b"\n[{\"ph\":\"X\"}]"));
    assert!(!looks_like_trace(b"\n\n\nhello world, this is text\n"));
    assert!(!looks_like_trace(b"\n#Paraver (01/01/2020 at 10:00):100_ns:0:1:1(4:0)"));
    assert!(!looks_like_trace(&[0x0a, 0x00]));
    assert_eq!(crate::sniff(&good), crate::Sniffed::Perfetto);
}
