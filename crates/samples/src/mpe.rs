//! MPE/Jumpshot files written from the record layouts (MPE2's `clog_record.h`, `clog_preamble.h`; MPICH 1.x's
//! CLOG; slog2sdk's SLOG-2 Java classes), for the readers' tests, the fuzz seeds and the import benchmarks.
//! One workload in three formats: `ranks` MPI ranks, each iteration a "Compute" state, an "MPI_Send" state
//! holding a send to the next rank, an "MPI_Recv" state holding the receive from the previous one, and every
//! tenth iteration a "checkpoint" event; so the counts a reader must find are known ([`MpeSample::expected`]).

/// The workload's shape.
#[derive(Clone, Copy, Debug)]
pub struct MpeSample {
    pub ranks: u32,
    pub iterations: u32,
}

/// What a reader must find in any of the three files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub intervals: u64,
    pub messages: u64,
    pub instants: u64,
    pub locations: u64,
}

/// One event of the workload, in seconds.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(usize),
    Final(usize),
    Send { to: u32, tag: u32, size: u32 },
    Recv { from: u32, tag: u32, size: u32 },
    Solo,
}

pub const STATES: [&str; 3] = ["Compute", "MPI_Send", "MPI_Recv"];
pub const SOLO: &str = "checkpoint";
const STATE_EVENTS: [(i32, i32); 3] = [(600, 601), (2, 3), (4, 5)];
const SOLO_EVENT: i32 = 700;
const MESSAGE_BYTES: u32 = 1024;

impl MpeSample {
    pub fn new(ranks: u32, iterations: u32) -> Self {
        MpeSample { ranks: ranks.max(2), iterations }
    }

    /// About `bytes` of CLOG2 (each rank-iteration writes 288 bytes of records).
    pub fn sized_clog2(bytes: u64, ranks: u32) -> Self {
        let per = 288 * ranks.max(2) as u64;
        MpeSample::new(ranks, (bytes / per + 1) as u32)
    }

    pub fn expected(&self) -> Expected {
        let (r, n) = (self.ranks as u64, self.iterations as u64);
        Expected { intervals: 3 * r * n, messages: r * n, instants: r * n.div_ceil(10), locations: r }
    }

