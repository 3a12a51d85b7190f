//! Perfetto protobuf traces generated as the Perfetto SDK writes them: per thread a packet sequence that clears
//! its incremental state and interns its event names, categories and annotation names, then nested slices
//! (begin/end), instants, a counter track in bytes, flows from each thread to the next, and debug annotations.
//! Encoded with the reader's own prost messages (Perfetto's field numbers), a packet at a time, so a trace of
//! hundreds of MB is written without holding its packets.

use crate::rng::XorShift;
use prost::Message;
use weft_readers::perfetto::protos::*;

/// The shape of a generated trace.
#[derive(Clone, Debug)]
pub struct PerfettoSample {
    pub processes: u32,
    pub threads_per_process: u32,
    /// Slices per thread (each with a begin and an end packet).
    pub slices_per_thread: u32,
    pub seed: u64,
}

const NAMES: [&str; 12] =
    ["main", "parse", "layout", "paint", "compile", "run_task", "gc", "io_read", "io_write", "send", "recv", "idle"];

impl PerfettoSample {
    pub fn small() -> Self {
        PerfettoSample { processes: 2, threads_per_process: 2, slices_per_thread: 20, seed: 7 }
    }

    /// About `mb` MB of trace (about 40 bytes a slice's packets).
    pub fn of_mb(mb: u64) -> Self {
        let slices = (mb << 20) / 44 / 16;
        PerfettoSample { processes: 4, threads_per_process: 4, slices_per_thread: slices as u32, seed: 11 }
    }

    /// Slices in the trace.
    pub fn slices(&self) -> u64 {
        u64::from(self.processes * self.threads_per_process) * u64::from(self.slices_per_thread)
    }

    pub fn generate(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity((self.slices() * 48) as usize + 4096);
        let mut put = |p: &TracePacket| {
            out.push(0x0a);
            p.encode_length_delimited(&mut out).expect("a Vec grows");
        };
        let mut rng = XorShift(self.seed | 1);
        let seq = |pr: u32, th: u32| 1 + pr * 1000 + th;
        let thread_uuid = |pr: u32, th: u32| 0x1000 + u64::from(pr) * 1000 + u64::from(th);
        for pr in 0..self.processes {
            let mut d = TrackDescriptor { uuid: Some(u64::from(pr) + 1), ..Default::default() };
            d.process = Some(ProcessDescriptor {
                pid: Some(100 + pr as i32),
                process_name: Some(format!("proc{pr}")),
                ..Default::default()
            });
            put(&TracePacket { track_descriptor: Some(d), trusted_packet_sequence_id: Some(1), ..Default::default() });
            let mut c = TrackDescriptor {
                uuid: Some(0x900 + u64::from(pr)),
                parent_uuid: Some(u64::from(pr) + 1),
                name: Some("heap".into()),
                ..Default::default()
            };
            c.counter = Some(CounterDescriptor { unit: Some(3), ..Default::default() });
            put(&TracePacket { track_descriptor: Some(c), trusted_packet_sequence_id: Some(1), ..Default::default() });
            for th in 0..self.threads_per_process {
                let mut d = TrackDescriptor {
                    uuid: Some(thread_uuid(pr, th)),
                    parent_uuid: Some(u64::from(pr) + 1),
                    ..Default::default()
                };
                d.thread = Some(ThreadDescriptor {
                    pid: Some(100 + pr as i32),
                    tid: Some(i64::from(1000 * (pr + 1) + th)),
                    thread_name: Some(format!("worker {th}")),
                    ..Default::default()
                });
                put(&TracePacket {
                    track_descriptor: Some(d),
                    trusted_packet_sequence_id: Some(1),
                    ..Default::default()
                });
            }
        }
        let interned = InternedData {
            event_names: NAMES
                .iter()
                .enumerate()
                .map(|(i, n)| Interned { iid: Some(i as u64 + 1), name: Some((*n).into()) })
                .collect(),
            event_categories: vec![Interned { iid: Some(1), name: Some("app".into()) }],
            debug_annotation_names: vec![Interned { iid: Some(1), name: Some("size".into()) }],
            ..Default::default()
        };
        // Thread by thread, as a ring buffer's sequences are written one after another.
        for pr in 0..self.processes {
            for th in 0..self.threads_per_process {
                let s = seq(pr, th);
                let track = thread_uuid(pr, th);
                put(&TracePacket {
                    trusted_packet_sequence_id: Some(s),
                    sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
                    interned_data: Some(interned.clone()),
                    trace_packet_defaults: Some(TracePacketDefaults {
                        track_event_defaults: Some(TrackEventDefaults {
                            track_uuid: Some(track),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    ..Default::default()
                });
                let mut t = 1_000_000u64;
                let mut depth = 0u32;
                let mut made = 0u32;
                let event = |t: u64, e: TrackEvent| TracePacket {
                    timestamp: Some(t),
                    trusted_packet_sequence_id: Some(s),
                    sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
                    track_event: Some(e),
                    ..Default::default()
                };
                while made < self.slices_per_thread || depth > 0 {
                    t += rng.range(10, 2_000);
                    let close = depth > 0 && (made >= self.slices_per_thread || depth >= 5 || rng.below(3) == 0);
                    if close {
                        depth -= 1;
                        put(&event(t, TrackEvent { r#type: Some(TYPE_SLICE_END), ..Default::default() }));
                        continue;
                    }
                    let mut e = TrackEvent {
                        r#type: Some(TYPE_SLICE_BEGIN),
                        name_iid: Some(rng.range(1, NAMES.len() as u64)),
                        category_iids: vec![1],
                        ..Default::default()
                    };
                    if rng.below(8) == 0 {
                        e.debug_annotations = vec![DebugAnnotation {
                            name_iid: Some(1),
                            uint_value: Some(rng.below(1 << 20)),
                            ..Default::default()
                        }];
                    }
                    // Every 50th slice starts a flow that the next thread's 50th slice ends.
                    if made.is_multiple_of(50) {
                        let id = u64::from(made) << 20 | u64::from(pr) << 10;
                        let here = id | u64::from(th);
                        e.flow_ids = vec![here];
                        if th > 0 {
                            e.terminating_flow_ids = vec![here - 1];
                        }
                    }
                    put(&event(t, e));
                    depth += 1;
                    made += 1;
                    if rng.below(16) == 0 {
                        let e = TrackEvent { r#type: Some(TYPE_INSTANT), name_iid: Some(12), ..Default::default() };
                        put(&event(t, e));
                    }
                    if th == 0 && rng.below(32) == 0 {
                        let e = TrackEvent {
                            r#type: Some(TYPE_COUNTER),
                            track_uuid: Some(0x900 + u64::from(pr)),
                            counter_value: Some(rng.below(1 << 30) as i64),
                            ..Default::default()
                        };
                        put(&event(t, e));
                    }
                }
            }
        }
        out
    }
}
