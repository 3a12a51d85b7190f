//! Issue #15's quadratic paths at n, 2n and 4n: the figures of BENCHMARKS.md's "Hostile input: scaling"
//! section. Best of 3 per size. `cargo run --example hostile_scaling [-- CASE]` (debug build, opt-level 1;
//! the figures were taken that way, before and after the fix, on the same machine).

use std::time::Instant;
use weft::layouts::timeline::{TimelineLayout, TimelineMetrics};
use weft::model::Trace;
use weft::readers::chrome::ChromeStreamReader;
use weft::readers::graphml;
use weft::scene::timeline::{region_colors, TimelineScene, TimelineView};

fn best(f: &mut dyn FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn array(n: usize, f: impl Fn(usize) -> String) -> Vec<u8> {
    let body: Vec<String> = (0..n).map(f).collect();
    format!("[{}]", body.join(",")).into_bytes()
}

fn read(b: &[u8]) -> Trace {
    let mut r = ChromeStreamReader::new("h.json");
    r.feed(b).expect("feeds");
    r.finish().expect("reads")
}

type Make = fn(usize) -> Vec<u8>;

fn unmatched_ends(n: usize) -> Vec<u8> {
    array(n, |i| {
        if i < n / 2 {
            format!(r#"{{"ph":"B","name":"a","pid":1,"tid":1,"ts":{i}}}"#)
        } else {
            format!(r#"{{"ph":"E","name":"zz","pid":1,"tid":1,"ts":{i}}}"#)
        }
    })
}

fn one_timestamp_ends(n: usize) -> Vec<u8> {
    array(n, |i| {
        let ph = if i < n / 2 { "E" } else { "B" };
        format!(r#"{{"ph":"{ph}","name":"{}","pid":1,"tid":1,"ts":5}}"#, if ph == "E" { "zz" } else { "a" })
    })
}

fn never_ended_b(n: usize) -> Vec<u8> {
    array(n, |i| format!(r#"{{"ph":"b","cat":"c","name":"job","id":{i},"pid":1,"ts":{i}}}"#))
}

fn s_without_f(n: usize) -> Vec<u8> {
    array(n, |i| format!(r#"{{"ph":"S","cat":"c","name":"job","id":{i},"pid":1,"tid":1,"ts":{i}}}"#))
}

fn async_unmatched_ends(n: usize) -> Vec<u8> {
    array(n, |i| {
        let (ph, name) = if i < n / 2 { ("b", "a") } else { ("e", "zz") };
        format!(r#"{{"ph":"{ph}","cat":"c","name":"{name}","id":1,"pid":1,"ts":{i}}}"#)
    })
}

fn undeclared_keys(n: usize) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><graph edgedefault=\"directed\">");
    for i in 0..n {
        s.push_str(&format!("<node id=\"n{i}\"><data key=\"k{i}\">{i}</data></node>"));
    }
    s.push_str("</graph></graphml>");
    s.into_bytes()
}

fn nested(n: usize) -> Vec<u8> {
    array(n, |i| format!(r#"{{"ph":"B","name":"f{}","pid":1,"tid":1,"ts":{i}}}"#, i % 7))
}

fn main() {
    let only = std::env::args().nth(1);
    let chrome: [(&str, Make, usize); 5] = [
        ("Chrome: named E matching nothing, on a deep stack", unmatched_ends, 20_000),
        ("Chrome: E matching nothing, waiting at one timestamp", one_timestamp_ends, 20_000),
        ("Chrome: b never ended (one track each)", never_ended_b, 20_000),
        ("Chrome: S without F", s_without_f, 20_000),
        ("Chrome: async e matching nothing, deep stack", async_unmatched_ends, 20_000),
    ];
    for (name, make, n) in chrome {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let times: Vec<f64> = [n, 2 * n, 4 * n]
            .iter()
            .map(|&k| {
                let b = make(k);
                best(&mut || drop(read(&b)))
            })
            .collect();
        println!("{name:55} n={n:>7}  {:>9.1} {:>9.1} {:>9.1} ms", times[0], times[1], times[2]);
    }
    if only.as_deref().is_none_or(|o| "GraphML".contains(o)) {
        let n = 20_000;
        let times: Vec<f64> = [n, 2 * n, 4 * n]
            .iter()
            .map(|&k| {
                let b = undeclared_keys(k);
                best(&mut || drop(graphml::read("g.graphml", &b).expect("reads")))
            })
            .collect();
        let name = "GraphML: one undeclared key per node";
        println!("{name:55} n={n:>7}  {:>9.1} {:>9.1} {:>9.1} ms", times[0], times[1], times[2]);
    }
    if only.as_deref().is_none_or(|o| "Paraver".contains(o)) {
        // An MPI call, user functions nested n/2 deep inside it, then ends of nothing open and global ops.
        let n = 20_000;
        let times: Vec<f64> = [n, 2 * n, 4 * n]
            .iter()
            .map(|&k| {
                let mut s = String::from(
                    "#Paraver (01/01/2026 at 00:00):1000000000_ns:1(1):1:1(1:1)\n2:1:1:1:1:1:50000002:10\n",
                );
                for i in 0..k / 2 {
                    s.push_str(&format!("2:1:1:1:1:{}:60000019:{}\n", i + 2, i % 5 + 1));
                }
                for i in 0..k / 2 {
                    if i % 2 == 0 {
                        s.push_str(&format!("2:1:1:1:1:{}:50000001:0\n", k + i));
                    } else {
                        s.push_str(&format!("4:1:1:1:1:{}:0:8:8:10\n", k + i));
                    }
                }
                let b = s.into_bytes();
                best(&mut || drop(weft::readers::paraver::read("p.prv", &b, None, None).expect("reads")))
            })
            .collect();
        let name = "Paraver: deep calls, ends of nothing open, global ops";
        println!("{name:55} n={n:>7}  {:>9.1} {:>9.1} {:>9.1} ms", times[0], times[1], times[2]);
    }
    if only.as_deref().is_none_or(|o| "timeline".contains(o)) {
        // The page's per-frame work for a deeply nested thread: the timeline scene of the whole trace.
        let n = 16_000;
        let times: Vec<(f64, usize)> = [n, 2 * n, 4 * n]
            .iter()
            .map(|&k| {
                let t = read(&nested(k));
                let lay = TimelineLayout::new(&t, TimelineMetrics::default());
                let colors = region_colors(&t);
                let s = TimelineScene { trace: &t, layout: &lay, colors: &colors };
                let view = TimelineView::fit(&t, 1600.0, 900.0);
                let mut rects = 0;
                let ms = best(&mut || rects = s.build(&view, None).rects.len());
                (ms, rects)
            })
            .collect();
        let name = "timeline scene, B nested n deep (one frame)";
        println!(
            "{name:55} n={n:>7}  {:>9.1} {:>9.1} {:>9.1} ms  ({} / {} / {} rects)",
            times[0].0, times[1].0, times[2].0, times[0].1, times[1].1, times[2].1
        );
    }
}
