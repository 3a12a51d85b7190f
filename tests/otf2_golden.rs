//! Golden numbers for the real OTF2 archives under ../shared/traces/otf2 (hand-checked against the official
//! reader's dump and the archives' provenance notes), read as a folder, as the anchor path, and from zip,
//! tar and tar.gz copies built in memory. Skips with a clear message when the shared traces are absent.

use crate::common;

use common::read::{read_bytes, read_path};
use std::io::Write;
use std::path::Path;
use weft::analyses::summary::summarize;
use weft::model::{MessageKind, Trace, WarningKind};

struct Golden {
    dir: &'static str,
    locations: usize,
    processes: usize,
    events: u64,
    intervals: usize,
    messages: usize,
    collectives: usize,
    regions_defined: usize,
    first_regions: [&'static str; 3],
}

// events: per-kind counts from the official reader (pipit: ProgramBegin/End 2+2, Enter/Leave 42+42, MPI_SEND 16,
// MPI_RECV 16, +84 METRIC with PAPI; stencil: Enter 1251, Leave 1249, MpiSend 512, MpiIrecvRequest 512,
// MpiIrecv 512, collective begin/end 96+96, MeasurementOnOff 96).
// Stencil intervals: 1249 LEAVEs pair with ENTERs; rank 0 leaves two regions in swapped order and leaves two
// nested enters of region 84 open, which are closed where their parent closes (warnings), giving 1251.
const GOLDEN: [Golden; 3] = [
    Golden {
        dir: "pipit-ping-pong-mpi",
        locations: 2,
        processes: 2,
        events: 120,
        intervals: 42,
        messages: 16,
        collectives: 0,
        regions_defined: 235,
        first_regions: ["MEASUREMENT OFF", "TRACE BUFFER FLUSH", "ping-pong.otf2"],
    },
    Golden {
        dir: "pipit-ping-pong-mpi-papi",
        locations: 2,
        processes: 2,
        events: 204,
        intervals: 42,
        messages: 16,
        collectives: 0,
        regions_defined: 235,
        first_regions: ["MEASUREMENT OFF", "TRACE BUFFER FLUSH", "ping-pong.otf2"],
    },
    Golden {
        dir: "tracer-stencil4d-mpi-32",
        locations: 32,
        processes: 32,
        events: 4324,
        intervals: 1251,
        messages: 512,
        collectives: 3,
        regions_defined: 85,
        first_regions: ["MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce"],
    },
];

fn check(g: &Golden, t: &Trace, how: &str) {
    let s = summarize(t, 5);
    let at = format!("{} ({how})", g.dir);
    assert_eq!(s.format, "otf2", "{at}");
    assert_eq!(s.locations, g.locations, "{at}: locations");
    assert_eq!(s.processes, g.processes, "{at}: processes");
    assert_eq!(s.events, g.events, "{at}: events");
    assert_eq!(s.intervals, g.intervals, "{at}: intervals");
    assert_eq!(s.messages, g.messages, "{at}: messages");
    assert_eq!(s.collectives, g.collectives, "{at}: collectives");
    assert!(t.regions.len() >= g.regions_defined, "{at}: regions");
    for (i, name) in g.first_regions.iter().enumerate() {
        assert_eq!(t.region_name(weft::model::RegionId(i as u32)), *name, "{at}: region {i}");
    }
    // Every message goes forward in time and between distinct locations (MPI ping-pong and halo exchange).
    let m = &t.messages;
    for i in 0..m.len() {
        assert_eq!(m.kind[i], MessageKind::PointToPoint);
        assert_ne!(m.sender[i], m.receiver[i], "{at}: message {i}");
        assert!(m.recv_ns[i] + 1_000 >= m.send_ns[i], "{at}: message {i} arrives before it leaves");
    }
}

/// Pack the archive folder into memory as (path, bytes) pairs under a top folder, like a user's upload.
fn archive_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::files_under(dir)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir.parent().unwrap()).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (p, b) in files {
        w.start_file(p.as_str(), opts).unwrap();
        w.write_all(b).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (p, bytes) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, p, bytes.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn shared_otf2_archives_golden() {
    let Some(root) = common::shared_traces("shared_otf2_archives_golden") else {
        return;
    };
    for g in &GOLDEN {
        let dir = root.join("otf2").join(g.dir);
        if !dir.is_dir() {
            eprintln!("SKIPPED {}: not present", dir.display());
            continue;
        }
        let by_folder = read_path(&dir).unwrap_or_else(|e| panic!("{e}"));
        check(g, &by_folder, "folder");
        let by_anchor = read_path(&dir.join("traces.otf2")).unwrap_or_else(|e| panic!("{e}"));
        check(g, &by_anchor, "anchor");
        let files = archive_files(&dir);
        let zip = zip_of(&files);
        check(g, &read_bytes("x.zip", &zip).unwrap_or_else(|e| panic!("{e}")), "zip");
        let tar = tar_of(&files);
        check(g, &read_bytes("x.tar", &tar).unwrap_or_else(|e| panic!("{e}")), "tar");
        check(g, &read_bytes("x.tar.gz", &gz(&tar)).unwrap_or_else(|e| panic!("{e}")), "tar.gz");
        if g.dir == "tracer-stencil4d-mpi-32" {
            // Rank 0 enters TRACER_WallTime_InLoop twice and never leaves it; its LEAVEs of TRACER_Loop and
            // TRACER_WallTime_Loop close the two (a LEAVE closes the innermost open region), which leaves
            // those two open to the location's last event.
            let w = &by_folder.warnings;
            assert_eq!(w.count(WarningKind::MisnamedEnd), 2, "{:?}", w.examples());
            assert_eq!(w.count(WarningKind::UnclosedBegin), 2, "{:?}", w.examples());
            assert_eq!(w.total(), 4, "{:?}", w.examples());
            assert!(w
                .examples()
                .iter()
                .any(|e| e.message.contains("LEAVE of 'TRACER_Loop' closed 'TRACER_WallTime_InLoop'")));
        } else {
            assert_eq!(by_folder.warnings.total(), 0, "{}: {:?}", g.dir, by_folder.warnings.examples());
        }
    }
}
