//! Function groups and the regions' colours (Vampir's function groups): every region belongs to one group (MPI
//! point-to-point, MPI collectives, MPI waits and tests, other MPI, OpenMP, threads, CUDA/GPU, I/O, measurement,
//! user code), each group owns a band of hues, and the functions of a group get colours inside its band chosen
//! to lie as far apart as the band allows (farthest-point picks in OKLab, a perceptual space), so MPI_Allreduce
//! beside MPI_Alltoall is told apart while every MPI collective still reads as one family. The user may set a
//! group's colour (its functions are then spread around it) or one function's colour ([`ColorOverrides`],
//! the timeline's `colors` option, kept in permalinks). One function, [`region_colors`], decides the colours
//! for the page, `weft render` and the legend.
//!
//! Colours follow from the trace's region definitions only (names, paradigms, roles; never intervals), so a
//! store's slices, which share the whole run's definitions, colour as the whole run does. Cost: O(regions x
//! candidates) with 54 candidates a group.

use super::legend::{fill, section, Entry, Legend, Mark};
use super::{rgba, Rgba, Shape};
use weft_model::{Paradigm, RegionRole, Trace};

/// The groups, in the legend's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FunctionGroup {
    MpiPointToPoint,
    MpiCollective,
    MpiWait,
    MpiOther,
    OpenMp,
    Threads,
    Gpu,
    Io,
    User,
    Measurement,
}

impl FunctionGroup {
    pub const ALL: [FunctionGroup; 10] = [
        FunctionGroup::MpiPointToPoint,
        FunctionGroup::MpiCollective,
        FunctionGroup::MpiWait,
        FunctionGroup::MpiOther,
        FunctionGroup::OpenMp,
        FunctionGroup::Threads,
        FunctionGroup::Gpu,
        FunctionGroup::Io,
        FunctionGroup::User,
        FunctionGroup::Measurement,
    ];

