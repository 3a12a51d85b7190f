//! Particles on a store (issue #17): the particle pane streamed from a store's particle tiles, window by
//! window (`store::query::particle_slice`, what the store worker answers, fed to `ParticlesPane::streamed`
//! as the page feeds it), draws the same particles, splats and legend as the pane over the whole trace, at
//! the first event, while playing through the whole run and after seeks; on generated OTF2 archives and on
//! the real archives in ../shared/traces/otf2. Playback streams: each answer holds a few windows' events,
//! never the whole set. A damaged particle tile is an error naming the file.

use crate::common;

use std::path::PathBuf;
use std::rc::Rc;
use weft::analyses::particles::{EventSelection, ParticleEvents};
use weft::index::{build, BuildOptions};
use weft::model::Trace;
use weft::readers::otf2::read_archive;
use weft::samples::otf2_gen::{archive, GenConfig};
use weft::scene::particles::timeline::ESTIMATED;
use weft::store::read::query::{
    particle_plan, particle_slice, particle_slicer, particle_tile, particle_window_starts, TileIndex,
};
use weft::store::{MemoryStore, Store, StoreError, TileKind};
use weft::views::particles::{ParticlesPane, OUTSIDE_SLICE};
use weft::views::Pane;

const W: f32 = 900.0;
const H: f32 = 600.0;

fn generated(cfg: &GenConfig) -> Trace {
    read_archive("traces.otf2", &archive(cfg).0).expect("generated archive reads")
}

fn small_tiles(block: u32, tile_intervals: u64) -> BuildOptions {
    BuildOptions { block_locations: block, tile_intervals, ..BuildOptions::default() }
}

/// What two panes show, without what a slice numbers differently (its event indices and length).
fn shown(p: &mut ParticlesPane) -> (serde_json::Value, String) {
    let mut s = p.state();
    let o = s.as_object_mut().unwrap();
    o.remove("events");
    o.remove("store");
    for r in o["running"].as_array_mut().unwrap() {
        r["event"].as_object_mut().unwrap().remove("event");
    }
    // The frame's words (axes, process labels, a notice when there is nothing to animate).
    // (A store's strip also says that starts beyond its slice load as playback reaches them: not the trace's.)
    let words: Vec<String> = p.scene().labels.iter().map(|l| l.text.clone()).filter(|t| t != OUTSIDE_SLICE).collect();
    let layer = p.particle_layer().unwrap();
    let drawn = format!("{:?} {:?} {} {words:?}", layer.particles, layer.splats, layer.max_density);
    (s, drawn)
}

/// The streamed pane's asks answered from `store` (as the worker does); the most events one answer held.
struct Server<'a> {
    store: &'a Store<MemoryStore>,
    slicer: weft::analyses::particles::EventSlicer,
    index: TileIndex,
    answers: usize,
    largest: usize,
}

impl Server<'_> {
    fn serve(&mut self, p: &mut ParticlesPane) {
        while let Some(r) = p.stream_request() {
            let (ev, end) = particle_slice(self.store, &self.slicer, &self.index, r).expect("particle tiles decode");
            self.answers += 1;
            self.largest = self.largest.max(ev.len());
            p.receive_slice(ev, (r.0, end, r.2), Vec::new()).unwrap();
        }
    }
}

/// The store of `trace` (built with `o`) played as the page plays it equals the whole trace's pane: returns
/// (answers, most events in one answer, events in all).
fn same_particles(trace: Trace, o: &BuildOptions, what: &str) -> (usize, usize, usize) {
    same_particles_asking(trace, o, what, None)
}

