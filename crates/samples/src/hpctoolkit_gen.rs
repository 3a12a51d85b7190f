//! Generated HPCToolkit databases (format version 4, the layouts of the FORMATS.md HPCToolkit ships): the four
//! files `meta.db`, `profile.db`, `cct.db` and `trace.db` of a sampled MPI + threads run, deterministic from a
//! seed, of any size (the benchmark's >= 100 MB `trace.db` comes from here).
//!
//! The context tree is what hpcrun and hpcprof make of a small program: an entry point (`main thread`),
//! function contexts reached by calls (relation 1) and one inlined call (relation 2), a loop, source lines and
//! instructions (the leaves samples land on). Each trace line is a random walk over the leaves in runs of a few
//! samples, with an idle sample (context 0) now and then. `cct.db` holds no values (weft does not read it).
//!
//! Writes bytes only; the numbers it was made with are returned for tests to compare against.

use super::rng::XorShift;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct HpctkSpec {
    pub ranks: u32,
    pub threads: u32,
    /// Samples on each trace line.
    pub samples: u64,
    pub seed: u64,
}

impl HpctkSpec {
    /// The fixture the tests and the browser test use: 2 ranks x 2 threads, 200 samples a line.
    pub fn small() -> HpctkSpec {
        HpctkSpec { ranks: 2, threads: 2, samples: 200, seed: 7 }
    }
    /// About `bytes` of `trace.db` (12 bytes a sample) over 16 ranks x 4 threads.
    pub fn of_size(bytes: u64) -> HpctkSpec {
        HpctkSpec { ranks: 16, threads: 4, samples: bytes / 12 / 64 + 1, seed: 7 }
    }
}

