//! The particle index built in the page's steps (`ParticleBuild`, the chunk `views::set` uses) over an OTF2
//! archive, each step's time, then the pane made from it (BENCHMARKS.md "Session 33").
//!
//!     cargo run --release --example particle_steps -- ARCHIVE_FOLDER

use std::rc::Rc;
use std::time::Instant;
use weft::analyses::particles::{EventSelection, ParticleBuild};
use weft::readers::{open_path, Input};
use weft::views::particles::ParticlesPane;

fn main() {
    let path = std::env::args().nth(1).expect("usage: particle_steps ARCHIVE_FOLDER");
    let trace = match open_path(std::path::Path::new(&path)) {
        Ok(Input::Otf2(o)) => Rc::new(o.read.trace),
        Ok(_) => panic!("{path}: not an OTF2 archive"),
        Err(e) => panic!("{path}: {e}"),
    };
    println!("{} intervals, {} locations", trace.intervals.len(), trace.locations.len());
    let mut build = ParticleBuild::new(&trace, &EventSelection::default(), 1 << 16);
    let events = loop {
        let (name, t) = (build.next_part(), Instant::now());
        let done = build.step(&trace);
        println!("{name}: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
        if let Some(ev) = done {
            break ev;
        }
    };
    let (n, t) = (events.len(), Instant::now());
    let _pane = ParticlesPane::with_events(trace, events, 1280.0, 700.0);
    println!("{n} events; the pane: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
}
