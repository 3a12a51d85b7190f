//! A grain graph with its metrics, critical path and layout, packed for the trip from the worker (which
//! reads, analyses and lays out) to the page (which draws). Columns as bytes (weft_model::columns; postcard took
//! 630 ms of the page's main thread for 131,072 grains); every field is named in `encode`, so a field added to
//! the graph, metrics or layout is a compile error here rather than silently dropped. The page re-derives the
//! problem views from the metrics (linear), so thresholds can change there without a round trip.

use super::grains::GrainLayout;
use serde::{Deserialize, Serialize};
use weft_analyses::grains::graph::{Csr, Groups};
use weft_analyses::grains::{CriticalPath, GrainAnalysis, GrainGraph, Metrics, Parallelism, Thresholds, TimeUnit};
use weft_model::columns::{ColumnError, ColumnReader, ColumnWriter};

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct GrainBundle {
    pub graph: GrainGraph,
    pub critical: CriticalPath,
    pub metrics: Metrics,
    pub layout: GrainLayout,
    /// The parallelism profile (computed in the worker: a sort the page's main thread should not do).
    pub parallelism: Parallelism,
}

impl GrainBundle {
    pub fn new(analysis: GrainAnalysis, layout: GrainLayout) -> Self {
        GrainBundle {
            graph: analysis.graph,
            critical: analysis.critical,
            metrics: analysis.metrics,
            layout,
            parallelism: analysis.parallelism,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = ColumnWriter::new(MAGIC);
        let GrainGraph {
            unit,
            grain_task,
            grain_parent,
            grain_cpu,
            grain_exec,
            grain_outline,
            grain_source,
            grain_lineage,
            grain_row,
            grain_node_start,
            grain_nodes,
            grain_group_start,
            groups,
            nested,
            node_kind,
            node_grain,
            node_exec,
            node_index,
            node_names,
            edge_source,
            edge_target,
            edge_kind,
            edge_delay,
            out,
            inc,
            strings,
        } = &self.graph;
        w.u64(matches!(unit, TimeUnit::Nanoseconds) as u64);
        w.u64(*nested as u64);
        for c in [grain_task, grain_exec, node_exec, edge_delay] {
            w.col(c);
        }
        for c in [grain_parent, grain_cpu, grain_outline, grain_source, grain_lineage, grain_row, grain_node_start] {
            w.col(c);
        }
        for c in [grain_nodes, grain_group_start, node_grain, node_index, edge_source, edge_target] {
            w.col(c);
        }
        let Groups { owner, fork, join, mid, post, child_start, children } = groups;
        for c in [owner, fork, join, mid, post, child_start, children, &out.start, &out.edges, &inc.start, &inc.edges] {
            w.col(c);
        }
        w.col(&node_kind.iter().map(|&k| k as u8).collect::<Vec<u8>>());
        w.col(&edge_kind.iter().map(|&k| k as u8).collect::<Vec<u8>>());
        w.strings(node_names);
        w.strings(strings);
        let CriticalPath { root_dist, length, nodes, edges, on_node, on_edge } = &self.critical;
        w.col(root_dist);
        w.u64(*length);
        w.col(nodes);
        w.col(edges);
        w.bools(on_node);
        w.bools(on_edge);
        let Metrics {
            exec,
            creation,
            overhead,
            work,
            parallel_benefit,
            work_deviation,
            mem_hier_util,
            sibling_work_balance,
            sibling_scatter,
            inst_par_median,
            inst_par_min,
            inst_par_max,
            inst_par_bin,
        } = &self.metrics;
        w.col(exec);
        for c in [
            creation,
            overhead,
            work,
            parallel_benefit,
            work_deviation,
            mem_hier_util,
            sibling_work_balance,
            sibling_scatter,
            inst_par_median,
            inst_par_min,
            inst_par_max,
        ] {
            w.opt_f64(c);
        }
        w.opt_f64(&[*inst_par_bin]);
        let GrainLayout { x, y, w: lw, h, point_start, points, width, height, from_nesting } = &self.layout;
        for c in [x, y, lw, h] {
            w.col(c);
        }
        w.col(point_start);
        w.col(points);
        w.col(&[*width, *height]);
        w.u64(*from_nesting as u64);
        let Parallelism { span, step_t, step_count, max, mean, bins, seg_start, seg_end, seg_grain, block_end } =
            &self.parallelism;
        w.u64(*span);
        w.u64(*max as u64);
        w.col(&[*mean]);
        for c in [step_t, seg_start, seg_end, block_end] {
            w.col(c);
        }
        for c in [step_count, bins, seg_grain] {
            w.col(c);
        }
        w.finish()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut reading = BundleReading::default();
        loop {
            if let Some(b) = reading.step(bytes)? {
                return Ok(b);
            }
        }
    }

    /// The checks that graph, metrics and layout agree, done once every column is read.
    fn checked(self) -> Result<Self, String> {
        let b = self;
        let (n, e, g) = (b.graph.nodes(), b.graph.edge_source.len(), b.graph.grains());
        let l = &b.layout;
        let fits = l.x.len() == n
            && l.y.len() == n
            && l.w.len() == n
            && l.h.len() == n
            && l.point_start.len() == e + 1
            && l.point_start.windows(2).all(|w| w[0] <= w[1])
            && l.point_start.last().is_some_and(|&p| p as usize == l.points.len())
            && b.metrics.exec.len() == g
            && b.graph.grain_node_start.len() == g + 1
            && b.graph.node_grain.iter().all(|&x| (x as usize) < g || x == u32::MAX);
        let p = &b.parallelism;
        let segs = p.seg_start.len();
        let fits = fits
            && p.step_t.len() == p.step_count.len()
            && p.step_t.windows(2).all(|w| w[0] < w[1])
            && p.seg_end.len() == segs
            && p.seg_grain.len() == segs
            && p.seg_start.windows(2).all(|w| w[0] <= w[1])
            && p.seg_grain.iter().all(|&x| (x as usize) < g)
            && p.block_end.len() == segs.div_ceil(weft_analyses::grains::parallelism::BLOCK);
        if !fits {
            return Err("grain graph buffer corrupt: graph, metrics and layout disagree".into());
        }
        Ok(b)
    }

    /// The analysis under `thresholds` (problem views derived again from the metrics).
    pub fn analysis(self, thresholds: Thresholds) -> (GrainAnalysis, GrainLayout) {
        (
            GrainAnalysis::assemble_with(self.graph, self.critical, self.metrics, self.parallelism, thresholds),
            self.layout,
        )
    }
}

const MAGIC: &[u8; 8] = b"WEFTGRN1";

/// [`GrainBundle::decode`] in steps, so the page can yield between them: the graph's numeric columns, its
/// kinds and names, the critical path, the metrics in three parts, the layout, the parallelism
/// profile, then the checks. Give every step the same bytes.
#[derive(Default)]
pub struct BundleReading {
    at: usize,
    graph: Option<GrainGraph>,
    /// The graph's kinds and names are read too.
    named: bool,
    /// The critical path, read a step before the metrics.
    critical: Option<CriticalPath>,
    /// The metrics' columns read so far, and in how many steps.
    metrics: Option<Metrics>,
    metric_steps: u8,
    analysis: Option<(CriticalPath, Metrics)>,
    layout: Option<GrainLayout>,
    parallelism: Option<Parallelism>,
}

/// Steps the metrics' columns are read in (the step names in [`BundleReading::next_part`] count them). A
/// 131,072-grain graph's metrics (a column of times and eleven optional columns) were one step of 21-29 ms on
/// the page, and 74-138 ms in some runs (cause not found: not V8's tier-up, BENCHMARKS.md, session 24); a
/// third of them at a time keeps even those under the 50 ms a task may take.
const METRIC_STEPS: u8 = 3;

/// What a [`BundleReading`] step reads next.
#[derive(Clone, Copy)]
enum Part {
    Graph,
    Names,
    Critical,
    /// The metrics' columns of this step (0 to [`METRIC_STEPS`] - 1).
    Metrics(u8),
    Layout,
    Parallelism,
    Check,
}

impl BundleReading {
    fn part(&self) -> Part {
        if self.graph.is_none() {
            Part::Graph
        } else if !self.named {
            Part::Names
        } else if self.analysis.is_none() && self.critical.is_none() {
            Part::Critical
        } else if self.analysis.is_none() {
            Part::Metrics(self.metric_steps)
        } else if self.layout.is_none() {
            Part::Layout
        } else if self.parallelism.is_none() {
            Part::Parallelism
        } else {
            Part::Check
        }
    }