/// [`same_particles`], the streamed pane asking for at most `ask_events` events at once where given.
fn same_particles_asking(trace: Trace, o: &BuildOptions, what: &str, ask_events: Option<u64>) -> (usize, usize, usize) {
    let built = build(&trace, o);
    let store = Store::open(built.to_memory()).expect("store opens");
    let m = &store.manifest;
    let skeleton = Rc::new(store.skeleton().unwrap());
    let all = ParticleEvents::build(&trace, &EventSelection::default());
    let Some(slicer) = particle_slicer(m, &skeleton) else {
        assert!(all.is_empty(), "{what}: the store keeps no particle extent but the trace has {} events", all.len());
        return (0, 0, 0);
    };
    let x = slicer.extent();
    assert_eq!(m.particles.unwrap().events as usize, all.len(), "{what}: event count");
    assert_eq!(
        (x.first_ns, x.min_dur_ns, x.max_dur_ns, x.span_ns),
        (all.start_ns[0], all.min_dur_ns, all.max_dur_ns, all.span_ns),
        "{what}: extent"
    );
    let frame = slicer.slice(std::iter::empty());
    assert_eq!((&frame.types, &frame.type_counts), (&all.types, &all.type_counts), "{what}: types by frequency");
    let mut whole = ParticlesPane::with_events(Rc::new(trace), all.clone(), W, H);
    let mut streamed =
        ParticlesPane::streamed(skeleton, frame, x.first_ns, m.tiling.window_ns, particle_window_starts(m), W, H);
    if let Some(n) = ask_events {
        streamed.set_ask_events(n);
    }
    let mut server = Server { store: &store, slicer, index: TileIndex::new(m), answers: 0, largest: 0 };
    server.serve(&mut streamed);
    assert_eq!(shown(&mut whole), shown(&mut streamed), "{what}: at the first event");
    // Where the slice held is a part of the run, the strip says the rest loads as playback reaches it.
    let held = streamed.state()["store"]["held"].clone();
    let part = held[1].as_u64().is_some_and(|end| end < x.span_ns);
    let scene = streamed.scene();
    let says = scene.labels.iter().any(|l| l.text == OUTSIDE_SLICE);
    assert_eq!(says, part, "{what}: held {held}");
    // ... and draws the rest of the run's starts from the store's windows, in grey.
    let grey = scene.rects.iter().filter(|r| r.fill == ESTIMATED).count();
    assert_eq!(grey > 0, part, "{what}: {grey} grey bars, held {held}");

    // Play the whole run, one step per page frame, the worker answering between frames.
    let mut now = 0.0;
    for pane in [&mut whole, &mut streamed] {
        pane.configure("play", "").unwrap();
    }
    let mut frames = 0;
    while whole.state()["playing"] == true && frames < 3_000 {
        now += 1000.0 / 60.0;
        server.serve(&mut streamed);
        whole.configure("tick", &now.to_string()).unwrap();
        streamed.configure("tick", &now.to_string()).unwrap();
        let (a, b) = (shown(&mut whole), shown(&mut streamed));
        assert_eq!(a.1, b.1, "{what}: particles and splats at frame {frames}");
        if frames % 97 == 0 {
            assert_eq!(a.0, b.0, "{what}: state at frame {frames}");
        }
        frames += 1;
    }
    assert!(frames > 100, "{what}: played {frames} frames");
    assert_eq!(shown(&mut whole), shown(&mut streamed), "{what}: at the end");
    assert_eq!(streamed.state()["playing"], false);

    // Seeks (paused), backwards and forwards.
    let span = x.span_ns;
    for f in [0.7, 0.2, 0.5, 0.95, 0.01] {
        let t = ((span as f64) * f) as u64;
        whole.configure("seek_ns", &t.to_string()).unwrap();
        streamed.configure("seek_ns", &t.to_string()).unwrap();
        server.serve(&mut streamed);
        assert_eq!(shown(&mut whole), shown(&mut streamed), "{what}: after a seek to {t} ns");
    }
    (server.answers, server.largest, whole.state()["events"].as_u64().unwrap() as usize)
}

#[test]
fn a_store_plays_the_particles_of_the_whole_trace() {
    let t = generated(&GenConfig { threads: 2, ..GenConfig::new(6, 80_000) });
    // One window of tiles: playback still streams it, a few seconds of playback an answer (the run plays
    // in 20 s; an answer holds the events live over `ASK_SECONDS` of it and the fading), not the window.
    let (answers, largest, all) = same_particles(t.clone(), &BuildOptions::default(), "generated, default tiles");
    assert!(answers >= 4, "{answers} answers");
    assert!(largest * 2 < all, "one answer held {largest} of {all} events");
    // Many windows: playback streams them, a few at a time.
    let (answers, largest, all) = same_particles(t, &small_tiles(4, 500), "generated, small tiles");
    assert!(answers >= 8, "{answers} answers");
    assert!(largest * 4 < all, "one answer held {largest} of {all} events");
}