    /// The events of every rank, in time order: (seconds, rank, event).
    fn events(&self) -> Vec<(f64, u32, Ev)> {
        let r = self.ranks;
        let mut out = Vec::with_capacity((self.ranks * self.iterations * 9) as usize);
        for i in 0..self.iterations {
            for k in 0..r {
                let t = i as f64 * 100e-6 + k as f64 * 1e-6;
                let tag = i % 1000;
                out.push((t, k, Ev::Start(0)));
                out.push((t + 40e-6, k, Ev::Final(0)));
                out.push((t + 40e-6, k, Ev::Start(1)));
                out.push((t + 41e-6, k, Ev::Send { to: (k + 1) % r, tag, size: MESSAGE_BYTES }));
                out.push((t + 45e-6, k, Ev::Final(1)));
                out.push((t + 50e-6, k, Ev::Start(2)));
                out.push((t + 80e-6, k, Ev::Recv { from: (k + r - 1) % r, tag, size: MESSAGE_BYTES }));
                out.push((t + 85e-6, k, Ev::Final(2)));
                if i % 10 == 0 {
                    out.push((t + 95e-6, k, Ev::Solo));
                }
            }
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }

    /// A CLOG2 file (MPE2's merged log, big-endian, "CLOG-02.44"), with `block_size`-byte blocks.
    pub fn clog2(&self, block_size: usize) -> Vec<u8> {
        let mut records: Vec<Vec<u8>> = Vec::new();
        let header = |t: f64, rank: u32, rectype: i32| -> Vec<u8> {
            let mut h = Vec::with_capacity(64);
            h.extend_from_slice(&t.to_be_bytes());
            for v in [0i32, rank as i32, 0, rectype] {
                h.extend_from_slice(&v.to_be_bytes());
            }
            h
        };
        let text = |s: &str, n: usize| -> Vec<u8> {
            let mut v = s.as_bytes().to_vec();
            v.resize(n, 0);
            v
        };
        for (s, name) in STATES.iter().enumerate() {
            let mut r = header(0.0, 0, 2);
            for v in [s as i32 + 1, STATE_EVENTS[s].0, STATE_EVENTS[s].1, 0] {
                r.extend_from_slice(&v.to_be_bytes());
            }
            r.extend(text("255 0 0", 24));
            r.extend(text(name, 32));
            r.extend(text("", 40));
            records.push(r);
        }
        let mut r = header(0.0, 0, 3);
        r.extend_from_slice(&SOLO_EVENT.to_be_bytes());
        r.extend_from_slice(&0i32.to_be_bytes());
        r.extend(text("0 255 0", 24));
        r.extend(text(SOLO, 32));
        r.extend(text("", 40));
        records.push(r);
        for k in 0..self.ranks {
            // MPI_COMM_WORLD's creation: communicator 0's rank k is world rank k.
            let mut r = header(0.0, k, 9);
            for v in [0i32, 0, k as i32, k as i32] {
                r.extend_from_slice(&v.to_be_bytes());
            }
            r.extend(text("", 32));
            records.push(r);
        }
        for (t, k, ev) in self.events() {
            let bare = |etype: i32| {
                let mut r = header(t, k, 5);
                r.extend_from_slice(&etype.to_be_bytes());
                r.extend_from_slice(&0i32.to_be_bytes());
                r
            };
            records.push(match ev {
                Ev::Start(s) => bare(STATE_EVENTS[s].0),
                Ev::Final(s) => bare(STATE_EVENTS[s].1),
                Ev::Solo => bare(SOLO_EVENT),
                Ev::Send { to: p, tag, size } | Ev::Recv { from: p, tag, size } => {
                    let mut r = header(t, k, 7);
                    let etype = if matches!(ev, Ev::Send { .. }) { -101 } else { -102 };
                    for v in [etype, 0, p as i32, tag as i32, size as i32, 0] {
                        r.extend_from_slice(&v.to_be_bytes());
                    }
                    r
                }
            });
        }
        let mut out = clog2_preamble(block_size);
        let end = |rectype: i32| header(0.0, 0, rectype);
        let mut block: Vec<u8> = Vec::with_capacity(block_size);
        for r in records {
            if block.len() + r.len() + 24 > block_size {
                block.extend(end(1));
                block.resize(block_size, 0);
                out.extend_from_slice(&block);
                block.clear();
            }
            block.extend(r);
        }
        block.extend(end(0));
        block.resize(block_size, 0);
        out.extend_from_slice(&block);
        out
    }

    /// An MPICH 1.x CLOG file (big-endian, 64 KiB blocks): states and send/receive as raw events.
    pub fn clog(&self) -> Vec<u8> {
        let mut records: Vec<Vec<u8>> = Vec::new();
        let rec = |t: f64, rectype: i32, proc: u32, body: &[u8]| -> Vec<u8> {
            let mut r = Vec::with_capacity(24 + body.len());
            r.extend_from_slice(&t.to_be_bytes());
            let len = ((24 + body.len()) / 8) as i32;
            for v in [rectype, len, proc as i32, 0] {
                r.extend_from_slice(&v.to_be_bytes());
            }
            r.extend_from_slice(body);
            r
        };
        let text = |s: &str, n: usize| -> Vec<u8> {
            let mut v = s.as_bytes().to_vec();
            v.resize(n, 0);
            v
        };
        let ints = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_be_bytes()).collect() };
        for (t, k, ev) in self.events() {
            let (etype, data, s) = match ev {
                Ev::Start(s) => (STATE_EVENTS[s].0, 0, String::new()),
                Ev::Final(s) => (STATE_EVENTS[s].1, 0, String::new()),
                Ev::Solo => (SOLO_EVENT, 0, String::new()),
                Ev::Send { to, tag, size } => (-101, to as i32, format!("{tag} {size}")),
                Ev::Recv { from, tag, size } => (-102, from as i32, format!("{tag} {size}")),
            };
            let mut body = ints(&[etype, data, 0, 0]);
            body.extend(text(&s, 16));
            records.push(rec(t, 1, k, &body));
        }
        // Definitions at the end, as MPE 1.x writes them when the log is finished.
        let last = self.iterations as f64 * 100e-6;
        for (s, name) in STATES.iter().enumerate() {
            let mut body = ints(&[s as i32 + 1, STATE_EVENTS[s].0, STATE_EVENTS[s].1, 0]);
            body.extend(text("red", 24));
            body.extend(text(name, 16));
            records.push(rec(last, 6, 0, &body));
        }
        let mut body = ints(&[SOLO_EVENT, 0]);
        body.extend(text(SOLO, 16));
        records.push(rec(last, 5, 0, &body));
        let mut out = Vec::new();
        let mut block: Vec<u8> = Vec::with_capacity(65536);
        for r in records {
            if block.len() + r.len() + 24 > 65536 {
                block.extend(rec(0.0, -1, 0, &[]));
                block.resize(65536, 0);
                out.extend_from_slice(&block);
                block.clear();
            }
            block.extend(r);
        }
        block.extend(rec(0.0, -2, 0, &[]));
        block.resize(65536, 0);
        out.extend_from_slice(&block);
        out
    }

    /// A SLOG-2 file ("SLOG 2.0.6") of the same workload: states, arrows (tag and size as info values) and
    /// events in leaf frames of about `leaf_bytes`, every tenth iteration's receive state and arrow inside a
    /// composite, timeline id `10 * rank` mapped to (world_rank, thread) by a line-id map.
    pub fn slog2(&self, leaf_bytes: usize) -> Vec<u8> {
        let w = Slog2Writer::default();
        // Categories: 0 message (arrow), 1..=3 the states, 4 checkpoint (event), 5 Exchange (composite).
        let cats: Vec<Vec<u8>> = vec![
            category(0, "message", 2, &["msg_tag=", ", msg_size=", ""], b"dd"),
            category(1, STATES[0], 1, &[], b""),
            category(2, STATES[1], 1, &[], b""),
            category(3, STATES[2], 1, &[], b""),
            category(4, SOLO, 0, &[], b""),
            category(5, "Exchange", 1, &[], b""),
        ];
        // Drawables per rank and iteration from the paired events.
        let mut open: std::collections::HashMap<(u32, usize), f64> = Default::default();
        let mut sends: std::collections::HashMap<(u32, u32, u32), f64> = Default::default();
        let mut nestless: Vec<(f64, Vec<u8>)> = Vec::new();
        let mut nestable: Vec<(f64, Vec<u8>)> = Vec::new();
        let line = |k: u32| 10 * k as i32;
        let mut iteration = vec![0u32; self.ranks as usize];
        let mut arrows_of_recv: std::collections::HashMap<u32, Vec<u8>> = Default::default();
        for (t, k, ev) in self.events() {
            match ev {
                Ev::Start(s) => {
                    open.insert((k, s), t);
                }
                Ev::Final(s) => {
                    let t0 = open.remove(&(k, s)).unwrap_or(t);
                    let p = primitive(s as i32 + 1, &[], &[(t0, line(k)), (t, line(k))]);
                    if s == 2 {
                        let i = iteration[k as usize];
                        iteration[k as usize] += 1;
                        if i.is_multiple_of(10) {
                            // The receive state and its arrow as one composite.
                            let arrow = arrows_of_recv.remove(&k).unwrap_or_default();
                            let mut c = vec![1u8];
                            c.extend_from_slice(&5i32.to_be_bytes());
                            c.extend_from_slice(&0i16.to_be_bytes());
                            c.extend_from_slice(&2i16.to_be_bytes());
                            c.extend_from_slice(&p);
                            c.extend_from_slice(&arrow);
                            nestable.push((t0, c));
                            continue;
                        }
                        if let Some(a) = arrows_of_recv.remove(&k) {
                            let mut d = vec![0u8];
                            d.extend_from_slice(&a);
                            nestless.push((t0, d));
                        }
                    }
                    let mut d = vec![0u8];
                    d.extend_from_slice(&p);
                    nestable.push((t0, d));
                }
                Ev::Send { to, tag, .. } => {
                    sends.insert((k, to, tag), t);
                }
                Ev::Recv { from, tag, size } => {
                    let ts = sends.remove(&(from, k, tag)).unwrap_or(t);
                    let mut info = Vec::new();
                    info.extend_from_slice(&(tag as i32).to_be_bytes());
                    info.extend_from_slice(&(size as i32).to_be_bytes());
                    arrows_of_recv.insert(k, primitive(0, &info, &[(ts, line(from)), (t, line(k))]));
                }
                Ev::Solo => {
                    let mut d = vec![0u8];
                    d.extend_from_slice(&primitive(4, &[], &[(t, line(k))]));
                    nestless.push((t, d));
                }
            }
        }
        w.write(&cats, self.ranks, nestless, nestable, leaf_bytes)
    }
}

