//! `weft diff A B [--json] [--align start|region:NAME[:N]] [--ranks index|name|proportional] [--window T0:T1]`:
//! run B compared with run A (issue #54), `weft::analyses::compare`. A and B are traces of any format (an
//! OTF2 run against its Paraver twin) or store folders (decoded whole, as `weft info --json` does; a store's
//! side of `waits` is the wait states it keeps when indexed with `weft index --waits`, null without them). `--json` prints
//! the comparison's stable keys: `span_ns` {`a`, `b`}, `regions` [{`name`, `a_inclusive_ns`,
//! `b_inclusive_ns`, `delta_ns`, `a_exclusive_ns`, `b_exclusive_ns`, `a_count`, `b_count`, ...}],
//! `locations`, `comm_matrix` {`a`, `b`, `delta`}, `waits` {`a`, `b`, `delta`, `delta_total_ns`},
//! `summary`, `options`, and `windows` where the runs were analysed over windows. Each side's figures are
//! what `weft info`, `weft moments` and `weft waits` print of that run alone. With `--calltree`, the JSON
//! also has `calltree` {`total_ns` {`a`, `b`}, `paths` [{`path`, `a_inclusive_ns`, `b_inclusive_ns`,
//! `delta_ns`, `a_exclusive_ns`, `b_exclusive_ns`, `delta_exclusive_ns`, `a_count`, `b_count`}]}: the call
//! paths of both runs' trees (`weft calltree --json` of each over the compared window) paired by name, and the
//! text the paths that changed most. `weft render diff --flame` draws B's tree coloured by that change. Text output: the two runs, the
//! regions and locations that changed most, the matrices' and the waits' change, and the summary; trace text
//! escaped.

use crate::folders::FolderStore;
use std::path::{Path, PathBuf};
use weft::analyses::compare::calltree::{diff_trees, tree_of, CallTreeDiff, PathDiff, TreeSide};
use weft::analyses::compare::{
    pair, side, Align, CompareOptions, Comparison, KeptWaits, LocationSide, RankMap, Run, Side,
};
use weft::analyses::diagnosis::waits::WaitReport;
use weft::analyses::moments::{format_duration_ns, TimeWindow};
use weft::model::text::escape_controls as esc;
use weft::model::Trace;
use weft::store::read::Store;

#[derive(clap::Args)]
pub struct Args {
    /// Run A, the reference: a trace file, or a store folder written by `weft index`.
    a: PathBuf,
    /// Run B, compared with A (deltas are B minus A).
    b: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    /// Where each run's time starts: `start` (its first event) or `region:NAME[:N]` (the start of the N-th
    /// instance of region NAME, N from 1; without --window, each run from there to its end).
    #[arg(long, default_value = "start")]
    align: String,
    /// How ranks (locations, and processes for the matrix) pair up: `index`, `name`, or `proportional`
    /// (the i-th of A with the floor(i |B| / |A|)-th of B).
    #[arg(long, default_value = "index")]
    ranks: String,
    /// Compare only this window, `T0:T1` from each run's origin (units ns, us, ms, s; default ns).
    #[arg(long)]
    window: Option<String>,
    /// Rows of the regions and locations tables in the text output.
    #[arg(long, default_value_t = 15)]
    top: usize,
    /// Also pair the runs' call trees path by path (`calltree` in the JSON).
    #[arg(long)]
    calltree: bool,
}

#[derive(clap::Args)]
pub struct RenderArgs {
    /// Run A, the reference (a trace or a store folder).
    a: PathBuf,
    /// Run B.
    b: PathBuf,
    /// The picture to write (.svg or .png).
    #[arg(short, long)]
    out: PathBuf,
    /// As `weft diff --align`.
    #[arg(long, default_value = "start")]
    align: String,
    /// As `weft diff --ranks`.
    #[arg(long, default_value = "index")]
    ranks: String,
    /// As `weft diff --window`.
    #[arg(long)]
    window: Option<String>,
    /// Regions drawn (the most changed first).
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Width of the picture in pixels.
    #[arg(long, default_value_t = 1000.0)]
    width: f32,
    /// Draw the differential flame graph instead: B's call tree coloured by each path's change against A.
    #[arg(long)]
    flame: bool,
    /// Draw the moments per location instead: A's and B's glyphs of the moment view, the change coloured.
    #[arg(long, conflicts_with = "flame")]
    moments: bool,
}

