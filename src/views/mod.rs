//! Views as plain Rust: what each of the page's views offers and holds, tested natively and shared with the
//! CLI. `options`: one typed option schema per view (the CLI's flags, the page's controls and permalinks).

pub mod options;
