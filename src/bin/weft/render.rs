//! `weft render VIEW FILE -o out.svg`: a view as an SVG document, for documentation.

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    view: View,
}

#[derive(clap::Subcommand)]
enum View {
    /// The grain graph's structural view (or a problem view with --problem METRIC).
    Grains(crate::grains::RenderArgs),
}

pub fn run(a: Args) -> Result<(), Box<dyn std::error::Error>> {
    match a.view {
        View::Grains(g) => crate::grains::render(g),
    }
}