    /// The short key of the `colors` option (`mpi_coll:7b2d8e`).
    pub fn key(self) -> &'static str {
        match self {
            FunctionGroup::MpiPointToPoint => "mpi_p2p",
            FunctionGroup::MpiCollective => "mpi_coll",
            FunctionGroup::MpiWait => "mpi_wait",
            FunctionGroup::MpiOther => "mpi",
            FunctionGroup::OpenMp => "omp",
            FunctionGroup::Threads => "threads",
            FunctionGroup::Gpu => "gpu",
            FunctionGroup::Io => "io",
            FunctionGroup::User => "user",
            FunctionGroup::Measurement => "measurement",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.key() == key)
    }

    /// The legend's title.
    pub fn title(self) -> &'static str {
        match self {
            FunctionGroup::MpiPointToPoint => "MPI point-to-point",
            FunctionGroup::MpiCollective => "MPI collectives",
            FunctionGroup::MpiWait => "MPI waits and tests",
            FunctionGroup::MpiOther => "MPI, other",
            FunctionGroup::OpenMp => "OpenMP",
            FunctionGroup::Threads => "Threads (pthreads)",
            FunctionGroup::Gpu => "CUDA and GPU",
            FunctionGroup::Io => "I/O",
            FunctionGroup::User => "User code",
            FunctionGroup::Measurement => "Measurement",
        }
    }

    /// The group's band: OKLCH hue centre and width (degrees), chroma.
    fn band(self) -> Band {
        let b = |hue: f32, width: f32, chroma: f32| Band { hue, width, chroma };
        match self {
            FunctionGroup::MpiPointToPoint => b(32.0, 34.0, 0.16),
            FunctionGroup::MpiCollective => b(342.0, 44.0, 0.15),
            FunctionGroup::MpiWait => b(72.0, 26.0, 0.13),
            FunctionGroup::MpiOther => b(15.0, 40.0, 0.07),
            FunctionGroup::OpenMp => b(192.0, 40.0, 0.11),
            FunctionGroup::Threads => b(302.0, 34.0, 0.12),
            FunctionGroup::Gpu => b(138.0, 40.0, 0.15),
            FunctionGroup::Io => b(100.0, 18.0, 0.10),
            FunctionGroup::User => b(250.0, 70.0, 0.12),
            FunctionGroup::Measurement => b(250.0, 0.0, 0.0),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Band {
    hue: f32,
    width: f32,
    chroma: f32,
}

/// The group of a region, by its paradigm and role as the format recorded them and by its name (formats that
/// record neither: Chrome, Paraver).
pub fn function_group(name: &str, paradigm: Paradigm, role: RegionRole) -> FunctionGroup {
    let lower = name.to_ascii_lowercase();
    let call = lower.strip_prefix("pmpi_").or_else(|| lower.strip_prefix("mpi_"));
    if paradigm == Paradigm::Mpi || call.is_some() {
        let call = call.unwrap_or(&lower);
        return mpi_group(call, role);
    }
    match paradigm {
        Paradigm::OpenMp => return FunctionGroup::OpenMp,
        Paradigm::Pthread => return FunctionGroup::Threads,
        Paradigm::Cuda | Paradigm::Gpu => return FunctionGroup::Gpu,
        Paradigm::Io => return FunctionGroup::Io,
        Paradigm::Measurement => return FunctionGroup::Measurement,
        _ => {}
    }
    if ["!$omp", "#pragma omp", "omp_", "__kmpc_", "gomp_"].iter().any(|p| lower.starts_with(p)) {
        FunctionGroup::OpenMp
    } else if lower.starts_with("pthread_") {
        FunctionGroup::Threads
    } else if ["cuda", "cu", "hip", "nccl", "rccl"].iter().any(|p| lower.starts_with(p)) {
        FunctionGroup::Gpu
    } else {
        FunctionGroup::User
    }
}

/// An MPI call's group by its name without the `MPI_` prefix (lower case), else by its role.
fn mpi_group(call: &str, role: RegionRole) -> FunctionGroup {
    let starts = |ps: &[&str]| ps.iter().any(|p| call.starts_with(p));
    if starts(&["wait", "test", "probe", "iprobe", "improbe", "request_", "win_fence", "win_wait", "win_complete"]) {
        FunctionGroup::MpiWait
    } else if starts(&[
        "allreduce",
        "alltoall",
        "allgather",
        "bcast",
        "reduce",
        "gather",
        "scatter",
        "scan",
        "exscan",
        "barrier",
        "iallreduce",
        "ialltoall",
        "iallgather",
        "ibcast",
        "ireduce",
        "igather",
        "iscatter",
        "iscan",
        "iexscan",
        "ibarrier",
        "neighbor",
        "ineighbor",
    ]) {
        FunctionGroup::MpiCollective
    } else if starts(&[
        "send",
        "recv",
        "isend",
        "irecv",
        "ssend",
        "bsend",
        "rsend",
        "issend",
        "ibsend",
        "irsend",
        "sendrecv",
        "mrecv",
        "imrecv",
        "start",
        "put",
        "get",
        "accumulate",
        "rput",
        "rget",
    ]) {
        FunctionGroup::MpiPointToPoint
    } else {
        match role {
            RegionRole::Collective | RegionRole::Barrier => FunctionGroup::MpiCollective,
            RegionRole::PointToPoint => FunctionGroup::MpiPointToPoint,
            _ => FunctionGroup::MpiOther,
        }
    }
}

/// Colours the user chose: a group's (its functions spread around it) or a region's (exactly it). The
/// timeline's `colors` option as text: `mpi_coll:7b2d8e,r12:1f77b4` (a group's key or `r` and a region id,
/// a colon, six hex digits), in the order given; a later entry for the same key wins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColorOverrides {
    pub groups: Vec<(FunctionGroup, Rgba)>,
    pub regions: Vec<(u32, Rgba)>,
}

impl ColorOverrides {
    /// Parse the option's text; None for anything else (the option's error says what it takes).
    pub fn parse(text: &str) -> Option<Self> {
        let mut o = ColorOverrides::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, hex) = part.split_once(':')?;
            let hex = hex.trim().trim_start_matches('#');
            if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let c = (u32::from_str_radix(hex, 16).ok()? << 8) | 0xff;
            let key = key.trim();
            if let Some(g) = FunctionGroup::from_key(key) {
                o.set_group(g, Some(c));
            } else {
                let id = key.strip_prefix('r')?.parse::<u32>().ok()?;
                o.set_region(id, Some(c));
            }
        }
        Some(o)
    }

    pub fn to_text(&self) -> String {
        let mut parts: Vec<String> = self.groups.iter().map(|(g, c)| format!("{}:{:06x}", g.key(), c >> 8)).collect();
        parts.extend(self.regions.iter().map(|(r, c)| format!("r{r}:{:06x}", c >> 8)));
        parts.join(",")
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty() && self.regions.is_empty()
    }

    /// Set (or, with None, drop) a group's colour.
    pub fn set_group(&mut self, g: FunctionGroup, c: Option<Rgba>) {
        self.groups.retain(|(x, _)| *x != g);
        if let Some(c) = c {
            self.groups.push((g, c | 0xff));
            self.groups.sort_by_key(|(x, _)| *x);
        }
    }

    /// Set (or, with None, drop) a region's colour.
    pub fn set_region(&mut self, r: u32, c: Option<Rgba>) {
        self.regions.retain(|(x, _)| *x != r);
        if let Some(c) = c {
            self.regions.push((r, c | 0xff));
            self.regions.sort_by_key(|(x, _)| *x);
        }
    }

    /// Set (or drop) the colour of a legend entry by its key: a group's key or `r` and a region id.
    pub fn set_key(&mut self, key: &str, c: Option<Rgba>) -> Result<(), String> {
        if let Some(g) = FunctionGroup::from_key(key) {
            self.set_group(g, c);
        } else if let Some(r) = key.strip_prefix('r').and_then(|r| r.parse::<u32>().ok()) {
            self.set_region(r, c);
        } else {
            return Err(format!("no function group or region '{key}'"));
        }
        Ok(())
    }

    pub fn group(&self, g: FunctionGroup) -> Option<Rgba> {
        self.groups.iter().find(|(x, _)| *x == g).map(|(_, c)| *c)
    }
}