    /// Read the next part of `bytes`: the bundle once the last part is read, None before.
    pub fn step(&mut self, bytes: &[u8]) -> Result<Option<GrainBundle>, String> {
        let e = |e: ColumnError| format!("grain graph {e}");
        let mut r = match self.at {
            0 => ColumnReader::new(bytes, MAGIC).map_err(e)?,
            at => ColumnReader::resume(bytes, at),
        };
        let done = match self.part() {
            Part::Graph => {
                self.graph = Some(read_graph(&mut r).map_err(e)?);
                None
            }
            Part::Names => {
                if let Some(graph) = self.graph.as_mut() {
                    read_graph_names(&mut r, graph).map_err(e)?;
                }
                self.named = true;
                None
            }
            Part::Critical => {
                self.critical = Some(read_critical(&mut r).map_err(e)?);
                None
            }
            Part::Metrics(k) => {
                read_metrics(&mut r, self.metrics.get_or_insert_with(Metrics::default), k).map_err(e)?;
                self.metric_steps = k + 1;
                if self.metric_steps == METRIC_STEPS {
                    self.analysis = self.critical.take().zip(self.metrics.take());
                }
                None
            }
            Part::Layout => {
                self.layout = Some(read_layout(&mut r).map_err(e)?);
                None
            }
            Part::Parallelism => {
                self.parallelism = Some(read_parallelism(&mut r).map_err(e)?);
                None
            }
            Part::Check => match (self.graph.take(), self.analysis.take(), self.layout.take(), self.parallelism.take())
            {
                (Some(graph), Some((critical, metrics)), Some(layout), Some(parallelism)) => {
                    Some(GrainBundle { graph, critical, metrics, layout, parallelism }.checked()?)
                }
                _ => return Err("grain graph buffer: a part is missing at the check".into()),
            },
        };
        self.at = r.at();
        Ok(done)
    }

