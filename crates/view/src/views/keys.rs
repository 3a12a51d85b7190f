//! The keys and pointer actions each view answers, in words, for the page's `?` overlay: one list per view
//! kind (`Pane::kind`), the keys `www/app.js` and the view's input handlers act on. Data only.

/// (keys, what they do).
pub type Keys = &'static [(&'static str, &'static str)];

const TIME: Keys = &[
    ("W / S, wheel", "zoom in / out (about the pointer)"),
    ("A / D, drag", "pan earlier / later"),
    ("↑ / ↓, Shift+wheel", "scroll rows"),
    ("Shift+drag, Shift+click twice", "select a time range: its duration and profile"),
    ("click", "select a message or call (Messages panel)"),
    ("M", "note the interval under the pointer, else the selected range (Notes panel)"),
    ("F", "fit: show everything"),
];

const MOMENTS: Keys = &[
    ("W / S, wheel", "zoom in / out (about the pointer)"),
    ("A / D, drag", "pan earlier / later"),
    ("↑ / ↓, Shift+wheel", "scroll rows"),
    ("Ctrl+wheel", "row height"),
    ("F", "fit: show everything"),
];

const GRAINS: Keys = &[
    ("W / S, wheel", "zoom in / out about the pointer"),
    ("A / D, drag", "pan left / right (drag: any direction)"),
    ("↑ / ↓, Shift+wheel", "pan up / down (with a grain selected: its parent / child)"),
    ("← / →", "with a grain selected: previous / next sibling"),
    ("click a grain", "select it: its properties in the grain panel"),
    ("J / K", "next / previous row of the problem table (located)"),
    ("/, N", "search grains, next match"),
    ("F", "fit the whole graph"),
];

const AGGREGATE: Keys = &[
    ("W / S, wheel", "zoom in / out about the pointer"),
    ("A / D, drag", "pan left / right (drag: any direction)"),
    ("click a group", "open a closed group, close an opened one"),
    ("O / C", "open everything beneath the selected group / close it"),
    ("+ / −", "open / close one more level"),
    ("X", "drill down along the critical path"),
    ("G, L, M", "filtered view, local critical path, similarity marks on / off"),
    ("F", "fit the whole graph"),
];

const EXECGRAPH: Keys = &[
    ("W / S, wheel", "zoom time in / out about the pointer"),
    ("A / D, drag", "pan earlier / later"),
    ("Shift+wheel", "scroll columns (threads)"),
    ("hover", "a thread's events and times"),
    ("F", "fit the whole graph"),
];

const PARTICLES: Keys =
    &[("Space", "play / pause"), ("W / S, wheel", "zoom in / out"), ("A / D, drag", "pan"), ("F", "fit")];

const FLAME: Keys = &[
    ("click a frame", "zoom into its subtree (the zoomed root or an ancestor: back up)"),
    ("hover", "the call path, its count, inclusive and exclusive time and share"),
    ("↑ / ↓, wheel, drag", "scroll the levels of a deep tree"),
    ("F", "the whole tree again"),
];

/// Keys every view shares, listed after the view's own.
pub const COMMON: Keys = &[
    ("1 / 2 / 3 …", "switch view (the time range is kept)"),
    ("Esc", "cancel loading, close this overlay"),
    ("?", "show or hide these shortcuts"),
];

/// The view's own keys, by its kind.
pub fn for_kind(kind: &str) -> Keys {
    match kind {
        "grains" => GRAINS,
        "aggregate" => AGGREGATE,
        "execgraph" => EXECGRAPH,
        "moments" | "utilization" => MOMENTS,
        "particles" => PARTICLES,
        "flamegraph" => FLAME,
        _ => TIME,
    }
}

/// The view's keys then the common ones, as JSON `[{keys, action}]`.
pub fn to_json(kind: &str) -> serde_json::Value {
    let rows = for_kind(kind).iter().chain(COMMON.iter());
    serde_json::Value::Array(rows.map(|(k, a)| serde_json::json!({"keys": k, "action": a})).collect())
}
