//! The timeline pane: every location's intervals on one time axis (scene::timeline does the drawing); the
//! hover names a slice, or an arrow's two ends.

use super::{num, Hover, Pane};
use crate::analyses::busy::glob_match;
use crate::layouts::timeline::{TimelineLayout, TimelineMetrics};
use crate::model::{LocationId, MessageKind, Trace};
use crate::scene::timeline::{format_duration, region_colors, TimelineScene, TimelineView, AXIS_PX};
use crate::scene::{Rgba, Scene};
use crate::views::options::{TimelineOptions, ViewOptions};
use serde_json::json;
use std::rc::Rc;

/// At most this many rows are listed in the view state (from the first visible row on).
const MAX_STATE_ROWS: usize = 2_000;

pub struct TimelinePane {
    trace: Rc<Trace>,
    layout: TimelineLayout,
    colors: Vec<Rgba>,
    view: TimelineView,
    highlight: Option<usize>,
    /// The location filter (a glob over "process / location" or the location's name); None shows all.
    locations: Option<String>,
}

/// Does location `l` pass the filter `pattern` (by its name, or its process and name as "P / L")?
pub fn location_matches(trace: &Trace, l: LocationId, pattern: &str) -> bool {
    let name = trace.location_name(l);
    let process = trace.process_name(trace.locations.process[l.index()]);
    glob_match(pattern, name) || glob_match(pattern, &format!("{process} / {name}"))
}

impl TimelinePane {
    pub fn new(trace: Rc<Trace>, width: f32, height: f32) -> Self {
        let layout = TimelineLayout::new(&trace, TimelineMetrics::default());
        let colors = region_colors(&trace);
        let view = TimelineView::fit(&trace, width, height);
        TimelinePane { trace, layout, colors, view, highlight: None, locations: None }
    }

    fn scene_builder(&self) -> TimelineScene<'_> {
        TimelineScene { trace: &self.trace, layout: &self.layout, colors: &self.colors }
    }

    /// A flow's (or message's) hover: both ends named by the slice each is bound to, with its place.
    fn flow_hover(&self, j: usize) -> Hover {
        let t = &self.trace;
        let m = &t.messages;
        let (from, to) = self.scene_builder().flow_ends(j);
        let end = |what: &str, l: LocationId, at: u64, slice: Option<usize>| {
            let process = t.process_name(t.locations.process[l.index()]);
            let name = slice.map_or("(no slice)", |i| t.region_name(t.intervals.region[i]));
            format!("{what} {name} · {process} · {} at {}", t.location_name(l), format_duration(at))
        };
        let kind = if m.kind[j] == MessageKind::Flow { "flow" } else { "message" };
        let name = t.str(m.name[j]);
        let slice_name = |s: Option<usize>| s.map(|i| t.region_name(t.intervals.region[i]).to_string());
        Hover {
            title: if name.is_empty() { kind.to_string() } else { format!("{kind} {name}") },
            lines: vec![
                end("from", m.sender[j], m.send_ns[j], from),
                end("to", m.receiver[j], m.recv_ns[j], to),
                format!("after {}", format_duration(m.recv_ns[j].saturating_sub(m.send_ns[j]))),
            ],
            detail: json!({
                "flow": j, "from": slice_name(from), "to": slice_name(to),
                "from_interval": from, "to_interval": to,
                "from_location": m.sender[j].0, "to_location": m.receiver[j].0,
                "send_ns": m.send_ns[j], "recv_ns": m.recv_ns[j],
            }),
        }
    }
}

/// How near (CSS px) the pointer must be to an arrow to hover it.
const FLOW_HIT_PX: f32 = 3.0;