    /// What the next step reads.
    pub fn next_part(&self) -> &'static str {
        match self.part() {
            Part::Graph => "read the grain graph",
            Part::Names => "read the grain graph's names",
            Part::Critical => "read the critical path",
            Part::Metrics(0) => "read the metrics (1 of 3)",
            Part::Metrics(1) => "read the metrics (2 of 3)",
            Part::Metrics(_) => "read the metrics (3 of 3)",
            Part::Layout => "read the layout",
            Part::Parallelism => "read the parallelism profile",
            Part::Check => "check the grain graph",
        }
    }

    /// Bytes read so far.
    pub fn read(&self) -> usize {
        self.at
    }
}

/// The graph's numeric columns (its kinds and names left empty for [`read_graph_names`]).
fn read_graph(r: &mut ColumnReader) -> Result<GrainGraph, ColumnError> {
    let unit = if r.u64()? == 1 { TimeUnit::Nanoseconds } else { TimeUnit::Cycles };
    let nested = r.u64()? == 1;
    let (grain_task, grain_exec, node_exec, edge_delay) =
        (r.col("grain tasks")?, r.col("grain times")?, r.col("node times")?, r.col("edge delays")?);
    let (grain_parent, grain_cpu, grain_outline, grain_source) =
        (r.col("grain parents")?, r.col("grain cpus")?, r.col("grain outlines")?, r.col("grain sources")?);
    let (grain_lineage, grain_row, grain_node_start) =
        (r.col("grain lineages")?, r.col("grain rows")?, r.col("grain node starts")?);
    let (grain_nodes, grain_group_start, node_grain) =
        (r.col("grain nodes")?, r.col("grain group starts")?, r.col("node grains")?);
    let (node_index, edge_source, edge_target) =
        (r.col("node indices")?, r.col("edge sources")?, r.col("edge targets")?);
    let groups = Groups {
        owner: r.col("group owners")?,
        fork: r.col("group forks")?,
        join: r.col("group joins")?,
        mid: r.col("group mids")?,
        post: r.col("group posts")?,
        child_start: r.col("group child starts")?,
        children: r.col("group children")?,
    };
    let out = Csr { start: r.col("out starts")?, edges: r.col("out edges")? };
    let inc = Csr { start: r.col("in starts")?, edges: r.col("in edges")? };
    let (node_kind, edge_kind, node_names, strings) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let graph = GrainGraph {
        unit,
        grain_task,
        grain_parent,
        grain_cpu,
        grain_exec,
        grain_outline,
        grain_source,
        grain_lineage,
        grain_row,
        grain_node_start,
        grain_nodes,
        grain_group_start,
        groups,
        nested,
        node_kind,
        node_grain,
        node_exec,
        node_index,
        node_names,
        edge_source,
        edge_target,
        edge_kind,
        edge_delay,
        out,
        inc,
        strings,
    };
    Ok(graph)
}

