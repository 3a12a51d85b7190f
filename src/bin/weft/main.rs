//! `weft`: the command-line face of the analysis core. Summaries and analyses as text or `--json`
//! (stable keys), and rendering to SVG/PNG for documentation. Each subcommand lives in its own file.

mod grains;
mod info;
mod render;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "weft", version, about = "Analyse performance traces of parallel programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Format, counts, time span and the regions with the most inclusive time.
    Info(info::Args),
    /// Grain graph of an OpenMP program (MIR task stats or GraphML): structure, span, problems.
    Grains(grains::Args),
    /// Write a view as SVG.
    Render(render::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Grains(a) => grains::run(a),
        Command::Render(a) => render::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weft: {e}");
            ExitCode::FAILURE
        }
    }
}