/// Every region's group, indexed by region id.
pub fn region_groups(trace: &Trace) -> Vec<FunctionGroup> {
    let r = &trace.regions;
    (0..r.len()).map(|i| function_group(trace.strings.get(r.name[i]), r.paradigm[i], r.role[i])).collect()
}

/// Every region's colour, indexed by region id: each group's functions (by name, then id) take the band's
/// candidate colours farthest from those already taken; then the user's overrides.
pub fn region_colors(trace: &Trace, overrides: &ColorOverrides) -> Vec<Rgba> {
    let groups = region_groups(trace);
    let mut colors = vec![0u32; groups.len()];
    for g in FunctionGroup::ALL {
        let mut members: Vec<usize> = (0..groups.len()).filter(|&i| groups[i] == g).collect();
        if members.is_empty() {
            continue;
        }
        members.sort_by(|&a, &b| {
            trace.strings.get(trace.regions.name[a]).cmp(trace.strings.get(trace.regions.name[b])).then(a.cmp(&b))
        });
        let picked = spread(band_of(g, overrides.group(g)), members.len());
        for (k, &i) in members.iter().enumerate() {
            colors[i] = picked[k];
        }
    }
    for &(r, c) in &overrides.regions {
        if let Some(slot) = colors.get_mut(r as usize) {
            *slot = c;
        }
    }
    colors
}

/// A group's colour as the legend shows it: the user's, else its band's centre.
pub fn group_color(g: FunctionGroup, overrides: &ColorOverrides) -> Rgba {
    overrides.group(g).unwrap_or_else(|| {
        let b = g.band();
        Lab::from_lch(LIGHTNESS[0], b.chroma, b.hue).in_gamut().to_rgba()
    })
}

/// A region's use in the whole trace, for the legend's order: its intervals and exclusive time.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegionUse {
    pub count: u64,
    pub exclusive_ns: u64,
}

