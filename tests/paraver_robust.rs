//! Paraver reader on broken and compressed input: every truncation of the real sample and of a generated
//! trace, random mutations of the .prv, .pcf and .row (seeded xorshift), and gzipped .prv files, whole and
//! cut short. Nothing may panic; what can be read is kept.

use crate::common;

use crate::common::TempDir;
use common::read::{read_bytes, read_path};
use weft::model::WarningKind;
use weft::readers::paraver::read;
use weft::samples::paraver::ParaverSample;

const SAMPLE: &str = "paraver/paraver-kernel-qsort_beo3/qsort_beo3";

fn sample(test: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = common::shared_traces(test)?;
    let prv = std::fs::read(dir.join(format!("{SAMPLE}.prv"))).ok()?;
    let pcf = std::fs::read(dir.join(format!("{SAMPLE}.pcf"))).ok()?;
    Some((prv, pcf))
}

#[test]
fn truncation_sweep_on_sample_never_panics() {
    let Some((prv, pcf)) = sample("truncation_sweep_on_sample_never_panics") else {
        return;
    };
    for n in (0..prv.len()).step_by(13) {
        let _ = read("cut.prv", &prv[..n], Some(&pcf[..n.min(pcf.len())]), None);
    }
}

/// xorshift64*: a tiny seeded generator for the mutation test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    const PICK: &[u8] = b"0123456789:-_\n\r ()c,#\xff";
    let mut b = bytes.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(b.len() + 1);
        match rng.below(4) {
            0 if at < b.len() => b[at] = PICK[rng.below(PICK.len())],
            1 => b.insert(at, PICK[rng.below(PICK.len())]),
            2 if at < b.len() => {
                b.remove(at);
            }
            _ => b.truncate(at.max(1)),
        }
    }
    b
}

#[test]
fn truncated_and_mutated_inputs_never_panic() {
    let files = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 2, ..Default::default() }.generate();
    for n in 0..files.prv.len() {
        let _ = read("cut.prv", &files.prv[..n], Some(&files.pcf), Some(&files.row));
    }
    for n in 0..files.pcf.len() {
        let _ = read("cut.prv", &files.prv, Some(&files.pcf[..n]), Some(&files.row[..n.min(files.row.len())]));
    }
    // WEFT_FUZZ_ITERS=200000 for a longer run; the seed can be varied with WEFT_FUZZ_SEED.
    let iters = std::env::var("WEFT_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    let seed = std::env::var("WEFT_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed);
    let mut rng = Rng(seed);
    for _ in 0..iters {
        let prv = mutate(&mut rng, &files.prv);
        let pcf = mutate(&mut rng, &files.pcf);
        let row = mutate(&mut rng, &files.row);
        if let Ok(t) = read("m.prv", &prv, Some(&pcf), Some(&row)) {
            for i in 0..t.intervals.len() {
                assert!(t.intervals.end_ns(i) <= t.span_ns);
            }
        }
    }
}

#[test]
fn gzipped_prv_reads_like_the_plain_one() {
    use std::io::Write;
    let files = ParaverSample { tasks: 2, threads_per_task: 2, iterations: 4, ..Default::default() }.generate();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&files.prv).unwrap();
    let gz = enc.finish().unwrap();
    let plain = read_bytes("x.prv", &files.prv).unwrap();
    let unzipped = read_bytes("x.prv.gz", &gz).unwrap();
    assert_eq!(unzipped.intervals.start_ns, plain.intervals.start_ns);
    assert_eq!(unzipped.messages.len(), plain.messages.len());
    assert!(unzipped.warnings.is_empty());
    // Cut short: what came before the break is kept, with a warning.
    let cut = read_bytes("x.prv.gz", &gz[..gz.len() * 2 / 3]).unwrap();
    assert!(cut.intervals.len() < plain.intervals.len() && !cut.intervals.is_empty());
    assert!(cut.warnings.count(WarningKind::Truncated) >= 1);
    assert!(cut.warnings.examples().iter().any(|w| w.message.contains("gzip stream breaks off")));
    // From disk, the .pcf beside `x.prv.gz` is `x.pcf`.
    let dir = TempDir::new("paraver-gz");
    std::fs::write(dir.join("x.prv.gz"), &gz).unwrap();
    std::fs::write(dir.join("x.row"), &files.row).unwrap();
    let named = read_path(&dir.join("x.prv.gz")).unwrap();
    assert_eq!(named.str(named.processes.name[1]), "rank 1");
}

/// A few header bytes declaring a million threads must not build a million threads (found slow by fuzzing:
/// 150 MB and 3 ms an input): a file declares at most one thread per byte of it, beyond a floor of 4,096.
#[test]
fn headers_declaring_more_threads_than_the_file_can_describe_are_refused() {
    let tiny = b"#Paraver (01/01/2026 at 00:00):1000_ns:1(4):1:1(900000:1)\n1:1:1:1:1:0:10:1\n";
    let err = read("tiny.prv", tiny, None, None).unwrap_err().to_string();
    assert!(err.starts_with("tiny.prv"), "{err}");
    assert!(err.contains("more threads than a file of 75 bytes can describe"), "{err}");
    // 4,096 threads are fine in any file, and one thread per byte beyond that.
    let ok = b"#Paraver (01/01/2026 at 00:00):1000_ns:1(4):1:1(4096:1)\n1:1:1:1:4096:0:10:1\n";
    let trace = read("ok.prv", ok, None, None).unwrap();
    assert_eq!(trace.locations.len(), 4096, "every declared thread is a row, as in Paraver");
}

/// A state ending at u64::MAX (a damaged file) must not stretch the trace to 292 years (nor, at µs ticks,
/// saturate): it is cut at the header's end time with a warning naming the line. A header end time past what
/// nanoseconds can hold is ignored with a warning, and a state ending there is skipped.
#[test]
fn states_ending_at_u64_max_are_cut_or_skipped_with_a_warning() {
    let max = u64::MAX;
    let prv =
        format!("#Paraver (01/01/2026 at 00:00):1000_ns:1(4):1:1(2:1)\n1:1:1:1:1:0:400:1\n1:1:1:1:2:100:{max}:1\n");
    let t = read("max.prv", prv.as_bytes(), None, None).unwrap();
    assert_eq!(t.span_ns, 1000, "the header's end time bounds the trace");
    let ex = t.warnings.examples();
    assert!(ex.iter().any(|w| w.kind == WarningKind::MalformedRecord && w.message.starts_with("max.prv:3:")), "{ex:?}");
    // The state on thread 2 runs 100..1000 ns.
    assert!((0..t.intervals.len()).any(|i| t.intervals.start_ns[i] == 100 && t.intervals.end_ns(i) == 1000));

    for unit in ["ns", "us"] {
        let prv = format!(
            "#Paraver (01/01/2026 at 00:00):{max}_{unit}:1(4):1:1(2:1)\n1:1:1:1:1:0:400:1\n1:1:1:1:2:100:{max}:1\n"
        );
        let t = read("max.prv", prv.as_bytes(), None, None).unwrap();
        assert!(t.span_ns < 1_000_000, "{unit}: span {} ns", t.span_ns);
        let ex = t.warnings.examples();
        assert!(ex.iter().any(|w| w.message.contains("header's end time")), "{unit}: {ex:?}");
        assert!(ex.iter().any(|w| w.message.starts_with("max.prv:3:")), "{unit}: {ex:?}");
    }
}
