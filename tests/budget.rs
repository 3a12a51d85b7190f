//! Memory budgets: a streaming read stops with a clear "too large" error once it passes its event budget,
//! for plain and gzipped input alike (a gzip bomb is stopped inside the chunk that inflates it), and files
//! that must be read whole are refused from their size.

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
         it reads whole; open it with the weft command-line tool, or split the trace"
    );
    assert!(SMALL.admit_whole("trace.prv", "Paraver", 1 << 20).is_ok());
    // The native default (the CLI) holds far more than the page.
    assert!(Budget::DEFAULT.admit_whole("huge.prv", "Paraver", 8 << 30).is_ok());
}
