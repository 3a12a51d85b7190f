//! `weft aggregate FILE [--json] [--method reduction|family] [--graphml OUT [--problem METRIC]]`: the aggregated grain graph's size and the
//! visible node count theta, conservative and per problem view. The JSON keys are a stable interface:
//! nodes, grains, groups, tree_depth, theta_max_conservative, theta_max_by_problem, savings_percent.

use crate::flags::{checked, help};
use std::path::PathBuf;
use weft::analyses::aggregate::{savings_percent, Aggregation};
use weft::model::text::escape_controls;
use weft::views::options::{AggregateOptions, ViewOptions};

#[derive(clap::Args)]
pub struct Args {
    /// A MIR task-stats CSV (task-stats.merged, task-stats.processed) or the prototype's GraphML.
    file: PathBuf,
    /// Print JSON with stable keys instead of text.
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = "reduction", value_parser = checked::<AggregateOptions>("method"), help = help::<AggregateOptions>("method"))]
    method: String,
    #[arg(long, default_value = "paper", value_parser = checked::<weft::views::options::GrainsOptions>("thresholds"), help = help::<weft::views::options::GrainsOptions>("thresholds"))]
    thresholds: String,
    /// Cores that ran the program (default: from the profile's cpu ids).
    #[arg(long)]
    cores: Option<u32>,
    /// Also write the aggregated graph as GraphML (groups as yEd group nodes holding nested graphs).
    #[arg(long)]
    graphml: Option<PathBuf>,
    /// the structural view, or the problem view of one metric (parallel_benefit, work_deviation, ...): with
    /// --graphml, its groups separated as the page's Aggregated view shows them, which its download writes.
    #[arg(long, value_name = "METRIC", requires = "graphml")]
    problem: Option<String>,
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    let mut o = AggregateOptions::default();
    o.parse("method", &a.method)?;
    let method = o.method;
    let an = crate::grains::analyse(&a.file, crate::grains::thresholds(&a.thresholds, a.cores)?, None)?;
    let agg = Aggregation::new(&an, method);
    let theta = agg.theta(&an);
    let nodes = an.graph.nodes();
    let savings = savings_percent(theta.conservative_max, nodes);
    if let Some(out) = &a.graphml {
        let text = match &a.problem {
            None => weft::export::graphml::aggregated(&an, &agg),
            Some(m) => {
                let view = weft::analyses::grains::METRICS.iter().position(|x| x == m).ok_or_else(|| {
                    format!("no problem view '{m}' (one of {})", weft::analyses::grains::METRICS.join(", "))
                })?;
                let (tree, metrics) = agg.separated(&an, view);
                weft::export::graphml::Writer::aggregated(&tree).finish(&an, Some((&tree, &metrics)))
            }
        };
        std::fs::write(out, text).map_err(|e| format!("{}: {e}", escape_controls(&out.display().to_string())))?;
        eprintln!("wrote {}", escape_controls(&out.display().to_string()));
    }
    if a.json {
        let out = serde_json::json!({
            "nodes": nodes,
            "grains": an.graph.grains(),
            "groups": agg.tree.groups(),
            "tree_depth": agg.tree.height(),
            "theta_max_conservative": theta.conservative_max,
            "theta_max_by_problem": theta.by_problem,
            "savings_percent": (savings * 100.0).round() / 100.0,
        });
        println!("{}", crate::json_text(&out)?);
        return Ok(());
    }
    println!("file            {}", escape_controls(&a.file.display().to_string()));
    println!("method          {}", a.method);
    println!("nodes           {nodes}");
    println!("grains          {}", an.graph.grains());
    println!("groups          {}", agg.tree.groups());
    println!("tree depth      {}", agg.tree.height());
    if agg.restructured {
        println!("restructured    yes (the graph is not properly nested)");
    }
    println!("thresholds      {}", an.thresholds.source);
    println!();
    println!("visible node count (theta max) while diagnosing a grain:");
    println!("  {:<34} {:>8} {:>10}", "problem", "theta", "savings %");
    println!("  {:<34} {:>8} {:>10.2}", "any grain (conservative)", theta.conservative_max, savings);
    for p in &an.problems {
        match theta.by_problem.get(p.metric) {
            Some(&th) => println!(
                "  {:<34} {:>8} {:>10.2}   ({} problematic grains)",
                p.metric,
                th,
                savings_percent(th, nodes),
                p.count
            ),
            None => println!("  {:<34} {:>8} {:>10}", p.metric, "-", "none"),
        }
    }
    Ok(())
}
