//! Colours of the particle animation's event types: related calls in related hues, for colour-blind users too.
//!
//! Each call belongs to a family (sends, receives, waits and tests, broadcasts, reductions, gathers and
//! scatters, barriers, the MPI_Comm family, ...). A family has one base hue from the Okabe-Ito and Tol
//! palettes, chosen to stay apart under the common colour-vision deficiencies; its members differ in lightness
//! (blocking at the base, non-blocking lighter, synchronous, buffered and ready modes darker). NCCL, CUDA
//! synchronization and OpenMP barriers join the family of the operation they perform. At most
//! [`MAX_COLORS`] distinct colours are handed out (the paper's limit of about 25, after Green-Armytage): when
//! there are more types, the first `MAX_COLORS - 1` get one each and the rest share [`OTHER`] (the legend groups
//! them as one entry). No two types get the same colour: a type whose colour is taken gets another shade of
//! its family, else a hue of its own. Must not know the trace: it maps names to colours.

use crate::scene::{palette, rgba, Rgba};

/// Most distinct colours in one legend.
pub const MAX_COLORS: usize = 25;
/// The colour of types past the limit.
pub const OTHER: Rgba = rgba(0x80, 0x80, 0x80, 0xff);

/// A family of related calls: a base colour and its members, in shade order; a name joins the family if its
/// operation equals a member or starts with one.
struct Family {
    name: &'static str,
    base: [u8; 3],
    members: &'static [&'static str],
}

const FAMILIES: &[Family] = &[
    Family {
        name: "send",
        base: [0x56, 0xb4, 0xe9],
        members: &["send", "isend", "ssend", "issend", "bsend", "ibsend", "rsend", "irsend", "send_init"],
    },
    Family { name: "receive", base: [0xe6, 0x9f, 0x00], members: &["recv", "irecv", "mrecv", "imrecv", "recv_init"] },
    Family {
        name: "send-receive and probe",
        base: [0x00, 0x72, 0xb2],
        members: &["sendrecv", "sendrecv_replace", "probe", "iprobe", "mprobe", "improbe"],
    },
    Family {
        name: "wait and test",
        base: [0xcc, 0x79, 0xa7],
        members: &["wait", "waitall", "waitany", "waitsome", "test", "testall", "testany", "testsome", "synchronize"],
    },
    Family { name: "broadcast", base: [0xf0, 0xe4, 0x42], members: &["bcast", "ibcast", "broadcast"] },
    Family {
        name: "reduction",
        base: [0xd5, 0x5e, 0x00],
        members: &["reduce", "ireduce", "allreduce", "iallreduce", "reduce_scatter", "scan", "exscan"],
    },
    Family {
        name: "gather and scatter",
        base: [0x00, 0x9e, 0x73],
        members: &["gather", "igather", "allgather", "iallgather", "scatter", "iscatter", "alltoall", "ialltoall"],
    },
    Family { name: "barrier", base: [0xdd, 0xdd, 0xdd], members: &["barrier", "ibarrier"] },
    Family {
        name: "communicators",
        base: [0x77, 0x33, 0xff],
        members: &["comm_", "cart_", "group_", "graph_", "dist_graph", "intercomm_", "topo_"],
    },
    Family {
        name: "environment, one-sided and I/O",
        base: [0xaa, 0xcc, 0xaa],
        members: &[
            "init",
            "finalize",
            "put",
            "get",
            "accumulate",
            "win_",
            "file_",
            "abort",
            "wtime",
            "get_",
            "query_thread",
            "initialized",
            "rput",
            "rget",
        ],
    },
];

/// Lightness steps of a family's members: base, lighter, darker, much lighter, much darker.
const SHADES: [f32; 5] = [0.0, 0.38, -0.3, 0.62, -0.5];