/// `weft render diff A B -o out.svg`: `scene::compare`'s picture of the comparison, with `--flame`
/// `scene::flame_diff`'s of the call trees, with `--moments` `scene::moments_diff`'s of the moments.
pub fn render(a: RenderArgs, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let options = options(&a.align, &a.ranks, a.window.as_deref())?;
    if a.flame {
        let (ra, rb) = std::thread::scope(|s| {
            let hb = s.spawn(|| load(&a.b));
            (load(&a.a), hb.join().unwrap_or_else(|_| Err(format!("{}: reading it failed", a.b.display()))))
        });
        let (ra, rb) = (ra?, rb?);
        let tree_a = tree_of(&ra.trace, 'A', &options)?;
        let tree_b = tree_of(&rb.trace, 'B', &options)?;
        let diff = diff_trees(&TreeSide::of(&tree_a, &ra.trace), &TreeSide::of(&tree_b, &rb.trace));
        let title = format!(
            "Call tree of B ({}) coloured by its change against A ({}): {} against {}",
            esc(&a.b.display().to_string()),
            esc(&a.a.display().to_string()),
            d(diff.total_ns.b),
            d(diff.total_ns.a)
        );
        let f = weft::scene::flame_diff::diff_flame(&tree_b, &rb.trace, &diff, a.width, &title);
        crate::picture::write(&f.scene, &a.out, scale)?;
        return Ok(());
    }
    let c = compared(&a.a, &a.b, &options)?;
    if a.moments {
        let title = format!(
            "Moments per location: A {} (upper) against B {} (lower)",
            esc(&a.a.display().to_string()),
            esc(&a.b.display().to_string())
        );
        let d = weft::scene::moments_diff::diff_moments(&c, a.width, &title);
        crate::picture::write(&d.scene, &a.out, scale)?;
        return Ok(());
    }
    let scene = weft::scene::compare::build_compare(&c, a.width, a.top);
    crate::picture::write(&scene, &a.out, scale)?;
    Ok(())
}

/// A run read: its trace, whether it came from a store, and the wait states the store keeps (`weft index
/// --waits`; a store without them has no waits side).
pub struct Loaded {
    pub trace: Trace,
    pub store: bool,
    pub kept: Option<StoreWaits>,
}

impl Loaded {
    pub fn run(&self) -> Run<'_> {
        Run { trace: &self.trace, waits: !self.store, kept: self.kept.as_ref().map(|k| k as &dyn KeptWaits) }
    }
}

/// A store's kept wait states, read per window (`store::read::waits::report`, equal to the report of the trace
/// it was indexed from); a tile that cannot be read is said on stderr and leaves the side without waits.
pub struct StoreWaits {
    path: PathBuf,
    store: Store<FolderStore>,
}

impl std::fmt::Debug for StoreWaits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreWaits({})", self.path.display())
    }
}

impl KeptWaits for StoreWaits {
    fn report(&self, window: Option<(u64, u64)>) -> Option<WaitReport> {
        match weft::store::read::waits::report(&self.store, window) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("weft diff: {}: its wait states: {e}", self.path.display());
                None
            }
        }
    }

    fn critical_path(&self) -> Option<Vec<weft::analyses::diagnosis::waits::NamedNs>> {
        if weft::store::read::critical_path::missing(&self.store).is_some() {
            return None;
        }
        self.store.manifest.critical_path.as_ref().map(|k| k.report.by_region.clone())
    }
}

/// Read `path` as `weft info` does: a store folder decoded whole, or a trace through the readers.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let opened = crate::folders::open_store(path);
    let store = opened.is_some();
    let kept = match opened {
        Some(Ok(s)) if s.manifest.waits.is_some() => Some(StoreWaits { path: path.to_path_buf(), store: s }),
        _ => None,
    };
    let trace = crate::folders::read_trace_or_store(path).map_err(|e| e.to_string())?;
    Ok(Loaded { trace, store, kept })
}

/// The options from the flags.
pub fn options(align: &str, ranks: &str, window: Option<&str>) -> Result<CompareOptions, Box<dyn std::error::Error>> {
    Ok(CompareOptions {
        align: Align::parse(align)?,
        ranks: RankMap::parse(ranks)?,
        window: window.map(TimeWindow::parse).transpose()?,
    })
}

/// The side of the run at `path` (`which`: 'A' or 'B'), and with `tree` its call tree named
/// (`compare::calltree`); its trace is dropped once its figures are taken.
fn side_of(path: &Path, which: char, options: &CompareOptions, tree: bool) -> Result<(Side, Option<TreeSide>), String> {
    let loaded = load(path)?;
    let s = side(loaded.run(), which, options).map_err(|e| e.to_string())?;
    let t = if tree {
        let t = tree_of(&loaded.trace, which, options).map_err(|e| e.to_string())?;
        Some(TreeSide::of(&t, &loaded.trace))
    } else {
        None
    };
    Ok((s, t))
}

