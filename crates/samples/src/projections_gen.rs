//! Generated Charm++ Projections traces (the text formats Charm++'s trace-projections writes, version 11): a
//! `.sts` and one log per PE, some gzipped, of an iterative halo exchange: each iteration every PE runs
//! `Worker::compute`, which creates a message to the next PE, goes idle, then processes the previous PE's
//! message in `Worker::recvHalo`. Also a user event pair, a user event, pack/unpack and a user stat.
//!
//! Writes text only; the counts it was made with are returned for tests to compare against.

use super::rng::XorShift;
use std::io::Write;

#[derive(Clone, Copy, Debug)]
pub struct ProjSpec {
    pub pes: u32,
    pub iterations: u32,
    /// Gzip the logs of even PEs.
    pub gzip_even: bool,
    pub seed: u64,
}

impl ProjSpec {
    pub fn small() -> ProjSpec {
        ProjSpec { pes: 4, iterations: 20, gzip_even: true, seed: 11 }
    }
    /// About `bytes` of plain logs over 64 PEs.
    pub fn of_size(bytes: u64) -> ProjSpec {
        ProjSpec { pes: 64, iterations: (bytes / 64 / 330).max(1) as u32, gzip_even: false, seed: 11 }
    }
}

pub struct ProjTrace {
    /// File names (`gen.sts`, `gen.0.log.gz`, ...) and bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Records per PE (lines after the header).
    pub records: Vec<u64>,
    /// Entry-method intervals over all PEs.
    pub entries: u64,
    pub messages: u64,
    pub idle: u64,
}

const STS: &str = "PROJECTIONS_ID\nVERSION 11.0\nTOTAL_PHASES 1\nMACHINE \"weft-generated\"\nPROCESSORS {PES}\n\
TIMESTAMP 2026-11-24T00:00:00Z\nCHARMVERSION v7.0.0\nTOTAL_CHARES 3\nTOTAL_EPS 4\nTOTAL_MSGS 2\nTOTAL_PSEUDOS 0\n\
TOTAL_EVENTS 2\nCHARE 0 \"Main\" -1\nCHARE 1 \"Worker\" 1\nCHARE 2 \"CkReductionMgr\" -1\n\
ENTRY CHARE 0 \"Main(CkArgMsg* impl_msg)\" 0 0\nENTRY CHARE 1 \"compute(int step)\" 1 1\n\
ENTRY CHARE 2 \"recvHalo(HaloMsg* impl_msg)\" 1 1\nENTRY CHARE 3 \"done()\" 0 0\nMESSAGE 0 64\nMESSAGE 1 1024\n\
EVENT 0 Iteration\nEVENT 1 Checkpoint\nTOTAL_STATS 1\nSTAT 0 residual\nEND\n";

pub fn generate(spec: &ProjSpec) -> ProjTrace {
    let pes = spec.pes.max(1);
    let mut rng = XorShift(spec.seed | 1);
    let mut logs: Vec<String> = (0..pes).map(|_| String::new()).collect();
    let mut records = vec![0u64; pes as usize];
    let (mut entries, mut messages, mut idle) = (0u64, 0u64, 0u64);
    let start = 1_000u64;
    let period = 1_000u64;
    let rec = |logs: &mut Vec<String>, records: &mut Vec<u64>, pe: u32, line: String| {
        logs[pe as usize].push_str(&line);
        logs[pe as usize].push('\n');
        records[pe as usize] += 1;
    };
    for pe in 0..pes {
        rec(&mut logs, &mut records, pe, format!("6 {start}"));
    }
    for k in 0..spec.iterations as u64 {
        let t = start + 100 + k * period;
        for pe in 0..pes {
            let off = rng.below(50);
            let b = t + off;
            let dur = 100 + rng.below(150);
            rec(&mut logs, &mut records, pe, format!("98 0 {b} {k} {pe} 0"));
            // compute: created by PE 0's Main at the start (event -1: no creation traced).
            rec(&mut logs, &mut records, pe, format!("2 1 1 {b} -1 0 16 0 {pe} 0 0 0 {b}"));
            rec(&mut logs, &mut records, pe, format!("16 {} {pe}", b + 10));
            rec(&mut logs, &mut records, pe, format!("17 {} {pe}", b + 12));
            rec(&mut logs, &mut records, pe, format!("1 1 2 {} {k} {pe} 1024 {}", b + dur / 2, b + dur / 2));
            rec(&mut logs, &mut records, pe, format!("3 1 1 {} -1 0 16 {}", b + dur, b + dur));
            entries += 1;
            rec(&mut logs, &mut records, pe, format!("14 {} {pe}", b + dur));
            let wake = t + period / 2 + rng.below(50);
            rec(&mut logs, &mut records, pe, format!("15 {wake} {pe}"));
            idle += 1;
            let from = (pe + pes - 1) % pes;
            rec(&mut logs, &mut records, pe, format!("18 {} {pe}", wake + 1));
            rec(&mut logs, &mut records, pe, format!("19 {} {pe}", wake + 3));
            let d2 = 20 + rng.below(80);
            rec(
                &mut logs,
                &mut records,
                pe,
                format!("2 1 2 {} {k} {from} 1024 {wake} {pe} 0 0 0 {}", wake + 4, wake + 4),
            );
            rec(&mut logs, &mut records, pe, format!("3 1 2 {} {k} {from} 1024 {}", wake + 4 + d2, wake + 4 + d2));
            entries += 1;
            messages += 1;
            if k % 5 == 0 {
                rec(&mut logs, &mut records, pe, format!("13 1 {} {k} {pe}", wake + 5 + d2));
                rec(&mut logs, &mut records, pe, format!("32 {} -1 {}.5 {pe} 0", wake + 6 + d2, k));
            }
            rec(&mut logs, &mut records, pe, format!("99 0 {} {k} {pe} 0", wake + 8 + d2));
        }
    }
    let end = start + 200 + spec.iterations as u64 * period;
    for pe in 0..pes {
        rec(&mut logs, &mut records, pe, format!("7 {end}"));
    }
    let mut files = vec![("gen.sts".to_string(), STS.replace("{PES}", &pes.to_string()).into_bytes())];
    for (pe, body) in logs.into_iter().enumerate() {
        let text = format!("PROJECTIONS-RECORD {}\n{body}", records[pe]);
        if spec.gzip_even && pe % 2 == 0 {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(text.as_bytes()).expect("writing to memory");
            files.push((format!("gen.{pe}.log.gz"), gz.finish().expect("writing to memory")));
        } else {
            files.push((format!("gen.{pe}.log"), text.into_bytes()));
        }
    }
    ProjTrace { files, records, entries, messages, idle }
}
