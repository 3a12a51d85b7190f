//! The per-rank merge on generated runs whose every time is known (`weft_samples::kineto_ranks`).

use super::fixtures::{note, open_set, rows as intervals};
use super::*;
use crate::otf2::MemoryFiles;
use weft_model::{LocationId, ProcessId};
use weft_samples::kineto_ranks::{KinetoRanks, ALLREDUCE, COMPUTE};

fn set(g: &KinetoRanks) -> MemoryFiles {
    let mut files = MemoryFiles::new();
    for (name, bytes) in g.files() {
        files.insert(&format!("run/{name}"), bytes);
    }
    files
}

fn expected_kernels(g: &KinetoRanks) -> Vec<(i64, String, String, i64, i64)> {
    let mut out: Vec<_> = g
        .kernels()
        .into_iter()
        .map(|k| {
            (k.rank as i64, format!("GPU {} / stream {}", k.rank, k.stream), k.name.to_string(), k.start_ns, k.end_ns)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn ranks_are_processes_with_clocks_aligned_by_their_base() {
    let g = KinetoRanks::default();
    let t = open_set(&set(&g)).unwrap();
    assert_eq!(t.processes.len(), 4);
    for r in 0..4u32 {
        assert_eq!(t.process_name(ProcessId(r)), format!("rank {r}"));
        assert_eq!(t.processes.native_id[r as usize], r as i64);
    }
    // Every kernel at its absolute time, whatever its file's base (bases differ by 7 ms a rank).
    let got: Vec<_> =
        intervals(&t).into_iter().filter(|x| x.2 != "ProfilerStep#0" && !x.2.starts_with("ProfilerStep")).collect();
    assert_eq!(got, expected_kernels(&g));
    assert_eq!(t.origin_ns, g.start_ns);
    // The host thread's steps too, under the rank's process.
    let steps: Vec<_> = intervals(&t).into_iter().filter(|x| x.2.starts_with("ProfilerStep")).collect();
    assert_eq!(steps.len(), 12);
    assert_eq!(steps[0].1, "python3 / Thread 1000");
    assert_eq!((steps[0].3, steps[0].4), (g.start_ns, g.start_ns + g.period_ns - 1_000));
    let n = note(&t);
    assert!(n.contains("4 ranks merged; clocks aligned by baseTimeNanoseconds"), "{n}");
    // Locations of a rank in its file's display order: the host thread first, then the streams.
    let names: Vec<&str> = (0..t.locations.len())
        .filter(|&l| t.locations.process[l] == ProcessId(2))
        .map(|l| t.location_name(LocationId(l as u32)))
        .collect();
    assert_eq!(names, ["GPU 2 / stream 7", "GPU 2 / stream 9", "python3 / Thread 1002"]);
}

#[test]
fn nccl_kernels_are_matched_per_process_group_in_order() {
    let g = KinetoRanks::default();
    let t = open_set(&set(&g)).unwrap();
    let c = &t.collectives;
    // Two groups x 3 steps, every rank in each.
    assert_eq!(c.operations(), 6);
    assert_eq!(c.len(), 24);
    let kernels = g.kernels();
    for op in 0..6u32 {
        let rows: Vec<usize> = (0..c.len()).filter(|&k| c.operation[k] == op).collect();
        assert_eq!(rows.len(), 4);
        // The rows of one operation: one per rank, the same group and step.
        let found: Vec<_> = rows
            .iter()
            .map(|&k| {
                let rank = t.processes.native_id[t.locations.process[c.location[k].index()].index()] as u32;
                let start = t.origin_ns + c.start_ns[k] as i64;
                let kernel = kernels
                    .iter()
                    .find(|x| x.rank == rank && x.start_ns == start && x.name == ALLREDUCE)
                    .expect("a generated kernel");
                assert_eq!(t.origin_ns + c.end_ns[k] as i64, kernel.end_ns);
                assert_eq!(kernel.name, ALLREDUCE);
                (rank, kernel.group, kernel.step)
            })
            .collect();
        let (group, step) = (found[0].1, found[0].2);
        assert_eq!(found, (0..4).map(|r| (r, group, step)).collect::<Vec<_>>());
        let comm = t.str(c.communicator[rows[0]]);
        assert_eq!(comm, if group == "0" { "NCCL 0 (default_pg)" } else { "NCCL 1 (undefined)" });
    }
    assert!(kernels.iter().any(|k| k.name == COMPUTE));
    let n = note(&t);
    assert!(n.contains("6 NCCL collectives matched across ranks (24 kernels)"), "{n}");
}

#[test]
fn without_metadata_ranks_follow_the_files_and_clocks_are_taken_as_written() {
    let g = KinetoRanks { ranks_in_files: false, bases_in_files: false, ranks: 3, ..Default::default() };
    let t = open_set(&set(&g)).unwrap();
    assert_eq!(t.processes.len(), 3);
    let got: Vec<_> = intervals(&t).into_iter().filter(|x| !x.2.starts_with("ProfilerStep")).collect();
    assert_eq!(got, expected_kernels(&g));
    let n = note(&t);
    assert!(n.contains("3 ranks merged; clocks taken as written (no baseTimeNanoseconds); ranks by file order"), "{n}");
}

#[test]
fn a_rank_twice_or_a_foreign_world_size_or_a_missing_base_is_refused_naming_the_file() {
    let g = KinetoRanks::default();
    let mut files = set(&g);
    files.insert("run/rank-004.pt.trace.json", g.file(2));
    let e = open_set(&files).unwrap_err();
    assert!(matches!(e, ReadError::NotOneRun { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("rank-004.pt.trace.json") && msg.contains("rank 2 again") && msg.contains("rank-002"),
        "{msg}"
    );

    let mut files = set(&g);
    files.insert("run/other.json", KinetoRanks { ranks: 8, ..g.clone() }.file(5));
    let msg = open_set(&files).unwrap_err().to_string();
    assert!(msg.starts_with("run/other.json: distributedInfo.world_size is 8"), "{msg}");

    let mut files = set(&g);
    files.insert("run/rank-009.json", KinetoRanks { ranks: 10, ..g.clone() }.file(9));
    // world_size 10 against 4: refused on the world size first.
    assert!(open_set(&files).unwrap_err().to_string().contains("world_size is 10"));

    let mut files = set(&g);
    files.insert("run/rank-004.json", KinetoRanks { bases_in_files: false, ranks: 5, ..g.clone() }.file(4));
    let msg = open_set(&files).unwrap_err().to_string();
    assert!(msg.contains("world_size is 5"), "{msg}");
    let mut files = set(&KinetoRanks { ranks: 5, ..g.clone() });
    files.insert("run/rank-004.pt.trace.json", KinetoRanks { bases_in_files: false, ranks: 5, ..g.clone() }.file(4));
    let msg = open_set(&files).unwrap_err().to_string();
    assert!(msg.starts_with("run/rank-004.pt.trace.json: no baseTimeNanoseconds, but run/rank-000"), "{msg}");

    let mut files = set(&g);
    files.insert("run/rank-004.pt.trace.json", KinetoRanks { ranks_in_files: false, ..g.clone() }.file(3));
    let msg = open_set(&files).unwrap_err().to_string();
    assert!(msg.starts_with("run/rank-004.pt.trace.json: no distributedInfo.rank"), "{msg}");
}

#[test]
fn a_broken_file_is_named_and_a_stray_file_keeps_the_old_answer() {
    let g = KinetoRanks::default();
    let mut files = set(&g);
    let mut cut = g.file(1);
    cut.truncate(40);
    cut.extend_from_slice(b"\x01garbage");
    files.insert("run/rank-001.pt.trace.json", cut);
    let e = open_set(&files).unwrap_err();
    assert!(e.to_string().starts_with("run/rank-001.pt.trace.json"), "{e}");

    let mut files = set(&g);
    files.insert("run/README.txt", b"notes about the run".to_vec());
    let e = open_set(&files).unwrap_err();
    assert!(matches!(e, ReadError::UnknownFormat { .. }), "{e:?}");
}

#[test]
fn a_subset_of_the_ranks_is_read_and_said_so() {
    let g = KinetoRanks { ranks: 4, ..Default::default() };
    let mut files = MemoryFiles::new();
    for r in [1u32, 3] {
        files.insert(&format!("rank{r}.json"), g.file(r));
    }
    let t = open_set(&files).unwrap();
    assert_eq!(t.processes.native_id, [1, 3]);
    let n = note(&t);
    assert!(n.contains("2 of the run's 4 ranks (world_size) given"), "{n}");
}

#[test]
fn the_run_info_is_read_wherever_its_keys_are_and_in_any_chunks() {
    let g = KinetoRanks::default();
    let bytes = g.file(3);
    for chunk in [1usize, 7, 64, bytes.len()] {
        let mut r = crate::chrome::ChromeStreamReader::new("f");
        for piece in bytes.chunks(chunk) {
            r.feed(piece).unwrap();
        }
        let (_, run) = r.finish_run().unwrap();
        assert_eq!(
            run,
            RunInfo { rank: Some(3), world_size: Some(4), base_time_ns: Some(g.base_of(3)) },
            "chunk {chunk}"
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_folder_on_disk_is_read_in_parallel_as_the_same_run() {
    let g = KinetoRanks { ranks: 6, ..Default::default() };
    let dir = std::env::temp_dir().join(format!("weft-ranks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    struct Gone(std::path::PathBuf);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _gone = Gone(dir.clone());
    for (name, bytes) in g.files() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let t = crate::open_path(&dir).unwrap().into_trace("dir").unwrap();
    let mut files = MemoryFiles::new();
    for (name, bytes) in g.files() {
        files.insert(&name, bytes);
    }
    let m = open_set(&files).unwrap();
    assert_eq!(intervals(&t), intervals(&m));
    assert_eq!(t.collectives.operation, m.collectives.operation);
    assert_eq!(t.collectives.start_ns, m.collectives.start_ns);
    assert_eq!(t.processes.len(), 6);
}

#[test]
fn two_files_are_two_runs_unless_their_heads_give_two_ranks() {
    let ranked = KinetoRanks { ranks: 2, ..Default::default() }.files();
    let bare = KinetoRanks { ranks: 2, ranks_in_files: false, bases_in_files: false, ..Default::default() }.files();
    // Per-rank files of one run (ranks 0 and 1): one input, merged as today.
    assert!(!two_runs(&ranked[0].1, &ranked[1].1));
    // Two Chrome traces without rank metadata, or both rank 0: two runs.
    assert!(two_runs(&bare[0].1, &bare[1].1));
    assert!(two_runs(&ranked[0].1, &ranked[0].1));
    // Only a head is looked at, gzipped or not.
    let gz = |b: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let head = |b: &[u8]| b[..b.len().min(300)].to_vec();
    assert!(!two_runs(&gz(&ranked[0].1), &head(&ranked[1].1)));
    assert!(two_runs(&gz(&bare[0].1), &head(&bare[1].1)));
    // Not Chrome JSON: left to the set's reader (an OTF2 archive's files, a Paraver trace and its names).
    assert!(!two_runs(b"c\x00\x00\x00\x00", &bare[1].1));
}
