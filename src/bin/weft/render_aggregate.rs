//! `weft render aggregate FILE -o out.svg`: the aggregated view of the page (`weft::views::aggregate`),
//! driven as a person drives it there and drawn from its scene: opened to a depth (or along the critical
//! path, or fully), in the structural view or a problem view, optionally filtered (the page's inset shows the
//! same groups unfiltered, the selected group, the deepest closed one shown, outlined in both), with the
//! local critical path of the deepest opened group off the global critical path and the similar-group marks
//! (closed groups of equal Weisfeiler–Lehman structure carry a diamond). With `--compare FILE2`, a second
//! run of the same program is drawn to the right, following the left's open groups; matched groups whose
//! structure differs are outlined on both sides. For documentation and checks of the interactive view.

use crate::flags::{checked, help};
use serde_json::Value;
use std::path::PathBuf;
use weft::analyses::aggregate::Method;
use weft::analyses::grains::METRICS;
use weft::scene::Scene;
use weft::views::aggregate::AggregatePane;
use weft::views::options::AggregateOptions;
use weft::views::Pane;

#[derive(clap::Args)]
pub struct Args {
    /// A MIR task-stats CSV or the prototype's GraphML.
    file: PathBuf,
    /// The SVG file to write.
    #[arg(short, long)]
    out: PathBuf,
    #[arg(long, default_value = "reduction", value_parser = checked::<AggregateOptions>("method"), help = help::<AggregateOptions>("method"))]
    method: String,
    #[arg(long, value_parser = checked::<AggregateOptions>("problem"), help = help::<AggregateOptions>("problem"))]
    problem: Option<String>,
    /// With --problem: hide non-problematic groups behind fast-forward edges.
    #[arg(long, help = help::<AggregateOptions>("filtered"))]
    filtered: bool,
    /// The picture's default opens two levels (the page's view opens none).
    #[arg(long, default_value = "2", value_parser = checked::<AggregateOptions>("drill_depth"), help = help::<AggregateOptions>("drill_depth"))]
    depth: String,
    /// Open the groups on the global critical path instead of drilling to a depth.
    #[arg(long)]
    critical: bool,
    /// Open every group.
    #[arg(long)]
    all: bool,
    #[arg(long, default_value = "paper", value_parser = checked::<weft::views::options::GrainsOptions>("thresholds"), help = help::<weft::views::options::GrainsOptions>("thresholds"))]
    thresholds: String,
    /// A second run of the same program, drawn beside the first with differing groups outlined.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Canvas width in pixels (the height follows the drawing's aspect, at most 4 times the width).
    #[arg(long, default_value_t = 1200.0)]
    width: f32,
}

/// The view as the arguments say, `width` pixels wide (the height follows the drawing's aspect, at most 4
/// times the width); the page's pane, driven by its own options.
fn view(a: &Args) -> Result<AggregatePane, Box<dyn std::error::Error>> {
    let _: Method = a.method.parse()?;
    if let Some(p) = &a.problem {
        if !METRICS.contains(&p.as_str()) {
            return Err(format!("unknown metric \"{p}\"; one of {METRICS:?}").into());
        }
    }
    let an = crate::grains::analyse(&a.file, crate::grains::thresholds(&a.thresholds, None)?, None)?;
    let mut pane = AggregatePane::new(std::rc::Rc::new(an), a.width, a.width);
    pane.configure("method", &a.method)?;
    if let Some(p) = &a.problem {
        pane.configure("problem", p)?;
        if a.filtered {
            pane.configure("filtered", "on")?;
        }
    }
    if let Some(other) = &a.compare {
        let second = crate::grains::analyse(other, pane.thresholds(), None)?;
        pane.compare_with(&other.display().to_string(), second);
    }
    if a.all {
        pane.configure("open_all_beneath", "")?;
    } else if a.critical {
        pane.configure("drill_critical", "")?;
    } else {
        pane.configure("drill_depth", &a.depth.to_string())?;
    }
    pane.configure("similar", "on")?;
    let s = pane.state();
    let nodes = s["nodes"].as_array().map_or(&[][..], |v| v.as_slice());
    let deepest = |keep: &dyn Fn(&Value) -> bool| {
        nodes.iter().filter(|n| keep(n)).max_by_key(|n| n["depth"].as_u64()).and_then(|n| n["id"].as_u64())
    };
    let open = |n: &Value| n["open"].as_bool() == Some(true);
    if let Some(u) = deepest(&|n| open(n) && n["on_critical"].as_bool() == Some(false)) {
        pane.configure("local_critical", &u.to_string())?;
    }
    if pane.state()["filtered"].as_bool() == Some(true) {
        if let Some(u) = deepest(&|n| !open(n) && n["kind"].as_str() != Some("leaf")) {
            pane.configure("select", &u.to_string())?;
        }
    }
    let height = pane.fitted_height(a.width).clamp(200.0, 4.0 * a.width);
    pane.resize(a.width, height);
    Ok(pane)
}

pub fn run(a: Args, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    let pane = view(&a)?;
    let s = pane.state();
    let n = |k: &str| s[k].as_u64().unwrap_or(0);
    if let Some(why) = s["compare_programs_differ"].as_str() {
        eprintln!("{why}: no group matched");
    }
    if s["compare"].as_bool() == Some(true) {
        eprintln!(
            "matched {} of {} visible groups; {} differ in structure",
            n("compare_matched"),
            n("compare_visible"),
            n("compare_differ")
        );
    }
    let scene = match pane.legend() {
        Some(l) => weft::scene::legend::beside(pane.scene(), &l),
        None => pane.scene(),
    };
    write(&a, &scene, (n("visible") + n("compare_right_visible")) as usize, scale)
}

fn write(a: &Args, scene: &Scene, visible: usize, scale: f32) -> Result<(), Box<dyn std::error::Error>> {
    crate::picture::write(scene, &a.out, scale)?;
    eprintln!(
        "wrote {} ({visible} visible nodes, {} shapes, {} lines)",
        weft::model::text::escape_controls(&a.out.display().to_string()),
        scene.rects.len(),
        scene.lines.len()
    );
    Ok(())
}