/// The timeline's legend: a section per function group the trace uses, in [`FunctionGroup::ALL`]'s order,
/// its first entry the group's colour, then its `per_group` functions with the most exclusive time and
/// "other: N more"; every colour editable (`Entry::edit`: the `colors` option's key). Regions of one name
/// (a Darshan log's "POSIX read" of each file, a name in several categories) are one entry, its shades said
/// once: "POSIX read (10 regions, a shade each)", drawn mixed, its colour set per region rather than here.
pub fn legend(
    trace: &Trace,
    colors: &[Rgba],
    uses: &[RegionUse],
    overrides: &ColorOverrides,
    per_group: usize,
) -> Legend {
    let groups = region_groups(trace);
    let mut sections = Vec::new();
    for g in FunctionGroup::ALL {
        // The group's regions by name: (the name's regions, most exclusive time first; their summed time).
        let mut names: Vec<(Vec<usize>, u64)> = Vec::new();
        let mut by_name: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for i in (0..groups.len()).filter(|&i| groups[i] == g && uses.get(i).is_some_and(|u| u.count > 0)) {
            let k = *by_name.entry(trace.strings.get(trace.regions.name[i])).or_insert_with(|| {
                names.push((Vec::new(), 0));
                names.len() - 1
            });
            names[k].0.push(i);
            names[k].1 += uses[i].exclusive_ns;
        }
        if names.is_empty() {
            continue;
        }
        for (members, _) in &mut names {
            members.sort_by(|&a, &b| uses[b].exclusive_ns.cmp(&uses[a].exclusive_ns).then(a.cmp(&b)));
        }
        names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0[0].cmp(&b.0[0])));
        let n = names.len();
        let mut entries = vec![Entry {
            label: format!("whole group ({n} function{})", if n == 1 { "" } else { "s" }),
            edit: Some(g.key().to_string()),
            ..fill("", group_color(g, overrides), Shape::Rect)
        }];
        for (members, _) in names.iter().take(per_group) {
            let i = members[0];
            let name = trace.strings.get(trace.regions.name[i]);
            entries.push(match members.len() {
                1 => Entry { edit: Some(format!("r{i}")), ..fill(name, colors[i], Shape::Rect) },
                k => Entry {
                    label: format!("{name} ({k} regions, a shade each)"),
                    color: super::legend::hex(colors[i]),
                    mark: Mark::Mixed,
                    edit: None,
                },
            });
        }
        if n > per_group {
            entries.push(Entry {
                label: format!("other: {} more", n - per_group),
                color: super::legend::hex(group_color(g, overrides)),
                mark: Mark::Mixed,
                edit: None,
            });
        }
        sections.push(section(g.title(), entries));
    }
    Legend { sections }
}

/// The group's band, or one centred on the user's colour (its hue and chroma; its lightness the middle one).
fn band_of(g: FunctionGroup, chosen: Option<Rgba>) -> (Band, Option<Lab>) {
    let band = g.band();
    match chosen {
        Some(c) => {
            let lab = Lab::of(c);
            let (chroma, hue) = lab.lch();
            (Band { hue, width: band.width.clamp(24.0, 36.0), chroma: chroma.max(0.02) }, Some(lab))
        }
        None => (band, None),
    }
}

/// Lightness levels of the candidates; the middle one first.
const LIGHTNESS: [f32; 3] = [0.66, 0.54, 0.79];
const HUE_STEPS: usize = 9;

/// `n` colours of a band: the first its centre (or the user's colour), each next the candidate farthest (in
/// OKLab) from every one taken; past the candidates they repeat in the same order.
fn spread((band, first): (Band, Option<Lab>), n: usize) -> Vec<Rgba> {
    let mut cands: Vec<Lab> = Vec::new();
    let hues = if band.width > 0.0 { HUE_STEPS } else { 1 };
    for &l in &LIGHTNESS {
        for chroma in [band.chroma, band.chroma * 0.55] {
            for h in 0..hues {
                let t = if hues == 1 { 0.5 } else { h as f32 / (hues - 1) as f32 };
                let hue = band.hue - band.width / 2.0 + band.width * t;
                cands.push(Lab::from_lch(l, chroma, hue).in_gamut());
            }
        }
    }
    let start = first.unwrap_or_else(|| Lab::from_lch(LIGHTNESS[0], band.chroma, band.hue).in_gamut());
    let mut taken: Vec<Lab> = vec![start];
    let mut dist: Vec<f32> = cands.iter().map(|c| c.dist(&start)).collect();
    while taken.len() < n.min(cands.len() + 1) {
        let (k, _) = dist.iter().enumerate().fold((0, -1.0f32), |b, (k, &d)| if d > b.1 { (k, d) } else { b });
        let c = cands[k];
        taken.push(c);
        for (d, x) in dist.iter_mut().zip(&cands) {
            *d = d.min(x.dist(&c));
        }
    }
    // The first is the user's own colour exactly, not its round trip through OKLab.
    (0..n).map(|k| if k == 0 { taken[0].to_rgba_exact() } else { taken[k % taken.len()].to_rgba() }).collect()
}