/// The node and edge kinds and the names of the graph [`read_graph`] read.
fn read_graph_names(r: &mut ColumnReader, g: &mut GrainGraph) -> Result<(), ColumnError> {
    use weft_analyses::grains::{EdgeKind, NodeKind};
    g.node_kind = r.enums("node kinds", |b| {
        use NodeKind::*;
        [Start, End, Fragment, Fork, Join, Task].get(b as usize).copied()
    })?;
    g.edge_kind = r.enums("edge kinds", |b| EdgeKind::ALL.get(b as usize).copied())?;
    g.node_names = r.strings("node names")?;
    g.strings = r.strings("strings")?;
    Ok(())
}

fn read_critical(r: &mut ColumnReader) -> Result<CriticalPath, ColumnError> {
    Ok(CriticalPath {
        root_dist: r.col("distances")?,
        length: r.u64()?,
        nodes: r.col("critical nodes")?,
        edges: r.col("critical edges")?,
        on_node: r.bools("critical node flags")?,
        on_edge: r.bools("critical edge flags")?,
    })
}

/// Part `k` of the metrics' columns (of [`METRIC_STEPS`]), into `m`.
fn read_metrics(r: &mut ColumnReader, m: &mut Metrics, k: u8) -> Result<(), ColumnError> {
    match k {
        0 => {
            m.exec = r.col("execution times")?;
            m.creation = r.opt_f64("creation")?;
            m.overhead = r.opt_f64("overhead")?;
            m.work = r.opt_f64("work")?;
        }
        1 => {
            m.parallel_benefit = r.opt_f64("parallel benefit")?;
            m.work_deviation = r.opt_f64("work deviation")?;
            m.mem_hier_util = r.opt_f64("memory hierarchy utilization")?;
            m.sibling_work_balance = r.opt_f64("load balance")?;
        }
        _ => {
            m.sibling_scatter = r.opt_f64("scatter")?;
            m.inst_par_median = r.opt_f64("instantaneous parallelism median")?;
            m.inst_par_min = r.opt_f64("instantaneous parallelism min")?;
            m.inst_par_max = r.opt_f64("instantaneous parallelism max")?;
            m.inst_par_bin = r.opt_f64("bin width")?.first().copied().flatten();
        }
    }
    Ok(())
}

/// The layout (node rectangles, edge points, size).
fn read_layout(r: &mut ColumnReader) -> Result<GrainLayout, ColumnError> {
    let (x, y, w, h) = (r.col("x")?, r.col("y")?, r.col("widths")?, r.col("heights")?);
    let (point_start, points) = (r.col("point starts")?, r.col("points")?);
    let size: Vec<f32> = r.col("size")?;
    let from_nesting = r.u64()? == 1;
    let [width, height] = [size.first().copied().unwrap_or(0.0), size.get(1).copied().unwrap_or(0.0)];
    Ok(GrainLayout { x, y, w, h, point_start, points, width, height, from_nesting })
}

