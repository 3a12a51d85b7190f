//! A tiny OTF2 archive written byte by byte (anchor, global definitions, two event files), for fuzzing seeds
//! and hostile-input tests: two MPI ranks, each in `main`, one sending to the other, in either byte order.
//! It writes bytes only, with the OTF2 reader's own encoder (`readers::otf2::encoding::write`); it must not
//! build the model or call the reader. Real archives come from the official library (tests/oracle).

use weft_readers::otf2::encoding::write as w;
use weft_readers::otf2::MemoryFiles;

/// The anchor file (`traces.otf2`). `locations` is what the anchor claims the archive holds (2 is honest).
pub fn anchor(big: bool, locations: u64) -> Vec<u8> {
    let mut a = vec![3, if big { 0x23 } else { 0x42 }];
    w::string(&mut a, "OTF2");
    a.extend_from_slice(&[3, 2, 3, 0, 0]); // anchor format 3, trace format 2, version 3.0.0
    w::u64_full(&mut a, 1 << 20, big);
    w::u64_full(&mut a, 4 << 20, big);
    a.extend_from_slice(&[1, 1]); // POSIX substrate, no compression
    w::u64_full(&mut a, locations, big);
    w::u64_full(&mut a, 20, big);
    for s in ["", "weft sample", ""] {
        w::string(&mut a, s);
    }
    w::u32_full(&mut a, 0, big);
    w::u64_full(&mut a, 42, big);
    w::u32_full(&mut a, 0, big);
    w::u32_full(&mut a, 0, big);
    a.push(2);
    a
}

fn rec(f: &mut Vec<u8>, big: bool, kind: u8, body: impl FnOnce(&mut Vec<u8>)) {
    let mut d = Vec::new();
    body(&mut d);
    w::record(f, kind, &d, big);
}

/// A REGION definition: region `id` named (and canonically named) by string `name`, of OTF2 `role` and
/// `paradigm`, no description, source file or lines.
pub(super) fn region_def(f: &mut Vec<u8>, big: bool, id: u32, name: u32, role: u8, paradigm: u8) {
    rec(f, big, 15, |d| {
        w::u32(d, id, big);
        w::u32(d, name, big);
        w::u32(d, 0, big);
        d.push(0);
        w::u32(d, 0, big);
        w::u32(d, 0, big);
        w::u32(d, 0, big);
        w::u32(d, name, big);
        d.push(role);
        d.push(paradigm);
        w::u32(d, 0, big);
    });
}

/// The global definitions (`traces.def`): clock, strings, system tree, location groups, locations, regions,
/// groups and a communicator.
pub fn global_defs(big: bool) -> Vec<u8> {
    global_defs_with_resolution(big, 1_000_000) // microsecond ticks
}

/// [`global_defs`] with another timer resolution (ticks per second), for tests of implausible clocks.
pub fn global_defs_with_resolution(big: bool, resolution: u64) -> Vec<u8> {
    let mut f = Vec::new();
    w::chunk_header(&mut f, big, 1, 0);
    rec(&mut f, big, 5, |d| {
        w::u64(d, resolution, big);
        w::u64(d, 5_000, big);
        w::u64(d, 1_000, big);
    });
    let strings = ["", "main", "MPI_Send", "MPI_Recv", "Rank 0", "Rank 1", "Master thread", "node", "WORLD"];
    for (id, s) in strings.iter().enumerate() {
        rec(&mut f, big, 10, |d| {
            w::u32(d, id as u32, big);
            w::string(d, s);
        });
    }
    rec(&mut f, big, 12, |d| [0, 7, 0, u32::MAX].iter().for_each(|&v| w::u32(d, v, big)));
    for g in 0..2u32 {
        rec(&mut f, big, 13, |d| {
            w::u32(d, g, big);
            w::u32(d, 4 + g, big);
            d.push(1);
            w::u32(d, 0, big);
        });
    }
    for l in 0..2u64 {
        rec(&mut f, big, 14, |d| {
            w::u64(d, l, big);
            w::u32(d, 6, big);
            d.push(1);
            w::u64(d, 8, big);
            w::u32(d, l as u32, big);
        });
    }
    for (id, name, role, paradigm) in [(0u32, 1u32, 1u8, 1u8), (1, 2, 28, 4), (2, 3, 28, 4)] {
        region_def(&mut f, big, id, name, role, paradigm);
    }
    // Group 0: COMM_LOCATIONS [0, 1]; group 1: COMM_GROUP ranks [0, 1]; comm 0 over group 1.
    for (id, kind) in [(0u32, 4u8), (1, 5)] {
        rec(&mut f, big, 18, |d| {
            w::u32(d, id, big);
            w::u32(d, 8, big);
            d.push(0);
            w::u32(d, 2, big);
            w::u64(d, 0, big);
            w::u64(d, 1, big);
            d.push(kind);
            d.push(4);
            w::u32(d, 0, big);
        });
    }
    rec(&mut f, big, 22, |d| [0, 8, 1, u32::MAX].iter().for_each(|&v| w::u32(d, v, big)));
    f.push(2);
    f
}

/// Location `loc`'s event file (`traces/{loc}.evt`): enter main, the send or receive, leave main.
pub fn events(loc: u32, big: bool) -> Vec<u8> {
    let mut f = Vec::new();
    w::chunk_header(&mut f, big, 1, 8);
    let time = |f: &mut Vec<u8>, t: u64| {
        f.push(5);
        w::u64_full(f, t, big);
    };
    let enter_leave = |f: &mut Vec<u8>, kind: u8, region: u32| {
        f.push(kind);
        w::u32(f, region, big);
    };
    time(&mut f, 10_000);
    enter_leave(&mut f, 12, 0);
    time(&mut f, 11_000);
    let (p2p_region, kind) = if loc == 0 { (1, 14) } else { (2, 18) };
    enter_leave(&mut f, 12, p2p_region);
    let mut d = Vec::new();
    w::u32(&mut d, 1 - loc.min(1), big); // the other rank
    w::u32(&mut d, 0, big);
    w::u32(&mut d, 7, big);
    w::u64(&mut d, 4096, big);
    time(&mut f, 11_500 + loc as u64 * 100);
    w::record(&mut f, kind, &d, big);
    time(&mut f, 12_000);
    enter_leave(&mut f, 13, p2p_region);
    time(&mut f, 13_000);
    enter_leave(&mut f, 13, 0);
    f.push(2);
    f
}

/// The whole archive, as the files of a dropped folder: `traces.otf2`, `traces.def`, `traces/{0,1}.evt`.
pub fn small_archive(big: bool) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    m.insert("traces.otf2", anchor(big, 2));
    m.insert("traces.def", global_defs(big));
    for l in 0..2 {
        m.insert(&format!("traces/{l}.evt"), events(l, big));
    }
    m
}
