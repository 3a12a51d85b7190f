//! What the CLI and the page both show is made once: `weft grains --json` prints `GrainFigures::of` (which
//! the page's summary of a grain graph is), byte for byte, and the grain view counts the same; `weft
//! render aggregate` and `weft render grains` write the page's views' scenes.

use crate::common::read::read_grains_path;
use crate::common::TempDir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use weft::analyses::grains::query::GrainFigures;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, LayoutParams};
use weft::samples::grains::fib_profile;
use weft::scene::svg::to_svg;
use weft::views::aggregate::AggregatePane;
use weft::views::grains::GrainsPane;
use weft::views::Pane;

fn weft(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft");
    assert!(out.status.success(), "weft {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn analyse(file: &Path, t: Thresholds) -> GrainAnalysis {
    GrainAnalysis::new(&read_grains_path(file).unwrap().0, t).unwrap()
}

/// The fib profile in a file of the calling test's own folder.
fn fib_file(dir: &TempDir) -> PathBuf {
    dir.put("fib.csv", &fib_profile(10, 3, 8))
}

/// The CLI's JSON is the function's, and the grain view's state counts what it counts.
fn same_figures(file: &Path) {
    for (name, t) in [("paper", Thresholds::paper()), ("prototype", Thresholds::prototype())] {
        let a = analyse(file, t);
        let figures = GrainFigures::of(&a);
        let cli = weft(&["grains", "--json", "--thresholds", name, file.to_str().unwrap()]);
        assert_eq!(cli.trim_end(), serde_json::to_string_pretty(&figures).unwrap(), "{}", file.display());
        let l = layout(&a.graph, &LayoutParams::default());
        let s = GrainsPane::new(a, l, 800.0, 600.0).state();
        let f = serde_json::to_value(&figures).unwrap();
        for k in ["grains", "nodes", "edges", "critical_path_length"] {
            assert_eq!(s[k], f[k], "{k}");
        }
        for p in s["problems"].as_array().unwrap() {
            assert_eq!(p["count"], f["problems"][p["metric"].as_str().unwrap()], "{p}");
        }
    }
}

#[test]
fn weft_grains_json_is_the_figures_the_page_shows() {
    let tmp = TempDir::new("views-figures");
    same_figures(&fib_file(&tmp));
    let Some(dir) = super::common::shared_traces("weft_grains_json_is_the_figures_the_page_shows") else { return };
    let g = dir.join("grain-graphs");
    for f in ["anamud-test-data/fib/task-stats.merged", "anamud-prototype-test/grain-graph.graphml"] {
        same_figures(&g.join(f));
    }
}

#[test]
fn weft_render_aggregate_draws_the_aggregated_views_scene() {
    let tmp = TempDir::new("views-aggregate");
    let file = fib_file(&tmp);
    let out = tmp.join("aggregate.svg");
    weft(&[
        "render",
        "aggregate",
        file.to_str().unwrap(),
        "--depth",
        "3",
        "--width",
        "900",
        "-o",
        out.to_str().unwrap(),
    ]);
    // The page's view, driven as the command says it is.
    let mut p = AggregatePane::new(std::rc::Rc::new(analyse(&file, Thresholds::paper())), 900.0, 900.0);
    p.configure("drill_depth", "3").unwrap();
    p.configure("similar", "on").unwrap();
    let s = p.state();
    let deepest_open_off_critical = s["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["open"] == true && n["on_critical"] == false)
        .max_by_key(|n| n["depth"].as_u64())
        .map(|n| n["id"].to_string());
    if let Some(u) = deepest_open_off_critical {
        p.configure("local_critical", &u).unwrap();
    }
    p.resize(900.0, p.fitted_height(900.0).clamp(200.0, 3600.0));
    let state: Value = p.state();
    assert!(state["open"].as_array().unwrap().len() > 1, "opened to depth 3");
    // With the view's legend beside it.
    let scene = weft::scene::legend::beside(p.scene(), &p.legend().unwrap());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), to_svg(&scene));
}

#[test]
fn weft_render_grains_draws_the_grain_views_scene() {
    let tmp = TempDir::new("views-grains");
    let file = fib_file(&tmp);
    let out = tmp.join("grains.svg");
    weft(&[
        "render",
        "grains",
        file.to_str().unwrap(),
        "--problem",
        "parallel_benefit",
        "--width",
        "700",
        "-o",
        out.to_str().unwrap(),
    ]);
    let a = analyse(&file, Thresholds::paper());
    let l = layout(&a.graph, &LayoutParams::default());
    // The graph's share, and the parallelism strip below it.
    let height = (700.0 * l.height / l.width.max(1.0)).clamp(200.0, 2800.0) + weft::scene::parallelism::HEIGHT;
    let mut p = GrainsPane::new(a, l, 700.0, height);
    p.configure("problem", "parallel_benefit").unwrap();
    let scene = weft::scene::legend::beside(p.scene(), &p.legend().unwrap());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), to_svg(&scene));
}
