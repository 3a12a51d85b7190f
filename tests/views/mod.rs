//! The views (crates/view/src/views/) driven natively, as the page drives them: each view's state after zoom, pan, fit
//! and scroll; hover at the position of a known mark (computed from the view state and checked against the
//! scene) names that mark; clicks; `restore(state())` round-trips; animations advance by injected time only;
//! the view set (what a load offers, switching keeps the time range); and the summaries the CLI and the page
//! share are one function each.

mod aggregate;
mod aggview;
mod counters;
mod execgraph;
mod grains;
mod messages;
mod moments;
mod parallelism;
mod particles;
mod set;
mod summaries;
mod timeline;

use crate::common;

use serde_json::Value;
use weft::scene::{RectInstance, Scene};
use weft::views::Pane;

/// The scene's rects that contain (x, y).
pub fn rects_at(s: &Scene, x: f32, y: f32) -> Vec<&RectInstance> {
    s.rects.iter().filter(|r| x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h).collect()
}

/// A number of the view state.
pub fn f(s: &Value, key: &str) -> f64 {
    s[key].as_f64().unwrap_or_else(|| panic!("state has no number '{key}': {s}"))
}

/// A fresh view restored from `from`'s state has the same state.
pub fn round_trips(from: &dyn Pane, fresh: &mut dyn Pane) {
    let s = from.state();
    assert_ne!(fresh.state(), s, "the test moved the view away from a fresh one");
    fresh.restore(&s);
    assert_eq!(fresh.state(), s, "restore(state()) gives the same state");
}