/// The operation a call performs, lowercase, without its library prefix (`MPI_Isend` -> `isend`,
/// `ncclAllReduce` -> `allreduce`, `cudaStreamSynchronize` -> `synchronize`).
pub fn operation(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    for prefix in ["pmpi_", "mpi_", "ncclkernel_", "nccl"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            return rest.trim_start_matches('_').to_string();
        }
    }
    if lower.contains("synchronize") || lower.contains("waitevent") || lower.contains("streamwait") {
        return "synchronize".to_string();
    }
    if lower.contains("barrier") {
        return "barrier".to_string();
    }
    lower
}

/// Family index and member index of a call, if it belongs to a family.
pub fn family_of(name: &str) -> Option<(usize, usize)> {
    let op = operation(name);
    // Exact members first (so `allreduce` is not taken by `all...` elsewhere), then the longest prefix.
    for (f, fam) in FAMILIES.iter().enumerate() {
        if let Some(m) = fam.members.iter().position(|&m| m == op) {
            return Some((f, m));
        }
    }
    let mut best: Option<(usize, usize, usize)> = None;
    for (f, fam) in FAMILIES.iter().enumerate() {
        for (m, member) in fam.members.iter().enumerate() {
            if op.starts_with(member) && best.is_none_or(|(_, _, len)| member.len() > len) {
                best = Some((f, m, member.len()));
            }
        }
    }
    best.map(|(f, m, _)| (f, m))
}

/// Name of family `f`, for the legend's grouping.
pub fn family_name(f: usize) -> &'static str {
    FAMILIES.get(f).map_or("other", |fam| fam.name)
}

/// The base colour of every family (for the colour-vision test).
pub fn family_bases() -> Vec<Rgba> {
    FAMILIES.iter().map(|f| rgba(f.base[0], f.base[1], f.base[2], 0xff)).collect()
}

fn shade(base: [u8; 3], amount: f32) -> Rgba {
    let c = |v: u8| {
        let v = v as f32;
        let out = if amount >= 0.0 { v + (255.0 - v) * amount } else { v * (1.0 + amount) };
        out.round().clamp(0.0, 255.0) as u8
    };
    rgba(c(base[0]), c(base[1]), c(base[2]), 0xff)
}

/// The colour a call would get with no limit on colours.
pub fn call_color(name: &str) -> Rgba {
    match family_of(name) {
        Some((f, m)) => shade(FAMILIES[f].base, SHADES[m % SHADES.len()]),
        None => palette::categorical(name),
    }
}

/// Colours for a list of types, most important first: related calls in related hues, each type its own
/// colour, at most [`MAX_COLORS`] legend entries (the tail past `MAX_COLORS - 1` types shares [`OTHER`]).
pub fn legend_colors(types: &[String]) -> Vec<Rgba> {
    let own = if types.len() > MAX_COLORS { MAX_COLORS - 1 } else { MAX_COLORS };
    let mut used: Vec<Rgba> = Vec::new();
    types
        .iter()
        .map(|t| {
            if used.len() >= own {
                return OTHER;
            }
            let c = distinct_color(t, &used);
            used.push(c);
            c
        })
        .collect()
}

/// The colour of `name` unless `used` has it: then another shade of its family, then a hue by the golden angle.
fn distinct_color(name: &str, used: &[Rgba]) -> Rgba {
    let free = |c: &Rgba| *c != OTHER && !used.contains(c);
    let first = call_color(name);
    if free(&first) {
        return first;
    }
    if let Some((f, m)) = family_of(name) {
        if let Some(c) = (1..SHADES.len()).map(|k| shade(FAMILIES[f].base, SHADES[(m + k) % SHADES.len()])).find(free) {
            return c;
        }
    }
    (0..).map(|k: u32| hue_color(k as f32 * 137.508)).find(free).unwrap_or(OTHER)
}

/// A mid-light, mid-saturated colour of hue `degrees`.
fn hue_color(degrees: f32) -> Rgba {
    let h = degrees.rem_euclid(360.0) / 60.0;
    let (l, s) = (0.55f32, 0.6f32);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let v = |u: f32| ((u + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    rgba(v(r), v(g), v(b), 0xff)
}