impl MpeSample {
    /// An MPICH2 RLOG file (little-endian): the header, state and arrow sections, then one event section per
    /// rank (its states as intervals, nesting level 0; the checkpoint events are not in RLOG's vocabulary).
    pub fn rlog(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let section = |out: &mut Vec<u8>, kind: i32, body: &[u8]| {
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&(body.len() as i32).to_le_bytes());
            out.extend_from_slice(body);
        };
        let mut h = 0i32.to_le_bytes().to_vec();
        h.extend_from_slice(&(self.ranks as i32 - 1).to_le_bytes());
        section(&mut out, 0, &h);
        let mut st = Vec::new();
        for (s, name) in STATES.iter().enumerate() {
            st.extend_from_slice(&STATE_EVENTS[s].0.to_le_bytes());
            st.extend_from_slice(&0i32.to_le_bytes());
            let mut c = b"255 0 0".to_vec();
            c.resize(24, 0);
            st.extend(c);
            let mut n = name.as_bytes().to_vec();
            n.resize(40, 0);
            st.extend(n);
        }
        section(&mut out, 1, &st);
        let mut open: std::collections::HashMap<(u32, usize), f64> = Default::default();
        let mut sends: std::collections::HashMap<(u32, u32, u32), f64> = Default::default();
        let mut arrows = Vec::new();
        let mut per_rank: Vec<Vec<u8>> = vec![Vec::new(); self.ranks as usize];
        for (t, k, ev) in self.events() {
            match ev {
                Ev::Start(s) => {
                    open.insert((k, s), t);
                }
                Ev::Final(s) => {
                    let t0 = open.remove(&(k, s)).unwrap_or(t);
                    let e = &mut per_rank[k as usize];
                    for v in [k as i32, STATE_EVENTS[s].0, 0, 0] {
                        e.extend_from_slice(&v.to_le_bytes());
                    }
                    e.extend_from_slice(&t0.to_le_bytes());
                    e.extend_from_slice(&t.to_le_bytes());
                }
                Ev::Send { to, tag, .. } => {
                    sends.insert((k, to, tag), t);
                }
                Ev::Recv { from, tag, size } => {
                    let ts = sends.remove(&(from, k, tag)).unwrap_or(t);
                    for v in [from as i32, k as i32, tag as i32, size as i32, 0, 0] {
                        arrows.extend_from_slice(&v.to_le_bytes());
                    }
                    arrows.extend_from_slice(&ts.to_le_bytes());
                    arrows.extend_from_slice(&t.to_le_bytes());
                }
                Ev::Solo => {}
            }
        }
        section(&mut out, 2, &arrows);
        for (k, events) in per_rank.into_iter().enumerate() {
            let mut body = Vec::with_capacity(12 + events.len());
            body.extend_from_slice(&(k as i32).to_le_bytes());
            body.extend_from_slice(&1i32.to_le_bytes());
            body.extend_from_slice(&((events.len() / 32) as i32).to_le_bytes());
            body.extend(events);
            section(&mut out, 3, &body);
        }
        out
    }
}