impl Pane for TimelinePane {
    fn kind(&self) -> &'static str {
        "timeline"
    }
    fn resize(&mut self, width: f32, height: f32) {
        self.view.width = width;
        self.view.height = height;
        self.view.scroll_by(0.0, &self.layout);
    }
    fn zoom(&mut self, x: f32, factor: f64) {
        self.view.zoom_at(x, factor, self.trace.span_ns);
    }
    fn pan(&mut self, dx: f32) {
        self.view.pan_px(dx, self.trace.span_ns);
    }
    fn scroll(&mut self, dy: f32) {
        self.view.scroll_by(dy, &self.layout);
    }
    fn fit(&mut self) {
        self.view = TimelineView::fit(&self.trace, self.view.width, self.view.height);
    }
    fn hover(&mut self, x: f32, y: f32) -> Option<Hover> {
        // An arrow under the pointer wins over the slice beneath it: arrows are thin and drawn on top.
        if let Some(j) = self.scene_builder().hit_flow(&self.view, x, y, FLOW_HIT_PX) {
            self.highlight = None;
            return Some(self.flow_hover(j));
        }
        self.highlight = self.scene_builder().hit(&self.view, x, y);
        let i = self.highlight?;
        let t = &self.trace;
        let iv = &t.intervals;
        let loc = iv.location[i];
        let r = iv.region[i];
        let category = t.str(t.regions.category[r.index()]);
        let process = t.process_name(t.locations.process[loc.index()]);
        let mut lines = vec![
            format!("{process} · {}", t.location_name(loc)),
            format!("start {}   duration {}", format_duration(iv.start_ns[i]), format_duration(iv.dur_ns[i])),
        ];
        if !category.is_empty() {
            lines.push(format!("category {category}   depth {}", iv.depth[i]));
        }
        Some(Hover {
            title: t.region_name(r).to_string(),
            lines,
            detail: json!({
                "interval": i, "location": loc.0, "start_ns": iv.start_ns[i], "dur_ns": iv.dur_ns[i], "depth": iv.depth[i],
            }),
        })
    }
    fn clear_hover(&mut self) {
        self.highlight = None;
    }
    fn scene(&self) -> Scene {
        self.scene_builder().build(&self.view, self.highlight)
    }
    fn state(&self) -> serde_json::Value {
        // Every row while there are few; past that the rows from the first visible one on, a bounded
        // number: a trace with a million threads must not turn each call into a million objects.
        let all = &self.layout.rows;
        let from = if all.len() <= MAX_STATE_ROWS {
            0
        } else {
            let visible = self.layout.rows_in(self.view.scroll_y, self.view.scroll_y + self.view.height - AXIS_PX);
            visible.start.min(all.len() - MAX_STATE_ROWS)
        };
        let rows: Vec<_> = all[from..all.len().min(from + MAX_STATE_ROWS)]
            .iter()
            .map(|row| {
                json!({
                    "location": row.location.0,
                    "name": self.trace.location_name(row.location),
                    "process": self.trace.process_name(row.process),
                    "y": self.view.y_of(row.y),
                    "lanes": row.lanes,
                })
            })
            .collect();
        json!({
            "view": "timeline",
            "t0_ns": self.view.t0_ns, "t1_ns": self.view.t1_ns, "scroll_y": self.view.scroll_y,
            "width": self.view.width, "height": self.view.height, "track_x0": self.view.track_x0(),
            "axis_px": AXIS_PX, "lane_px": self.layout.metrics.lane_px, "span_ns": self.trace.span_ns,
            "rows": rows,
            "rows_from": from,
            "row_count": all.len(),
            "locations": self.locations,
        })
    }
    fn time_range(&self) -> Option<(f64, f64)> {
        Some((self.view.t0_ns, self.view.t1_ns))
    }
    fn set_time_range(&mut self, t0_ns: f64, t1_ns: f64) {
        if t0_ns.is_finite() && t1_ns.is_finite() && t1_ns > t0_ns {
            self.view.t0_ns = t0_ns;
            self.view.t1_ns = t1_ns;
        }
    }
    fn options(&self) -> serde_json::Value {
        TimelineOptions { locations: self.locations.clone() }.describe()
    }
    fn configure(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut o = TimelineOptions::default();
        o.parse(key, value).map_err(|e| e.to_string())?;
        let pattern = o.locations.as_deref();
        let layout = match pattern {
            Some(p) => TimelineLayout::of_locations(&self.trace, TimelineMetrics::default(), |l| {
                location_matches(&self.trace, l, p)
            }),
            None => TimelineLayout::new(&self.trace, TimelineMetrics::default()),
        };
        if layout.rows.is_empty() {
            return Err(format!("no location matches '{value}'"));
        }
        self.layout = layout;
        self.locations = pattern.map(str::to_string);
        self.highlight = None;
        self.view.scroll_by(-self.view.scroll_y, &self.layout);
        Ok(())
    }
    fn restore(&mut self, s: &serde_json::Value) {
        if let (Some(t0), Some(t1)) = (num(s, "t0_ns"), num(s, "t1_ns")) {
            self.set_time_range(t0, t1);
        }
        if let Some(y) = num(s, "scroll_y") {
            self.view.scroll_by(y as f32 - self.view.scroll_y, &self.layout);
        }
    }
}