/// The comparison of the two runs at `a` and `b`: each read and analysed on its own thread
/// (`compare::side`), then paired (`compare::pair`), as `compare::compare` does in one; with `trees`, their
/// call trees paired too.
pub fn compared_with(
    a: &Path,
    b: &Path,
    options: &CompareOptions,
    trees: bool,
) -> Result<(Comparison, Option<CallTreeDiff>), Box<dyn std::error::Error>> {
    let (sa, sb) = std::thread::scope(|s| {
        let hb = s.spawn(|| side_of(b, 'B', options, trees));
        let sa = side_of(a, 'A', options, trees);
        (sa, hb.join().unwrap_or_else(|_| Err(format!("{}: reading it failed", b.display()))))
    });
    let ((sa, ta), (sb, tb)) = (sa?, sb?);
    let trees = ta.zip(tb).map(|(ta, tb)| diff_trees(&ta, &tb));
    Ok((pair(sa, sb, options), trees))
}

/// [`compared_with`] without the call trees.
pub fn compared(a: &Path, b: &Path, options: &CompareOptions) -> Result<Comparison, Box<dyn std::error::Error>> {
    Ok(compared_with(a, b, options, false)?.0)
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let options = options(&a.align, &a.ranks, a.window.as_deref())?;
    let (c, trees) = compared_with(&a.a, &a.b, &options, a.calltree)?;
    if a.json {
        match trees {
            None => println!("{}", crate::json_text(&c)?),
            Some(t) => {
                let mut v = serde_json::to_value(&c)?;
                v["calltree"] = serde_json::to_value(&t)?;
                println!("{}", crate::json_text(&v)?);
            }
        }
        return Ok(());
    }
    print!("{}", text(&c, &a.a, &a.b, a.top));
    if let Some(t) = trees {
        print!("{}", tree_text(&t, a.top));
    }
    Ok(())
}

/// The call paths whose own time changed most.
fn tree_text(t: &CallTreeDiff, top: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let mut rows: Vec<&PathDiff> = t.paths.iter().filter(|p| p.delta_exclusive_ns != 0 || p.delta_ns != 0).collect();
    rows.sort_by_key(|p| {
        (std::cmp::Reverse(p.delta_exclusive_ns.unsigned_abs()), std::cmp::Reverse(p.delta_ns.unsigned_abs()))
    });
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "call paths (B - A, by |own time delta|; {} of {} changed; tree A {}  B {})",
        rows.len(),
        t.paths.len(),
        d(t.total_ns.a),
        d(t.total_ns.b)
    );
    let _ = writeln!(o, "{:>12}  {:>12}  {:>12}  {:>12}  path", "excl A", "excl B", "delta", "incl delta");
    for p in rows.iter().take(top) {
        let path: Vec<String> = p.path.iter().map(|n| esc(n).into_owned()).collect();
        let _ = writeln!(
            o,
            "{:>12}  {:>12}  {:>12}  {:>12}  {}",
            d(p.a_exclusive_ns),
            d(p.b_exclusive_ns),
            sd(p.delta_exclusive_ns),
            sd(p.delta_ns),
            path.join(" > ")
        );
    }
    if rows.len() > top {
        let _ = writeln!(o, "  ... {} more (--top, or --json)", rows.len() - top);
    }
    o
}

fn d(ns: u64) -> String {
    format_duration_ns(ns as f64)
}

/// A signed duration with its sign.
fn sd(ns: i64) -> String {
    let v = format_duration_ns(ns.unsigned_abs() as f64);
    match ns.signum() {
        1 => format!("+{v}"),
        -1 => format!("-{v}"),
        _ => v,
    }
}