fn clog2_preamble(block_size: usize) -> Vec<u8> {
    let mut p = Vec::with_capacity(1024);
    let fields: Vec<String> = [
        "CLOG-02.44",
        "is_big_endian=",
        "TRUE ",
        "is_finalzed=",
        "TRUE ",
        "block_size=",
        &block_size.to_string(),
        "num_buffered_blocks=",
        "128",
        "max_comm_world_size=",
        "0",
        "max_thread_count=",
        "1",
        "commtable_fptr=",
        "0",
        "1073741824",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in fields {
        p.extend_from_slice(f.as_bytes());
        p.push(0);
    }
    p.resize(1024, 0);
    p
}

fn java_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn category(index: i32, name: &str, topo: i32, keys: &[&str], types: &[u8]) -> Vec<u8> {
    let mut c = Vec::new();
    c.extend_from_slice(&index.to_be_bytes());
    java_string(&mut c, name);
    c.extend_from_slice(&topo.to_be_bytes());
    c.extend_from_slice(&(0xff00_00ffu32 as i32).to_be_bytes());
    c.push(1);
    c.push(1);
    c.extend_from_slice(&(keys.len() as i16).to_be_bytes());
    for k in keys {
        java_string(&mut c, k);
    }
    c.extend_from_slice(&(types.len() as i16).to_be_bytes());
    c.extend_from_slice(types);
    c.extend_from_slice(&0i16.to_be_bytes());
    c.extend_from_slice(&0f32.to_be_bytes());
    c.extend_from_slice(&0f32.to_be_bytes());
    c.extend_from_slice(&0i64.to_be_bytes());
    c
}

fn primitive(category: i32, info: &[u8], vertices: &[(f64, i32)]) -> Vec<u8> {
    let mut p = Vec::with_capacity(8 + info.len() + 12 * vertices.len());
    p.extend_from_slice(&category.to_be_bytes());
    p.extend_from_slice(&(info.len() as i16).to_be_bytes());
    p.extend_from_slice(info);
    p.extend_from_slice(&(vertices.len() as i16).to_be_bytes());
    for &(t, l) in vertices {
        p.extend_from_slice(&t.to_be_bytes());
        p.extend_from_slice(&l.to_be_bytes());
    }
    p
}

#[derive(Default)]
struct Slog2Writer {
    out: Vec<u8>,
}

impl Slog2Writer {
    const HEADER_BYTES: usize = 2 + 10 + 2 + 4 + 2 + 4 + 7 * 12;

    fn write(
        mut self,
        cats: &[Vec<u8>],
        ranks: u32,
        mut nestless: Vec<(f64, Vec<u8>)>,
        mut nestable: Vec<(f64, Vec<u8>)>,
        leaf_bytes: usize,
    ) -> Vec<u8> {
        self.out.resize(Self::HEADER_BYTES, 0);
        nestless.sort_by(|a, b| a.0.total_cmp(&b.0));
        nestable.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Leaves: drawables in start order, cut every `leaf_bytes`.
        let mut frames: Vec<(i64, i32)> = Vec::new();
        let (mut a, mut b) = (0, 0);
        let mut max_block = 0;
        while a < nestless.len() || b < nestable.len() || frames.is_empty() {
            let start = self.out.len();
            let (mut less, mut able) = (Vec::new(), Vec::new());
            let (mut nl, mut na) = (0i32, 0i32);
            while (a < nestless.len() || b < nestable.len()) && less.len() + able.len() < leaf_bytes.max(64) {
                let take_less = b >= nestable.len() || (a < nestless.len() && nestless[a].0 <= nestable[b].0);
                if take_less {
                    less.extend_from_slice(&nestless[a].1);
                    nl += 1;
                    a += 1;
                } else {
                    able.extend_from_slice(&nestable[b].1);
                    na += 1;
                    b += 1;
                }
            }
            let xpos = frames.len() as i32;
            let mut f = Vec::with_capacity(64 + less.len() + able.len());
            f.extend_from_slice(&0f64.to_be_bytes());
            f.extend_from_slice(&0f64.to_be_bytes());
            f.extend_from_slice(&0i16.to_be_bytes());
            f.extend_from_slice(&xpos.to_be_bytes());
            f.extend_from_slice(&(start as i64).to_be_bytes());
            f.extend_from_slice(&0i32.to_be_bytes());
            f.extend_from_slice(&nl.to_be_bytes());
            f.extend(less);
            f.extend_from_slice(&na.to_be_bytes());
            f.extend(able);
            f.extend_from_slice(&0i32.to_be_bytes()); // no shadow buffers
            max_block = max_block.max(f.len());
            frames.push((start as i64, f.len() as i32));
            self.out.extend(f);
        }
        let block = |out: &mut Vec<u8>, bytes: Vec<u8>| -> (i64, i32) {
            let at = out.len() as i64;
            let n = bytes.len() as i32;
            out.extend(bytes);
            (at, n)
        };
        let mut cm = (cats.len() as i32).to_be_bytes().to_vec();
        for c in cats {
            cm.extend_from_slice(c);
        }
        let cat_ptr = block(&mut self.out, cm);
        let mut lm = 1i32.to_be_bytes().to_vec();
        java_string(&mut lm, "ThreadView");
        lm.extend_from_slice(&2i32.to_be_bytes());
        java_string(&mut lm, "world_rank");
        java_string(&mut lm, "thread");
        lm.extend_from_slice(&(ranks as i32).to_be_bytes());
        for k in 0..ranks as i32 {
            for v in [10 * k, k, 0] {
                lm.extend_from_slice(&v.to_be_bytes());
            }
        }
        lm.extend_from_slice(&0i16.to_be_bytes());
        let line_ptr = block(&mut self.out, lm);
        let mut dir = (frames.len() as i32).to_be_bytes().to_vec();
        for (i, &(at, n)) in frames.iter().enumerate() {
            dir.extend_from_slice(&0i16.to_be_bytes());
            dir.extend_from_slice(&(i as i32).to_be_bytes());
            dir.extend_from_slice(&0f64.to_be_bytes());
            dir.extend_from_slice(&0f64.to_be_bytes());
            dir.extend_from_slice(&at.to_be_bytes());
            dir.extend_from_slice(&n.to_be_bytes());
        }
        let dir_ptr = block(&mut self.out, dir);
        let mut h = Vec::with_capacity(Self::HEADER_BYTES);
        java_string(&mut h, "SLOG 2.0.6");
        h.extend_from_slice(&2i16.to_be_bytes());
        h.extend_from_slice(&(leaf_bytes as i32).to_be_bytes());
        h.extend_from_slice(&0i16.to_be_bytes());
        h.extend_from_slice(&(max_block.max(dir_ptr.1 as usize) as i32).to_be_bytes());
        for (at, n) in [cat_ptr, (0, 0), line_ptr, frames[0], dir_ptr, (0, 0), (0, 0)] {
            h.extend_from_slice(&at.to_be_bytes());
            h.extend_from_slice(&n.to_be_bytes());
        }
        self.out[..Self::HEADER_BYTES].copy_from_slice(&h);
        self.out
    }
}

/// A hostile SLOG-2 file (issue 51): one leaf frame of `n` states on one timeline, and a tree directory with
/// a frame beginning inside it at every drawable. Each state's second vertex is at a whole time and names line
/// `n - i - 1`, so the 8 bytes before drawable `i + 1` read as a frame's counts (no nestless drawables, then
/// the `n - i - 1` nestable ones to the end): a reader that reads every directory frame gets
/// n(n+1)/2 intervals from n drawables.
pub fn slog2_overlapping_frames(n: usize) -> Vec<u8> {
    let cats = vec![category(1, STATES[0], 1, &[], b"")];
    let nestable: Vec<(f64, Vec<u8>)> = (0..n)
        .map(|i| {
            let t = i as f64;
            let mut d = vec![0u8];
            d.extend_from_slice(&primitive(1, &[], &[(t, 0), (t + 0.5, (n - i - 1) as i32)]));
            (t, d)
        })
        .collect();
    let mut out = Slog2Writer::default().write(&cats, 1, Vec::new(), nestable, usize::MAX / 2);
    // The header's pointers: the tree root (the one leaf) is the fourth, the directory the fifth.
    let ptr = |out: &[u8], k: usize| {
        let at = Slog2Writer::HEADER_BYTES - 7 * 12 + 12 * k;
        (i64::from_be_bytes(out[at..at + 8].try_into().unwrap_or_default()) as usize, at)
    };
    let (root, _) = ptr(&out, 3);
    let root_size = i32::from_be_bytes(out[ptr(&out, 3).1 + 8..ptr(&out, 3).1 + 12].try_into().unwrap_or_default());
    let end = root + root_size as usize;
    // Drawable i begins after the frame header (34 bytes) and the two counts; each is 1 + 4 + 2 + 2 + 24 bytes.
    const DRAWABLE: usize = 33;
    let first = root + 34 + 4 + 4;
    let mut dir = (n as i32).to_be_bytes().to_vec();
    for i in 0..n {
        // Frame i's counts are the 8 bytes before drawable i (frame 0 is the leaf itself).
        let at = if i == 0 { root } else { first + DRAWABLE * i - 8 - 34 };
        dir.extend_from_slice(&0i16.to_be_bytes());
        dir.extend_from_slice(&(i as i32).to_be_bytes());
        dir.extend_from_slice(&0f64.to_be_bytes());
        dir.extend_from_slice(&0f64.to_be_bytes());
        dir.extend_from_slice(&(at as i64).to_be_bytes());
        dir.extend_from_slice(&((end - at) as i32).to_be_bytes());
    }
    let (_, dir_ptr) = ptr(&out, 4);
    let dir_at = out.len() as i64;
    out[dir_ptr..dir_ptr + 8].copy_from_slice(&dir_at.to_be_bytes());
    out[dir_ptr + 8..dir_ptr + 12].copy_from_slice(&(dir.len() as i32).to_be_bytes());
    out.extend(dir);
    out
}