/// The parallelism profile, the bundle's last part.
fn read_parallelism(r: &mut ColumnReader) -> Result<Parallelism, ColumnError> {
    let (span, max) = (r.u64()?, r.u64()?);
    let mean: Vec<f64> = r.col("mean parallelism")?;
    let (step_t, seg_start, seg_end, block_end) =
        (r.col("profile times")?, r.col("fragment starts")?, r.col("fragment ends")?, r.col("block ends")?);
    let (step_count, bins, seg_grain) = (r.col("profile counts")?, r.col("profile bins")?, r.col("fragment grains")?);
    r.end()?;
    Ok(Parallelism {
        span,
        step_t,
        step_count,
        max: max.min(u32::MAX as u64) as u32,
        mean: mean.first().copied().unwrap_or(0.0),
        bins,
        seg_start,
        seg_end,
        seg_grain,
        block_end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layouts::grains::{layout, LayoutParams};
    use weft_samples::grains::fib_profile;

    #[test]
    fn a_stepped_read_reads_a_part_a_step_and_gives_what_the_one_shot_read_gives() {
        let csv = fib_profile(20, 5, 8);
        let (input, _) =
            weft_readers::open("fib.csv", (&csv).into()).and_then(|i| i.into_grains("fib.csv")).expect("reads");
        let an = GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses");
        let lay = layout(&an.graph, &LayoutParams::default());
        let bytes = GrainBundle::new(an, lay).encode();
        let mut reading = BundleReading::default();
        let mut parts = vec![0];
        let stepped = loop {
            let done = reading.step(&bytes).expect("reads");
            parts.push(reading.read());
            if let Some(b) = done {
                break b;
            }
        };
        assert_eq!(parts.len(), 10, "nine steps: {parts:?}");
        assert_eq!(parts[8], bytes.len());
        assert_eq!(parts[9], bytes.len(), "the last step checks, reading nothing");
        for w in parts[..9].windows(2) {
            assert!(w[1] > w[0] && w[1] - w[0] < bytes.len() * 3 / 4, "each step reads a part: {parts:?}");
        }
        let once = GrainBundle::decode(&bytes).expect("reads");
        assert_eq!(stepped.encode(), once.encode());
        assert_eq!(stepped.encode(), bytes);
        // A buffer cut short fails at the step that reaches the cut, and never panics.
        for cut in
            [10, parts[1] + 3, parts[2] + 3, parts[3] + 3, parts[4] + 3, parts[5] + 3, parts[7] + 3, bytes.len() - 1]
        {
            let mut reading = BundleReading::default();
            let r = (0..10).map(|_| reading.step(&bytes[..cut])).find(|r| r.is_err());
            assert!(r.is_some(), "cut at {cut}");
        }
    }

    #[test]
    fn bundle_round_trips_and_rejects_corruption() {
        let csv = fib_profile(20, 5, 8);
        let (input, _) =
            weft_readers::open("fib.csv", (&csv).into()).and_then(|i| i.into_grains("fib.csv")).expect("reads");
        let an = GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses");
        let lay = layout(&an.graph, &LayoutParams::default());
        let problems: Vec<usize> = an.problems.iter().map(|p| p.count).collect();
        let before = an.clone();
        let bytes = GrainBundle::new(an, lay.clone()).encode();
        let (back, back_layout) = GrainBundle::decode(&bytes).expect("decodes").analysis(Thresholds::paper());
        assert_eq!(back.problems.iter().map(|p| p.count).collect::<Vec<_>>(), problems);
        assert_eq!(back_layout.x, lay.x);
        assert_eq!(back_layout.points, lay.points);
        assert_eq!(
            (back_layout.width, back_layout.height, back_layout.from_nesting),
            (lay.width, lay.height, lay.from_nesting)
        );
        let (g, h) = (&back.graph, &before.graph);
        assert_eq!((g.unit, g.nested, &g.node_kind, &g.edge_kind), (h.unit, h.nested, &h.node_kind, &h.edge_kind));
        assert_eq!(
            (&g.grain_task, &g.groups.children, &g.out.edges, &g.strings),
            (&h.grain_task, &h.groups.children, &h.out.edges, &h.strings)
        );
        assert_eq!((back.critical.length, &back.critical.on_edge), (before.critical.length, &before.critical.on_edge));
        assert_eq!(
            (&back.metrics.work, back.metrics.inst_par_bin),
            (&before.metrics.work, before.metrics.inst_par_bin)
        );
        for cut in (0..bytes.len()).step_by(61) {
            assert!(GrainBundle::decode(&bytes[..cut]).is_err());
        }
        // Changed bytes decode to a checked bundle or an error, never a panic.
        for i in (0..bytes.len()).step_by(7) {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            let _ = GrainBundle::decode(&b);
        }
    }
}

#[cfg(test)]
mod bench {
    use super::*;
    use crate::layouts::grains::{layout, LayoutParams};
    use std::time::Instant;
    use weft_analyses::aggregate::{bundle as aggregate_bundle, Aggregation, Method};

    /// Sizes and native decode times of the bundles for 131,072 grains (BENCHMARKS.md, "The engine in the
    /// worker"): `cargo test --lib bench_bundles -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn bench_bundles_131072_grains() {
        let csv = weft_samples::grains::fib_profile(45, 16, 48);
        let (input, _) =
            weft_readers::open("fib.csv", (&csv).into()).and_then(|i| i.into_grains("fib.csv")).expect("reads");
        let an = GrainAnalysis::new(&input, Thresholds::paper()).expect("analyses");
        let lay = layout(&an.graph, &LayoutParams::default());
        let agg = Aggregation::new(&an, Method::Reduction);
        let agg_bytes = aggregate_bundle::encode(&agg, &an.graph);
        let graph = an.graph.clone();
        let bytes = GrainBundle::new(an, lay).encode();
        let t = Instant::now();
        let back = GrainBundle::decode(&bytes).expect("decodes");
        let graph_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let back_agg = aggregate_bundle::decode(&agg_bytes, &graph).expect("decodes");
        let agg_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!((back.graph.grains(), back_agg.tree.len()), (131_072, agg.tree.len()));
        eprintln!(
            "grain bundle {} bytes, decoded in {graph_ms:.1} ms; aggregation {} bytes, decoded in {agg_ms:.1} ms",
            bytes.len(),
            agg_bytes.len()
        );
    }
}