#[test]
fn where_many_events_start_at_once_an_ask_holds_fewer_of_them() {
    // As at 20,000 ranks, where 6 s of playback held 200,000 events: a pane asking for at most 300 by the
    // windows' counts plays the same as the whole trace, in more answers, each holding fewer events. Not
    // down to 300: an answer also holds every event fading from before its range (4 ms of this 41 ms run,
    // about 500 events), and a few frames' steps at least.
    let t = generated(&GenConfig { threads: 2, ..GenConfig::new(6, 80_000) });
    let o = BuildOptions::default();
    let (free, free_largest, all) = same_particles(t.clone(), &o, "generated, asks by time");
    let (answers, largest, _) = same_particles_asking(t, &o, "generated, asks of 300 events", Some(300));
    assert!(free_largest > 2_000, "the test wants asks over the bound by time alone: {free_largest} of {all}");
    assert!(answers > 4 * free, "{answers} answers asking by events, {free} by time");
    assert!(largest * 2 < free_largest, "one answer held {largest} events asked by events, {free_largest} by time");
}

#[test]
fn real_otf2_archives_play_the_same_from_their_store() {
    let Some(dir) = common::shared_traces("store_particles real_otf2_archives") else { return };
    let anchors: Vec<PathBuf> = common::files_under(&dir.join("otf2"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "otf2"))
        .collect();
    if anchors.is_empty() {
        eprintln!("SKIPPED store_particles real_otf2_archives: no OTF2 archives under {}", dir.display());
    }
    for a in anchors {
        let t = common::read::read_path(&a).unwrap_or_else(|e| panic!("{}: {e}", a.display()));
        let name = a.display().to_string();
        same_particles(t.clone(), &BuildOptions::default(), &name);
        same_particles(t, &small_tiles(5, 1_000), &name);
    }
}

#[test]
fn a_damaged_particle_tile_is_named() {
    let t = generated(&GenConfig::new(3, 20_000));
    let built = build(&t, &small_tiles(2, 2_000));
    let mut files = built.to_memory();
    let e = built.manifest.tiles.iter().find(|e| e.kind == TileKind::Particles).expect("a particle tile").clone();
    let bytes = files.files.get_mut(&e.path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let store = Store::open(files).unwrap();
    let skeleton = store.skeleton().unwrap();
    let slicer = particle_slicer(&store.manifest, &skeleton).unwrap();
    let index = TileIndex::new(&store.manifest);
    let w = e.window as u64 * store.manifest.tiling.window_ns;
    match particle_slice(&store, &slicer, &index, (w, w, 1)) {
        Err(err @ StoreError::Mismatch { .. }) => assert_eq!(err.file(), e.path),
        other => panic!("expected a mismatch naming {}, got {:?}", e.path, other.map(|r| r.1)),
    }
}

#[test]
fn playback_late_in_the_run_plans_only_its_own_windows_and_gets_every_live_event() {
    let t = generated(&GenConfig { threads: 2, ..GenConfig::new(4, 60_000) });
    let store = Store::open(build(&t, &small_tiles(4, 500)).to_memory()).expect("store opens");
    let m = &store.manifest;
    let index = TileIndex::new(m);
    let tl = &m.tiling;
    assert!(tl.windows >= 8, "the test wants many windows, got {}", tl.windows);
    // Some events run across a window's start: carried in the later tile's open list.
    let particle_tiles = m.tiles.iter().filter(|e| e.kind == TileKind::Particles);
    let open =
        particle_tiles.map(|e| particle_tile(&store, e).expect("particle tile decodes").open.len()).sum::<usize>();
    assert!(open > 0, "no particle tile carries an event running at its start");
    let skeleton = store.skeleton().unwrap();
    let slicer = particle_slicer(m, &skeleton).expect("the store has particle events");
    let all = ParticleEvents::build(&t, &EventSelection::default());
    let w = tl.windows - 2;
    let ws = tl.window_span(w).start;
    for (t0, fade) in [(ws + tl.window_ns / 2, tl.window_ns / 4), (ws, 0), (ws + 1, tl.window_ns + 1)] {
        let t1 = t0 + tl.window_ns / 8;
        let (tiles, end) = particle_plan(m, &index, t0, t1, fade);
        // The windows from t0 - fade's to t1's, none before (format 1 went back to the earliest window whose
        // events still ran there).
        let wa = tl.window_of(t0 - fade);
        assert!(!tiles.is_empty() && tiles.iter().all(|&i| (wa..=w).contains(&m.tiles[i].window)), "{tiles:?}");
        let (ev, _) = particle_slice(&store, &slicer, &index, (t0, t1, fade)).expect("particle tiles decode");
        let mut got = ev.interval.clone();
        got.sort_unstable();
        let mut want: Vec<u32> = (0..all.len())
            .filter(|&e| all.start_ns[e] < end && all.end_ns(e) + fade > t0)
            .map(|e| all.interval[e])
            .collect();
        want.sort_unstable();
        assert_eq!(got, want, "events live in [{t0}, {end}) with fade {fade}");
    }
}