/// The database's files by name, and what they hold.
pub struct HpctkDb {
    pub files: Vec<(&'static str, Vec<u8>)>,
    pub lines: usize,
    pub samples: u64,
    pub idle_samples: u64,
    /// Maximal runs of samples that are not idle, over all lines: the intervals of the entry point.
    pub runs: u64,
    pub functions: usize,
}

/// A byte buffer that lays out structures at aligned offsets.
#[derive(Default)]
struct Buf(Vec<u8>);

impl Buf {
    fn at(&self) -> u64 {
        self.0.len() as u64
    }
    fn align(&mut self, a: usize) {
        while !self.0.len().is_multiple_of(a) {
            self.0.push(0);
        }
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn zeros(&mut self, n: usize) {
        self.0.resize(self.0.len() + n, 0);
    }
    fn set_u64(&mut self, at: u64, v: u64) {
        self.0[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    fn cstr(&mut self, s: &str) -> u64 {
        let at = self.at();
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        at
    }
    /// The common header with `n` sections, their sizes and pointers patched later by [`Buf::section`].
    fn header(&mut self, format: &[u8; 4], n: usize) {
        self.0.extend_from_slice(b"HPCTOOLKIT");
        self.0.extend_from_slice(format);
        self.u8(4);
        self.u8(0);
        self.zeros(16 * n);
    }
    /// Record section `i` as running from `start` to here.
    fn section(&mut self, i: u64, start: u64) {
        let size = self.at() - start;
        self.set_u64(0x10 + 16 * i, size);
        self.set_u64(0x18 + 16 * i, start);
    }
}

/// One context of the tree, before layout.
struct Node {
    ctx: u32,
    /// 0 function, 1 loop, 2 line, 3 instruction.
    lexical: u8,
    relation: u8,
    function: Option<usize>,
    line: u32,
    children: Vec<usize>,
}

const FUNCTIONS: [&str; 9] = [
    "main",
    "solve",
    "compute_block",
    "stencil_kernel",
    "exchange_halo",
    "MPI_Send",
    "MPI_Recv",
    "MPI_Allreduce",
    "worker",
];
const MODULES: [&str; 2] = ["/opt/app/bin/solver", "/usr/lib/libmpi.so.40"];

/// The program's context tree: nodes[0] is the entry point; leaves are the instructions.
fn tree() -> Vec<Node> {
    let mut nodes = vec![Node { ctx: 1, lexical: 0, relation: 0, function: None, line: 0, children: vec![] }];
    let add = |nodes: &mut Vec<Node>, parent: usize, lexical: u8, relation: u8, function: Option<usize>, line: u32| {
        let ctx = nodes.len() as u32 + 1;
        nodes.push(Node { ctx, lexical, relation, function, line, children: vec![] });
        let i = nodes.len() - 1;
        nodes[parent].children.push(i);
        i
    };
    // A function called from `site` (a line), with `lines` lines of its own each ending in an instruction.
    let call = |nodes: &mut Vec<Node>, site: usize, f: usize, relation: u8| {
        add(nodes, site, 0, relation, Some(f), 10 * f as u32)
    };
    let main = call(&mut nodes, 0, 0, 1);
    let l_main = add(&mut nodes, main, 2, 0, None, 12);
    add(&mut nodes, l_main, 3, 0, None, 0);
    let lp = add(&mut nodes, main, 1, 0, None, 14);
    let l_solve = add(&mut nodes, lp, 2, 0, None, 15);
    let solve = call(&mut nodes, l_solve, 1, 1);
    let l_comp = add(&mut nodes, solve, 2, 0, None, 30);
    let comp = call(&mut nodes, l_comp, 2, 1);
    let l_k = add(&mut nodes, comp, 2, 0, None, 41);
    add(&mut nodes, l_k, 3, 0, None, 0);
    let kernel = call(&mut nodes, l_k, 3, 2); // inlined
    let l_kernel = add(&mut nodes, kernel, 2, 0, None, 51);
    add(&mut nodes, l_kernel, 3, 0, None, 0);
    let l_ex = add(&mut nodes, solve, 2, 0, None, 33);
    let ex = call(&mut nodes, l_ex, 4, 1);
    for (f, line) in [(5, 61), (6, 62)] {
        let l = add(&mut nodes, ex, 2, 0, None, line);
        let mpi = call(&mut nodes, l, f, 1);
        let li = add(&mut nodes, mpi, 2, 0, None, 1);
        add(&mut nodes, li, 3, 0, None, 0);
    }
    let l_red = add(&mut nodes, solve, 2, 0, None, 36);
    let red = call(&mut nodes, l_red, 7, 1);
    let li = add(&mut nodes, red, 2, 0, None, 1);
    add(&mut nodes, li, 3, 0, None, 0);
    // The threads' work, from main's parallel region.
    let l_w = add(&mut nodes, main, 2, 0, None, 20);
    let w = call(&mut nodes, l_w, 8, 1);
    let l_wk = add(&mut nodes, w, 2, 0, None, 81);
    let comp2 = call(&mut nodes, l_wk, 2, 1);
    let l = add(&mut nodes, comp2, 2, 0, None, 42);
    add(&mut nodes, l, 3, 0, None, 0);
    nodes
}

/// Flex words of a context: the function pointer; the file and line; the module and offset.
fn flex_words(n: &Node) -> u8 {
    match n.lexical {
        0 => n.function.is_some() as u8 + 2,
        1 | 2 => 2,
        _ => 2,
    }
}

fn flags(n: &Node) -> u8 {
    match n.lexical {
        0 => (n.function.is_some() as u8) | 2,
        1 | 2 => 2,
        _ => 4,
    }
}

fn meta_db(nodes: &[Node]) -> Vec<u8> {
    let mut b = Buf::default();
    b.header(b"meta", 8);
    // General
    let start = b.at();
    b.zeros(16);
    let title = b.cstr("weft generated");
    let desc = b.cstr("A generated HPCToolkit database (weft's samples::hpctoolkit_gen).");
    b.set_u64(start, title);
    b.set_u64(start + 8, desc);
    b.section(0, start);
    // Identifier names
    b.align(8);
    let start = b.at();
    let kinds = ["SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"];
    b.u64(start + 16);
    b.u8(kinds.len() as u8);
    b.align(8);
    let names_at = b.at();
    b.zeros(8 * kinds.len());
    for (k, name) in kinds.iter().enumerate() {
        let p = b.cstr(name);
        b.set_u64(names_at + 8 * k as u64, p);
    }
    b.section(1, start);
    // Metrics: none.
    b.align(8);
    let start = b.at();
    b.u64(0);
    b.u32(0);
    b.u8(32);
    b.u8(16);
    b.u8(24);
    b.u8(0);
    b.u64(0);
    b.u16(0);
    b.u8(16);
    b.section(2, start);
    // Strings: module and file paths, function names, the entry point's name.
    b.align(8);
    let start = b.at();
    let module_paths: Vec<u64> = MODULES.iter().map(|m| b.cstr(m)).collect();
    let file_paths: Vec<u64> = ["src/solver.c", "src/mpi_wrap.c"].iter().map(|f| b.cstr(f)).collect();
    let fn_names: Vec<u64> = FUNCTIONS.iter().map(|f| b.cstr(f)).collect();
    let entry_name = b.cstr("main thread");
    b.section(4, start);
    // Modules
    b.align(8);
    let start = b.at();
    b.u64(start + 16);
    b.u32(MODULES.len() as u32);
    b.u16(16);
    b.align(8);
    let modules_at = b.at();
    for &p in &module_paths {
        b.u32(0);
        b.u32(0);
        b.u64(p);
    }
    b.section(5, start);
    // Files
    let start = b.at();
    b.u64(start + 16);
    b.u32(file_paths.len() as u32);
    b.u16(16);
    b.align(8);
    let files_at = b.at();
    for &p in &file_paths {
        b.u32(1);
        b.u32(0);
        b.u64(p);
    }
    b.section(6, start);
    // Functions; MPI_* live in the MPI library, the rest in the binary. The last has no name (anonymous).
    let start = b.at();
    b.u64(start + 16);
    b.u32(FUNCTIONS.len() as u32 + 1);
    b.u16(40);
    b.align(8);
    let functions_at = b.at();
    for (i, &p) in fn_names.iter().enumerate() {
        let mpi = FUNCTIONS[i].starts_with("MPI_");
        b.u64(p);
        b.u64(modules_at + 16 * mpi as u64);
        b.u64(0x1000 + 0x40 * i as u64);
        b.u64(if mpi { 0 } else { files_at });
        b.u32(10 * i as u32);
        b.u32(0);
    }
    b.u64(0);
    b.u64(modules_at + 16);
    b.u64(0x7f00);
    b.u64(0);
    b.u32(0);
    b.u32(0);
    b.section(7, start);
    // Context tree: the entry array, then each node's children array, breadth first.
    b.align(8);
    let start = b.at();
    b.u64(start + 16);
    b.u16(1);
    b.u8(32);
    b.align(8);
    let size = |n: &Node| 0x20 + 8 * flex_words(n) as u64;
    let entry_at = b.at();
    b.zeros(32);
    // Where each node's children array goes.
    let mut child_at = vec![0u64; nodes.len()];
    let mut order = vec![0usize];
    let mut cursor = b.at();
    let mut i = 0;
    while i < order.len() {
        let n = order[i];
        child_at[n] = cursor;
        for &c in &nodes[n].children {
            cursor += size(&nodes[c]);
            order.push(c);
        }
        i += 1;
    }
    let kids_size = |n: usize| nodes[n].children.iter().map(|&c| size(&nodes[c])).sum::<u64>();
    let root = &nodes[0];
    b.set_u64(entry_at, kids_size(0));
    b.set_u64(entry_at + 8, if root.children.is_empty() { 0 } else { child_at[0] });
    b.0[entry_at as usize + 0x10..entry_at as usize + 0x14].copy_from_slice(&root.ctx.to_le_bytes());
    b.0[entry_at as usize + 0x14..entry_at as usize + 0x16].copy_from_slice(&1u16.to_le_bytes());
    b.set_u64(entry_at + 0x18, entry_name);
    for &n in &order {
        for &c in &nodes[n].children {
            let node = &nodes[c];
            let kids = kids_size(c);
            b.u64(kids);
            b.u64(if kids == 0 { 0 } else { child_at[c] });
            b.u32(node.ctx);
            b.u8(flags(node));
            b.u8(node.relation);
            b.u8(node.lexical);
            b.u8(flex_words(node));
            b.u16(0);
            b.zeros(6);
            if let Some(f) = node.function {
                b.u64(functions_at + 40 * f as u64);
            }
            if node.lexical == 3 {
                b.u64(modules_at);
                b.u64(0x1000 + node.ctx as u64);
            } else {
                b.u64(files_at);
                b.u32(node.line);
                b.u32(0);
            }
        }
    }
    b.section(3, start);
    b.0.extend_from_slice(b"_meta.db");
    b.0
}

fn profile_db(spec: &HpctkSpec) -> Vec<u8> {
    let mut b = Buf::default();
    b.header(b"prof", 2);
    let n = spec.ranks * spec.threads + 1;
    // Identifier tuples first (the profile records point at them).
    b.align(8);
    let tuples_start = b.at();
    let mut tuple_at = vec![0u64];
    for r in 0..spec.ranks {
        for t in 0..spec.threads {
            tuple_at.push(b.at());
            b.u16(3);
            b.zeros(6);
            for (kind, logical) in [(1u8, 0u32), (2, r), (3, t)] {
                b.u8(kind);
                b.u8(0);
                b.u16(0);
                b.u32(logical);
                b.u64(logical as u64);
            }
        }
    }
    b.section(1, tuples_start);
    b.align(8);
    let start = b.at();
    b.u64(start + 16);
    b.u32(n);
    b.u8(48);
    b.align(8);
    for (i, &t) in tuple_at.iter().enumerate() {
        b.zeros(32);
        b.u64(t);
        b.u32((i == 0) as u32);
        b.zeros(4);
    }
    b.section(0, start);
    b.0.extend_from_slice(b"_prof.db");
    b.0
}

fn cct_db() -> Vec<u8> {
    let mut b = Buf::default();
    b.header(b"ctxt", 1);
    let start = b.at();
    b.u64(start + 16);
    b.u32(0);
    b.u8(32);
    b.align(8);
    b.section(0, start);
    b.0.extend_from_slice(b"__ctx.db");
    b.0
}

/// Write the database `spec` describes.
pub fn generate(spec: &HpctkSpec) -> HpctkDb {
    let nodes = tree();
    let leaves: Vec<u32> = nodes.iter().filter(|n| n.children.is_empty() && n.lexical == 3).map(|n| n.ctx).collect();
    let lines = (spec.ranks * spec.threads) as usize;
    let mut b = Buf::default();
    b.header(b"trce", 1);
    let start = b.at();
    b.zeros(0x20);
    let headers_at = b.at();
    b.zeros(24 * lines);
    b.section(0, start);
    b.set_u64(start, headers_at);
    b.0[start as usize + 8..start as usize + 12].copy_from_slice(&(lines as u32).to_le_bytes());
    b.0[start as usize + 12] = 24;
    let t0 = 1_700_000_000_000_000_000u64;
    let (mut min, mut max) = (u64::MAX, 0u64);
    let mut rng = XorShift(spec.seed | 1);
    let mut idle = 0;
    let mut runs = 0;
    b.0.reserve(lines * spec.samples as usize * 12 + 16);
    for line in 0..lines {
        let p_start = b.at();
        let mut t = t0 + rng.below(1000) * 1000;
        let mut ctx = leaves[0];
        let mut run = 0;
        for s in 0..spec.samples {
            if run == 0 {
                // Never two idle samples in a row (the format forbids it).
                if ctx != 0 && s > 0 && rng.below(16) == 0 {
                    idle += 1;
                    (ctx, run) = (0, 1);
                } else {
                    ctx = leaves[rng.below(leaves.len() as u64) as usize];
                    run = rng.range(1, 8);
                }
            }
            run -= 1;
            let prev_idle = s == 0 || b.0[b.0.len() - 4..] == [0; 4];
            runs += (ctx != 0 && prev_idle) as u64;
            b.u64(t);
            b.u32(ctx);
            min = min.min(t);
            max = max.max(t);
            t += 5_000 + rng.below(1_000);
        }
        let h = headers_at + 24 * line as u64;
        b.0[h as usize..h as usize + 4].copy_from_slice(&(line as u32 + 1).to_le_bytes());
        b.set_u64(h + 8, p_start);
        b.set_u64(h + 16, b.at());
    }
    b.set_u64(start + 16, if min == u64::MAX { 0 } else { min });
    b.set_u64(start + 24, max);
    b.0.extend_from_slice(b"trace.db");
    HpctkDb {
        files: vec![
            ("meta.db", meta_db(&nodes)),
            ("profile.db", profile_db(spec)),
            ("cct.db", cct_db()),
            ("trace.db", b.0),
        ],
        lines,
        samples: spec.samples * lines as u64,
        idle_samples: idle,
        runs,
        functions: FUNCTIONS.len() + 1,
    }
}

/// What the samples of a [`deep_chain`] database alternate between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alternate {
    /// The two sibling leaves under the chain: each sample ends one frame and opens one.
    SiblingLeaves,
    /// A leaf and idle (context 0): each sample ends or opens every frame of the chain.
    LeafAndIdle,
}

/// A hostile database (issue 51): one trace line whose context tree is a chain of `depth` function calls with
/// two leaf calls under its deepest, and `samples` samples alternating as `alternate` says. The files grow
/// with depth + samples; a reader that rebuilds each sample's path from the root does depth x samples, and
/// [`Alternate::LeafAndIdle`] makes about depth x samples / 2 intervals (what the budget must bound).
pub fn deep_chain(depth: usize, samples: u64, alternate: Alternate) -> HpctkDb {
    let mut nodes = vec![Node { ctx: 1, lexical: 0, relation: 0, function: None, line: 0, children: vec![] }];
    let mut add = |parent: usize, function: usize| {
        let ctx = nodes.len() as u32 + 1;
        nodes.push(Node { ctx, lexical: 0, relation: 1, function: Some(function), line: 10, children: vec![] });
        let i = nodes.len() - 1;
        nodes[parent].children.push(i);
        i
    };
    let mut at = 0;
    for d in 0..depth {
        at = add(at, d % FUNCTIONS.len());
    }
    let (left, right) = (add(at, 5), add(at, 6));
    let (left, right) = (nodes[left].ctx, nodes[right].ctx);
    let spec = HpctkSpec { ranks: 1, threads: 1, samples, seed: 1 };
    let mut b = Buf::default();
    b.header(b"trce", 1);
    let start = b.at();
    b.zeros(0x20);
    let headers_at = b.at();
    b.zeros(24);
    b.section(0, start);
    b.set_u64(start, headers_at);
    b.0[start as usize + 8..start as usize + 12].copy_from_slice(&1u32.to_le_bytes());
    b.0[start as usize + 12] = 24;
    let t0 = 1_700_000_000_000_000_000u64;
    let p_start = b.at();
    let mut idle = 0;
    for s in 0..samples {
        let ctx = match (alternate, s % 2) {
            (_, 0) => left,
            (Alternate::SiblingLeaves, _) => right,
            (Alternate::LeafAndIdle, _) => {
                idle += 1;
                0
            }
        };
        b.u64(t0 + 1_000 * s);
        b.u32(ctx);
    }
    b.0[headers_at as usize..headers_at as usize + 4].copy_from_slice(&1u32.to_le_bytes());
    b.set_u64(headers_at + 8, p_start);
    b.set_u64(headers_at + 16, b.at());
    b.set_u64(start + 16, t0);
    b.set_u64(start + 24, t0 + 1_000 * samples.saturating_sub(1));
    b.0.extend_from_slice(b"trace.db");
    HpctkDb {
        files: vec![
            ("meta.db", meta_db(&nodes)),
            ("profile.db", profile_db(&spec)),
            ("cct.db", cct_db()),
            ("trace.db", b.0),
        ],
        lines: 1,
        samples,
        idle_samples: idle,
        runs: match alternate {
            Alternate::SiblingLeaves => (samples > 0) as u64,
            Alternate::LeafAndIdle => samples.div_ceil(2),
        },
        functions: FUNCTIONS.len() + 1,
    }
}