fn text(c: &Comparison, a: &Path, b: &Path, top: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "A           {}", esc(&a.display().to_string()));
    let _ = writeln!(o, "B           {}", esc(&b.display().to_string()));
    let _ = writeln!(
        o,
        "span        A {}  B {}  ({})",
        d(c.span_ns.a),
        d(c.span_ns.b),
        sd(c.span_ns.b as i64 - c.span_ns.a as i64)
    );
    if let Some(w) = &c.windows {
        for (name, s) in [("A", &w.a), ("B", &w.b)] {
            let _ = writeln!(o, "window {name}    {} .. {} (origin {})", d(s.start_ns), d(s.end_ns), d(s.origin_ns));
        }
    }
    let _ = writeln!(o, "ranks       by {}; {}", c.options.ranks.name(), esc(&c.options.align.describe()));
    let _ = writeln!(o);
    let changed = c.regions.iter().filter(|r| r.delta_ns != 0 || r.delta_exclusive_ns != 0 || r.a_count != r.b_count);
    let _ = writeln!(o, "regions (B - A, by |inclusive delta|; {} of {} changed)", changed.count(), c.regions.len());
    let _ = writeln!(
        o,
        "{:>12}  {:>12}  {:>12}  {:>7}  {:>12}  {:>12}  {:>9}  {:>9}  region",
        "incl A", "incl B", "delta", "ratio", "excl A", "excl B", "count A", "count B"
    );
    for r in c.regions.iter().take(top) {
        let ratio = r.ratio.map_or("-".to_string(), |x| format!("{x:.2}x"));
        let _ = writeln!(
            o,
            "{:>12}  {:>12}  {:>12}  {:>7}  {:>12}  {:>12}  {:>9}  {:>9}  {}",
            d(r.a_inclusive_ns),
            d(r.b_inclusive_ns),
            sd(r.delta_ns),
            ratio,
            d(r.a_exclusive_ns),
            d(r.b_exclusive_ns),
            r.a_count,
            r.b_count,
            esc(&r.name)
        );
    }
    if c.regions.len() > top {
        let _ = writeln!(o, "  ... {} more (--top, or --json)", c.regions.len() - top);
    }
    let _ = writeln!(o);
    let mut rows: Vec<_> = c.locations.iter().collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.delta.busy_ns.unsigned_abs()));
    let _ = writeln!(o, "locations (busy = compute; by |busy delta|)");
    let _ = writeln!(
        o,
        "{:>12}  {:>12}  {:>12}  {:>12}  {:>12}  location (A -> B where they differ)",
        "busy A", "busy B", "delta", "time A", "time B"
    );
    for r in rows.iter().take(top) {
        let busy = |s: &Option<LocationSide>| s.as_ref().map_or(0, |s| s.moments.m0_ns);
        let time = |s: &Option<LocationSide>| s.as_ref().map_or(0, |s| s.total_ns);
        let name = match (&r.a, &r.b) {
            (Some(x), Some(y)) if x.moments.name == y.moments.name => esc(&x.moments.name).into_owned(),
            (x, y) => {
                let n = |s: &Option<LocationSide>| {
                    s.as_ref().map_or("-".to_string(), |s| esc(&s.moments.name).into_owned())
                };
                format!("{} -> {}", n(x), n(y))
            }
        };
        let _ = writeln!(
            o,
            "{:>12}  {:>12}  {:>12}  {:>12}  {:>12}  {}",
            d(busy(&r.a)),
            d(busy(&r.b)),
            sd(r.delta.busy_ns),
            d(time(&r.a)),
            d(time(&r.b)),
            name
        );
    }
    if rows.len() > top {
        let _ = writeln!(o, "  ... {} more (--top, or --json)", rows.len() - top);
    }
    let m = &c.comm_matrix;
    let _ = writeln!(o);
    let cells = m.delta.count.iter().flatten().filter(|&&v| v != 0).count();
    let _ = writeln!(
        o,
        "comm matrix A {} messages, {} bytes ({} processes); B {} messages, {} bytes ({} processes)",
        m.a.messages(),
        m.a.total_bytes(),
        m.a.senders.len(),
        m.b.messages(),
        m.b.total_bytes(),
        m.b.senders.len()
    );
    let _ = writeln!(o, "            {cells} cells of B's matrix differ from A's mapped onto it");
    if m.delta.a_unplaced_count > 0 {
        let _ = writeln!(
            o,
            "            {} of A's messages ({} bytes) map to no process of B's matrix",
            m.delta.a_unplaced_count, m.delta.a_unplaced_bytes
        );
    }
    let _ = writeln!(o);
    match (&c.waits.a, &c.waits.b) {
        (Some(wa), Some(wb)) => {
            let _ = writeln!(
                o,
                "waits       A {}  B {}  ({})",
                d(wa.total_ns),
                d(wb.total_ns),
                sd(c.waits.delta_total_ns.unwrap_or(0))
            );
            for (k, pa) in &wa.patterns {
                let pb = &wb.patterns[k];
                if pa.total_ns == 0 && pb.total_ns == 0 {
                    continue;
                }
                let _ = writeln!(
                    o,
                    "  {:<18}  A {:>12}  B {:>12}  {:>12}",
                    k,
                    d(pa.total_ns),
                    d(pb.total_ns),
                    sd(pb.total_ns as i64 - pa.total_ns as i64)
                );
            }
        }
        _ => {
            let _ = writeln!(
                o,
                "waits       not compared: a store indexed without --waits keeps no wait states (index it with --waits, or give the trace)"
            );
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "{}", esc(&c.summary));
    o
}
