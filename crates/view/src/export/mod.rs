//! The analyses' results in other tools' formats, as text: `graphml` (the grain and aggregated graphs for
//! yEd, re-readable by `readers::graphml`). Uses the analyses and the scene's colours; writes no file (the CLI
//! and the page's download do).

pub mod graphml;