/// A colour in OKLab (Björn Ottosson's perceptual space); `exact` keeps a user's colour as given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lab {
    pub l: f32,
    pub a: f32,
    pub b: f32,
    exact: Option<Rgba>,
}

fn to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn from_linear(c: f32) -> f32 {
    if c <= 0.0031308 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

impl Lab {
    pub fn of(c: Rgba) -> Lab {
        let ch = |s: u32| to_linear(((c >> s) & 0xff) as f32 / 255.0);
        let (r, g, b) = (ch(24), ch(16), ch(8));
        let l = (0.412_221_46 * r + 0.536_332_55 * g + 0.051_445_995 * b).cbrt();
        let m = (0.211_903_5 * r + 0.680_699_5 * g + 0.107_396_96 * b).cbrt();
        let s = (0.088_302_46 * r + 0.281_718_85 * g + 0.629_978_7 * b).cbrt();
        Lab {
            l: 0.210_454_26 * l + 0.793_617_8 * m - 0.004_072_047 * s,
            a: 1.977_998_5 * l - 2.428_592_2 * m + 0.450_593_7 * s,
            b: 0.025_904_037 * l + 0.782_771_77 * m - 0.808_675_77 * s,
            exact: Some(c | 0xff),
        }
    }

    fn from_lch(l: f32, c: f32, hue_deg: f32) -> Lab {
        let h = hue_deg.to_radians();
        Lab { l, a: c * h.cos(), b: c * h.sin(), exact: None }
    }

    /// Chroma and hue (degrees, 0..360).
    pub fn lch(&self) -> (f32, f32) {
        ((self.a * self.a + self.b * self.b).sqrt(), self.b.atan2(self.a).to_degrees().rem_euclid(360.0))
    }

    pub fn dist(&self, o: &Lab) -> f32 {
        ((self.l - o.l).powi(2) + (self.a - o.a).powi(2) + (self.b - o.b).powi(2)).sqrt()
    }

    fn linear_rgb(&self) -> [f32; 3] {
        let l = (self.l + 0.396_337_78 * self.a + 0.215_803_76 * self.b).powi(3);
        let m = (self.l - 0.105_561_346 * self.a - 0.063_854_17 * self.b).powi(3);
        let s = (self.l - 0.089_484_18 * self.a - 1.291_485_5 * self.b).powi(3);
        [
            4.076_741_7 * l - 3.307_711_6 * m + 0.230_969_94 * s,
            -1.268_438 * l + 2.609_757_4 * m - 0.341_319_38 * s,
            -0.004_196_086_3 * l - 0.703_418_6 * m + 1.707_614_7 * s,
        ]
    }

    /// The colour with its chroma lowered until it is displayable in sRGB (hue and lightness kept).
    fn in_gamut(self) -> Lab {
        let inside = |x: &Lab| x.linear_rgb().iter().all(|&v| (-1e-4..=1.0 + 1e-4).contains(&v));
        let mut x = self;
        for _ in 0..40 {
            if inside(&x) {
                break;
            }
            x.a *= 0.95;
            x.b *= 0.95;
        }
        x
    }

    pub fn to_rgba(self) -> Rgba {
        let [r, g, b] = self.linear_rgb();
        let q = |v: f32| (from_linear(v.clamp(0.0, 1.0)) * 255.0).round() as u8;
        rgba(q(r), q(g), q(b), 0xff)
    }

    fn to_rgba_exact(self) -> Rgba {
        self.exact.unwrap_or_else(|| self.to_rgba())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, LocationKind, TraceBuilder};

    fn hue(c: Rgba) -> f32 {
        Lab::of(c).lch().1
    }

    fn hue_gap(a: f32, b: f32) -> f32 {
        let d = (a - b).rem_euclid(360.0);
        d.min(360.0 - d)
    }

    fn trace(names: &[&str]) -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        for (k, n) in names.iter().enumerate() {
            let r = b.region(n, "");
            b.interval(l, r, k as i64 * 10, 5);
        }
        b.finish()
    }

    fn color_of(t: &Trace, colors: &[Rgba], name: &str) -> Rgba {
        let r = (0..t.regions.len()).find(|&r| t.strings.get(t.regions.name[r]) == name).expect(name);
        colors[r]
    }

    const MPI: [&str; 14] = [
        "MPI_Alltoall",
        "MPI_Allreduce",
        "MPI_Waitall",
        "MPI_Wait",
        "MPI_Bcast",
        "MPI_Barrier",
        "MPI_Reduce",
        "MPI_Send",
        "MPI_Recv",
        "MPI_Isend",
        "MPI_Irecv",
        "MPI_Init",
        "MPI_Finalize",
        "MPI_Comm_rank",
    ];

    #[test]
    fn mpi_calls_fall_in_their_groups() {
        let g = |n: &str| function_group(n, Paradigm::Mpi, RegionRole::Function);
        assert_eq!(g("MPI_Alltoall"), FunctionGroup::MpiCollective);
        assert_eq!(g("MPI_Allreduce"), FunctionGroup::MpiCollective);
        assert_eq!(g("MPI_Barrier"), FunctionGroup::MpiCollective);
        assert_eq!(g("MPI_Waitall"), FunctionGroup::MpiWait);
        assert_eq!(g("MPI_Test"), FunctionGroup::MpiWait);
        assert_eq!(g("MPI_Isend"), FunctionGroup::MpiPointToPoint);
        assert_eq!(g("MPI_Sendrecv"), FunctionGroup::MpiPointToPoint);
        assert_eq!(g("MPI_Init"), FunctionGroup::MpiOther);
        // By name where the format records no paradigm (Chrome).
        assert_eq!(function_group("MPI_Send", Paradigm::User, RegionRole::Function), FunctionGroup::MpiPointToPoint);
        assert_eq!(function_group("cudaMemcpyAsync", Paradigm::User, RegionRole::Function), FunctionGroup::Gpu);
        assert_eq!(function_group("!$omp parallel", Paradigm::Unknown, RegionRole::Unknown), FunctionGroup::OpenMp);
        assert_eq!(function_group("main", Paradigm::User, RegionRole::Function), FunctionGroup::User);
    }

    /// The case: MPI_Alltoall, MPI_Allreduce and MPI_Waitall were shades of one red. Now their hues
    /// differ, and colours within a group stay apart (OKLab distance) while clustering in the group's band.
    #[test]
    fn functions_of_a_group_differ_and_a_groups_hues_cluster() {
        let mut names: Vec<&str> = MPI.to_vec();
        names.extend(["main", "solve", "exchange", "!$omp parallel", "!$omp barrier", "cudaLaunchKernel"]);
        let t = trace(&names);
        let colors = region_colors(&t, &ColorOverrides::default());
        let (a2a, ar, wa) = (
            color_of(&t, &colors, "MPI_Alltoall"),
            color_of(&t, &colors, "MPI_Allreduce"),
            color_of(&t, &colors, "MPI_Waitall"),
        );
        for (x, y) in [(a2a, ar), (a2a, wa), (ar, wa)] {
            assert!(hue_gap(hue(x), hue(y)) >= 15.0, "{x:08x} {y:08x}: hues {} {}", hue(x), hue(y));
            assert!(Lab::of(x).dist(&Lab::of(y)) >= 0.08, "{x:08x} {y:08x}");
        }
        let groups = region_groups(&t);
        for g in FunctionGroup::ALL {
            let members: Vec<Rgba> = (0..groups.len()).filter(|&i| groups[i] == g).map(|i| colors[i]).collect();
            // Any two functions of a group are told apart.
            for (i, x) in members.iter().enumerate() {
                for y in &members[i + 1..] {
                    assert!(Lab::of(*x).dist(&Lab::of(*y)) >= 0.05, "{g:?}: {x:08x} {y:08x}");
                }
            }
            // A group's hues lie in its band (chroma high enough for the hue to mean something).
            let band = g.band();
            for &c in &members {
                let (chroma, h) = Lab::of(c).lch();
                if chroma > 0.03 {
                    assert!(hue_gap(h, band.hue) <= band.width / 2.0 + 6.0, "{g:?} {c:08x}: hue {h}");
                }
            }
        }
        // The MPI groups are told apart from one another by hue: collectives' band and waits' band are apart.
        assert!(hue_gap(FunctionGroup::MpiCollective.band().hue, FunctionGroup::MpiWait.band().hue) > 60.0);
        // Deterministic: the same trace, the same colours.
        assert_eq!(colors, region_colors(&t, &ColorOverrides::default()));
    }

    #[test]
    fn overrides_set_a_group_around_a_colour_and_a_function_exactly() {
        let t = trace(&MPI);
        let o = ColorOverrides::parse("mpi_coll:2a9d8f, r0:123456").expect("parses");
        assert_eq!(o.to_text(), "mpi_coll:2a9d8f,r0:123456");
        assert_eq!(ColorOverrides::parse(&o.to_text()), Some(o.clone()));
        let colors = region_colors(&t, &o);
        assert_eq!(colors[0], 0x123456ff, "a function's colour is exactly the one chosen");
        let groups = region_groups(&t);
        let coll: Vec<Rgba> =
            (1..groups.len()).filter(|&i| groups[i] == FunctionGroup::MpiCollective).map(|i| colors[i]).collect();
        assert!(coll.contains(&0x2a9d8fff), "the group's first function takes the chosen colour");
        let teal = hue(0x2a9d8fff);
        for &c in &coll {
            assert!(hue_gap(hue(c), teal) <= 26.0, "the group is spread around it: {c:08x} hue {} vs {teal}", hue(c));
        }
        for bad in ["mpi_coll", "mpi_coll:12345", "nope:123456", "r:123456", "rx:123456"] {
            assert_eq!(ColorOverrides::parse(bad), None, "{bad}");
        }
        assert_eq!(ColorOverrides::parse(""), Some(ColorOverrides::default()));
    }

    /// A Darshan log's "POSIX read" of ten files is ten regions (one per file, a category each): the legend
    /// lists the name once, saying its shades, not ten times in ten shades.
    #[test]
    fn regions_of_one_name_are_one_legend_entry() {
        let mut b = TraceBuilder::new(Format::Generated);
        let p = b.process(0);
        let l = b.location(p, 0, LocationKind::CpuThread);
        for k in 0..10i64 {
            let r = b.region("POSIX read", &format!("/scratch/f{k}"));
            b.interval(l, r, k * 10, 5);
        }
        let r = b.region("POSIX write", "/scratch/f0");
        b.interval(l, r, 200, 50);
        let t = b.finish();
        let colors = region_colors(&t, &ColorOverrides::default());
        let uses: Vec<RegionUse> =
            (0..t.regions.len()).map(|r| RegionUse { count: 1, exclusive_ns: if r == 10 { 50 } else { 5 } }).collect();
        let legend = legend(&t, &colors, &uses, &ColorOverrides::default(), 8);
        let labels: Vec<&str> =
            legend.sections.iter().flat_map(|s| s.entries.iter().map(|e| e.label.as_str())).collect();
        assert_eq!(
            labels,
            ["whole group (2 functions)", "POSIX read (10 regions, a shade each)", "POSIX write"],
            "{labels:?}"
        );
    }

    #[test]
    fn oklab_round_trips() {
        for c in [0xd62728ffu32, 0x1f77b4ff, 0x2ca02cff, 0x000000ff, 0xffffffff, 0x7f7f7fff] {
            let back = Lab { exact: None, ..Lab::of(c) }.to_rgba();
            for s in [24, 16, 8] {
                let (x, y) = ((c >> s) & 0xff, (back >> s) & 0xff);
                assert!(x.abs_diff(y) <= 1, "{c:08x} -> {back:08x}");
            }
        }
    }
}
