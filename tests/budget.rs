//! Memory budgets: a streaming read stops with a clear "too large" error once it passes its event budget,
//! for plain and gzipped input alike (a gzip bomb is stopped inside the chunk that inflates it), and files
//! that must be read whole are refused from their size.

use crate::common::TempDir;
use std::io::Write;
use weft::readers::budget::Budget;
use weft::readers::chrome::ChromeStreamReader;
use weft::readers::ReadError;

fn events(n: usize) -> Vec<u8> {
    let mut s = String::from("[\n");
    for i in 0..n {
        s.push_str(&format!(
            "{{\"ph\":\"X\",\"name\":\"MPI_Send\",\"pid\":{},\"tid\":0,\"ts\":{},\"dur\":3}},\n",
            i % 8,
            i * 4
        ));
    }
    s.push_str("{\"ph\":\"X\",\"name\":\"end\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]\n");
    s.into_bytes()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

const SMALL: Budget = Budget { whole_file_bytes: 1 << 20, stream_events: 1_000 };

#[test]
fn a_stream_within_budget_reads_whole() {
    let mut r = ChromeStreamReader::with_budget("ok.json", SMALL);
    for chunk in events(999).chunks(4096) {
        r.feed(chunk).unwrap();
    }
    assert_eq!(r.finish().unwrap().intervals.len(), 1_000);
}

#[test]
fn a_plain_stream_past_its_budget_is_refused() {
    let mut r = ChromeStreamReader::with_budget("big.json", SMALL);
    let err = events(5_000).chunks(4096).find_map(|c| r.feed(c).err()).expect("refused while streaming");
    assert!(matches!(err, ReadError::TooLarge { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("big.json: too large"), "{msg}");
    assert!(msg.contains("more than 1000 events"), "{msg}");
}

#[test]
fn a_gzip_bomb_is_stopped_inside_its_chunk() {
    // 200,000 events inflate from one small chunk; the read stops after about one slice past the budget.
    let bomb = gzip(&events(200_000));
    assert!(bomb.len() < 4 << 20, "one chunk of the page's size");
    let mut r = ChromeStreamReader::with_budget("bomb.json.gz", SMALL);
    let err = r.feed(&bomb).unwrap_err();
    assert!(matches!(err, ReadError::TooLarge { .. }), "{err}");
    assert!(r.held_bytes() < 1 << 20);
    // The finish path (a bomb that fits in the last flush) is checked too.
    let mut r = ChromeStreamReader::with_budget("bomb2.json.gz", SMALL);
    let small_bomb = gzip(&events(3_000));
    let fed = r.feed(&small_bomb[..small_bomb.len() / 50]);
    let result = match fed {
        Err(e) => Err(e),
        Ok(()) => r.feed(&small_bomb[small_bomb.len() / 50..]).and_then(|_| r.finish().map(|_| ())),
    };
    assert!(matches!(result, Err(ReadError::TooLarge { .. })), "{result:?}");
}

#[test]
fn whole_files_are_refused_from_their_size() {
    let err = SMALL.admit_whole("trace.prv", "Paraver", 3 << 20).unwrap_err().to_string();
    assert_eq!(
        err,
        "trace.prv: too large: 3 MiB of Paraver is more than the 1 MiB this viewer can hold in memory for a format \
         it reads whole; index it with `weft index trace.prv -o STORE/` and open the store folder"
    );
    assert!(SMALL.admit_whole("trace.prv", "Paraver", 1 << 20).is_ok());
    // The native default (the CLI) holds far more than the page.
    assert!(Budget::DEFAULT.admit_whole("huge.prv", "Paraver", 8 << 30).is_ok());
}

/// A Paraver trace as a gzip bomb: a header member, then `members` copies of one member inflating to 4 MiB of
/// state records (gzip members concatenate), so the bomb is cheap to make at any inflated size. `varied`: the
/// records' times increase within the block (a trace worth parsing, compressing about 6:1); else one record
/// repeated (compressing about 1000:1).
fn paraver_bomb(members: usize, varied: bool) -> Vec<u8> {
    let mut out = gzip(b"#Paraver (01/01/2026 at 00:00):1000000000_ns:1(1):1:1(1:1)\n");
    let mut body = Vec::with_capacity(4 << 20);
    let mut t = 0u64;
    while body.len() < (4 << 20) - 64 {
        body.extend_from_slice(format!("1:1:1:1:1:{t}:{}:1\n", t + 5).as_bytes());
        if varied {
            t += 5;
        }
    }
    let one = gzip(&body);
    for _ in 0..members {
        out.extend_from_slice(&one);
    }
    out
}

#[test]
fn a_paraver_gzip_bomb_is_too_large_naming_the_file() {
    // 64 MiB inflated from a few hundred KB, against a 16 MiB budget for compressed input.
    let bomb = paraver_bomb(16, false);
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let err = weft::readers::paraver::read_within("bomb.prv.gz", &bomb, None, None, 16 << 20).unwrap_err();
    assert!(matches!(err, ReadError::TooLarge { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("bomb.prv.gz: too large: the gzip stream inflates to more than 16 MiB"), "{msg}");
    // Within the budget, the same stream reads.
    let t = weft::readers::paraver::read_within("ok.prv.gz", &paraver_bomb(1, true), None, None, 16 << 20).unwrap();
    assert!(t.intervals.len() > 100_000);
}

/// Memory that runs out before the budget is the same refusal, never an abort: the CLI reads a bomb of 256 MiB
/// of text (about 13 M intervals) with its address space capped at 640 MiB, so the building of the intervals
/// runs out; it must end with "too large" naming the file and exit 1, not die of a signal.
#[cfg(unix)]
#[test]
fn the_cli_out_of_memory_on_a_paraver_bomb_says_so_and_exits() {
    let dir = TempDir::new("budget-bomb");
    let path = dir.join("bomb.prv.gz");
    std::fs::write(&path, paraver_bomb(64, true)).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 655360 && exec \"$0\" info \"$1\"")
        .arg(env!("CARGO_BIN_EXE_weft"))
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a clean exit with an error, not a signal: {:?}\n{err}", out.status);
    assert!(err.contains("bomb.prv.gz: too large: ran out of memory"), "{err}");
}
