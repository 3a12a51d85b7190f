//! One typed option schema per view: the options each view offers (busy definition, sort key, colour, problem
//! view, thresholds, aggregation method, filter, drill depth, location filter, minimum edge length, particle
//! speed...), each described once by an [`OptionSpec`] (key, label, help, kind, default, option or action,
//! permalink key, CLI flag). The CLI's flags validate through [`ViewOptions::parse`] and take their help from
//! the schema; the page renders its controls from [`ViewOptions::describe`] and writes permalinks from
//! [`ViewOptions::to_pairs`]; each pane's `configure` parses here and applies the typed result, so a value
//! the page refuses, the CLI refuses with the same words.
//!
//! Must not: compute anything about a trace (a pane checks what depends on the loaded data, such as whether a
//! location matches), or know the DOM.

use crate::layouts::execgraph::bundle::scale_for_min_px;
use crate::layouts::execgraph::Scale;
use crate::scene::grains::ColorBy;
use crate::scene::groups::ColorOverrides;
use serde::Serialize;
use serde_json::{json, Value};
use thiserror::Error;
use weft_analyses::aggregate::Method;
use weft_analyses::busy::BusyDefinition;
use weft_analyses::execgraph::ExecGraph;
use weft_analyses::grains::problems::Bound;
use weft_analyses::grains::{Thresholds, METRICS};
use weft_analyses::moments::MomentKey;

/// Why an option was refused: it does not exist, or its value is not one the option takes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("the {view} view has no option '{key}'")]
    UnknownKey { view: &'static str, key: String },
    #[error("{key} must be {allowed}, not '{value}'")]
    BadValue { key: &'static str, value: String, allowed: String },
}

/// A persistent option (in permalinks and CLI flags) or an action (play, step, open: done, not kept).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Option,
    Action,
}

/// Who applies an option: the view itself, or the worker (which lays the view out again, or computes what the
/// view shows under it: a moments view's busy definition).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Applies {
    View,
    Worker,
}

#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub value: &'static str,
    pub label: &'static str,
}

/// A choice's open entry: the value is `prefix` + typed text + `suffix` (busy = `pattern:GLOB`, a minimum
/// edge of `8px`). `default` is typed in when the entry is picked; empty: the user types first.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Other {
    pub value: &'static str,
    pub label: &'static str,
    pub prefix: &'static str,
    pub suffix: &'static str,
    pub placeholder: &'static str,
    pub default: &'static str,
    /// The typed text is a number (a number input on the page).
    pub number: bool,
    /// The entry in an error's list of what is allowed (`pattern:GLOB`).
    pub allowed: &'static str,
}

#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Kind {
    Choice {
        choices: &'static [Choice],
        other: Option<Other>,
    },
    /// `max` None: unbounded.
    Number {
        min: f64,
        max: Option<f64>,
        step: f64,
        integer: bool,
    },
    Bool,
    /// Free text; `allowed` says what it takes, in words.
    Text {
        placeholder: &'static str,
        allowed: &'static str,
    },
    /// An action without a value.
    Trigger,
}

/// One option or action of a view, described once for the CLI, the page and permalinks.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct OptionSpec {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    /// The value when nothing chose one, as text `parse` takes.
    pub default: &'static str,
    pub role: Role,
    /// The permalink's hash key (old links keep working: these are the keys links always used).
    pub link: &'static str,
    /// The CLI's long flag where a subcommand offers the option; None: the page only.
    pub flag: Option<&'static str>,
    pub applies: Applies,
    /// The page shows a control for it; false for an option set only by links and embeds (the location
    /// filter, `data-weft-locations`).
    pub control: bool,
}

impl OptionSpec {
    const fn option(
        key: &'static str,
        label: &'static str,
        help: &'static str,
        kind: Kind,
        default: &'static str,
    ) -> Self {
        OptionSpec {
            key,
            label,
            help,
            kind,
            default,
            role: Role::Option,
            link: key,
            flag: None,
            applies: Applies::View,
            control: true,
        }
    }
    const fn action(key: &'static str, help: &'static str, kind: Kind) -> Self {
        OptionSpec { role: Role::Action, ..OptionSpec::option(key, key, help, kind, "") }
    }
    const fn link(self, link: &'static str) -> Self {
        OptionSpec { link, ..self }
    }
    const fn flag(self, flag: &'static str) -> Self {
        OptionSpec { flag: Some(flag), ..self }
    }
    const fn worker(self) -> Self {
        OptionSpec { applies: Applies::Worker, ..self }
    }
    const fn no_control(self) -> Self {
        OptionSpec { control: false, ..self }
    }

    /// What the option takes, in words, for errors ("compute, any or pattern:GLOB").
    pub fn allowed(&self) -> String {
        match &self.kind {
            Kind::Choice { choices, other } => {
                let mut v: Vec<&str> = choices.iter().map(|c| c.value).collect();
                v.extend(other.map(|o| o.allowed));
                match v.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                    _ => v.concat(),
                }
            }
            Kind::Number { min, max, integer, .. } => {
                let what = if *integer { "a whole number" } else { "a number" };
                match max {
                    Some(max) => format!("{what} from {min} to {max}"),
                    None => format!("{what} of at least {min}"),
                }
            }
            Kind::Bool => "on or off".to_string(),
            Kind::Text { allowed, .. } => allowed.to_string(),
            Kind::Trigger => "empty".to_string(),
        }
    }

    /// The typed error for `value`.
    pub fn bad(&self, value: &str) -> OptionError {
        OptionError::BadValue { key: self.key, value: value.to_string(), allowed: self.allowed() }
    }

    /// A number this option takes (finite, within the range, whole where it must be).
    pub fn number(&self, value: &str) -> Result<f64, OptionError> {
        let Kind::Number { min, max, integer, .. } = self.kind else { return Err(self.bad(value)) };
        let x: f64 = value.trim().parse().map_err(|_| self.bad(value))?;
        let fits = x.is_finite() && x >= min && max.is_none_or(|m| x <= m) && (!integer || x.fract() == 0.0);
        fits.then_some(x).ok_or_else(|| self.bad(value))
    }

    /// A boolean: on/true/1 or off/false/0 (empty is off).
    pub fn boolean(&self, value: &str) -> Result<bool, OptionError> {
        match value.trim() {
            "on" | "true" | "1" => Ok(true),
            "off" | "false" | "0" | "" => Ok(false),
            _ => Err(self.bad(value)),
        }
    }

    /// The value if it is one of the listed choices.
    pub fn choice<'v>(&self, value: &'v str) -> Result<&'v str, OptionError> {
        match &self.kind {
            Kind::Choice { choices, .. } if choices.iter().any(|c| c.value == value) => Ok(value),
            _ => Err(self.bad(value)),
        }
    }

    /// Checks a value by the kind alone (actions: their targets are checked by the view that acts).
    pub fn check(&self, value: &str) -> Result<(), OptionError> {
        match &self.kind {
            Kind::Choice { other: None, .. } => self.choice(value).map(|_| ()),
            Kind::Choice { other: Some(o), .. } => {
                let typed = value.strip_prefix(o.prefix).and_then(|v| v.strip_suffix(o.suffix));
                let typed_ok = typed.is_some_and(|t| !t.trim().is_empty());
                (typed_ok || self.choice(value).is_ok()).then_some(()).ok_or_else(|| self.bad(value))
            }
            Kind::Number { .. } => self.number(value).map(|_| ()),
            Kind::Bool => self.boolean(value).map(|_| ()),
            Kind::Text { .. } | Kind::Trigger => Ok(()),
        }
    }
}

/// A view's typed options and the one schema that describes them.
pub trait ViewOptions: Clone + Default + PartialEq + std::fmt::Debug {
    /// The view's name, as the page's view switcher says it.
    const VIEW: &'static str;
    /// Every option and action of the view; options in the order they are applied from a permalink.
    fn schema() -> &'static [OptionSpec];
    /// Set one option (role `Option`) from its text.
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError>;
    /// An option's value as text that `set` takes back.
    fn get(&self, key: &str) -> String;

    fn spec(key: &str) -> Result<&'static OptionSpec, OptionError> {
        find_spec(Self::VIEW, Self::schema(), key)
    }

    /// Set an option from text, or check an action's value; a key the view lacks or a value the option
    /// does not take is a typed error naming both.
    fn parse(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let spec = Self::spec(key)?;
        match spec.role {
            Role::Option => self.set(spec, value),
            Role::Action => spec.check(value),
        }
    }

    /// The persistent options as permalink pairs (hash key, value), in schema order.
    fn to_pairs(&self) -> Vec<(&'static str, String)> {
        pairs_of(Self::schema(), &|k| self.get(k))
    }

    /// Options from permalink pairs: keys that are not options of this view are skipped (a link holds
    /// geometry and other views' options too); a present option with a bad value is an error.
    fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, OptionError> {
        let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        let mut o = Self::default();
        for spec in Self::schema().iter().filter(|s| s.role == Role::Option) {
            if let Some((_, v)) = pairs.iter().rev().find(|(k, _)| *k == spec.link) {
                o.set(spec, v)?;
            }
        }
        Ok(o)
    }

    /// The schema with the current values, for the page: `{view, options: [spec + value], pairs}`.
    fn describe(&self) -> Value {
        describe_of(Self::VIEW, Self::schema(), &|k| self.get(k))
    }
}

// The schema-wide work is done once, not per view type (the page's download stays small).

fn find_spec(view: &'static str, schema: &'static [OptionSpec], key: &str) -> Result<&'static OptionSpec, OptionError> {
    schema.iter().find(|s| s.key == key).ok_or_else(|| OptionError::UnknownKey { view, key: key.to_string() })
}

fn pairs_of(schema: &'static [OptionSpec], get: &dyn Fn(&str) -> String) -> Vec<(&'static str, String)> {
    schema.iter().filter(|s| s.role == Role::Option).map(|s| (s.link, get(s.key))).collect()
}

fn describe_of(view: &'static str, schema: &'static [OptionSpec], get: &dyn Fn(&str) -> String) -> Value {
    let options: Vec<Value> = schema
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
            if s.role == Role::Option {
                v["value"] = Value::String(get(s.key));
            }
            v
        })
        .collect();
    json!({ "view": view, "options": options, "pairs": pairs_of(schema, get) })
}

/// Replace the listed choices of `key` in a [`ViewOptions::describe`] (the problem views a profile has,
/// with their counts).
pub fn set_choices(described: &mut Value, key: &str, choices: Vec<(String, String)>) {
    if let Some(o) = option_mut(described, key) {
        o["kind"]["choices"] =
            choices.into_iter().map(|(value, label)| json!({"value": value, "label": label})).collect();
    }
}

/// Set the upper bound of a number option in a [`ViewOptions::describe`] (the tree's depth).
pub fn set_max(described: &mut Value, key: &str, max: f64) {
    if let Some(o) = option_mut(described, key) {
        o["kind"]["max"] = json!(max);
    }
}

fn option_mut<'a>(described: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    described["options"].as_array_mut()?.iter_mut().find(|o| o["key"] == key)
}

/// Text option: a location filter (None for everything: empty or `*`).
fn location_filter(value: &str) -> Option<String> {
    Some(value.trim()).filter(|p| !p.is_empty() && *p != "*").map(str::to_string)
}

const LOCATIONS: OptionSpec = OptionSpec::option(
    "locations",
    "locations",
    "only the locations whose name (or `process / name`) matches this glob",
    Kind::Text { placeholder: "locations, e.g. Rank 0*", allowed: "a glob of location names" },
    "",
)
.no_control();

// ---- timeline ----

/// Ids as text: `3,5-9,12` (ascending ranges, merged); empty for none. Kept as ranges, so a link naming
/// `0-4000000000` costs two numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet {
    ranges: Vec<(u32, u32)>,
}

impl IdSet {
    /// At most this many ranges in one value.
    pub const MAX_RANGES: usize = 100_000;

    pub fn parse(text: &str) -> Option<IdSet> {
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
                None => {
                    let a = part.parse::<u32>().ok()?;
                    (a, a)
                }
            };
            if a > b || ranges.len() >= Self::MAX_RANGES {
                return None;
            }
            ranges.push((a, b));
        }
        Some(IdSet::from_ranges(ranges))
    }

    pub fn from_ranges(mut ranges: Vec<(u32, u32)>) -> IdSet {
        ranges.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match out.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        IdSet { ranges: out }
    }

    pub fn contains(&self, id: u32) -> bool {
        let k = self.ranges.partition_point(|r| r.1 < id);
        self.ranges.get(k).is_some_and(|r| r.0 <= id)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// With `id` in (`on`) or out.
    pub fn with(&self, id: u32, on: bool) -> IdSet {
        let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(self.ranges.len() + 1);
        for &(a, b) in &self.ranges {
            if on || id < a || id > b {
                ranges.push((a, b));
            } else {
                if a < id {
                    ranges.push((a, id - 1));
                }
                if id < b {
                    ranges.push((id + 1, b));
                }
            }
        }
        if on {
            ranges.push((id, id));
        }
        IdSet::from_ranges(ranges)
    }

    pub fn to_text(&self) -> String {
        let parts: Vec<String> =
            self.ranges.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
        parts.join(",")
    }
}

const COMPACT: OptionSpec = OptionSpec::option(
    "compact",
    "compact rows",
    "rows as thin as needed for every location to fit the window (labels thinned to what fits)",
    Kind::Bool,
    "off",
);

const HIDDEN: OptionSpec = OptionSpec::option(
    "hidden",
    "hidden locations",
    "locations hidden from the timeline, by id (e.g. 3,5-9): the rows panel's checklist",
    Kind::Text { placeholder: "3,5-9", allowed: "location ids, e.g. 3,5-9" },
    "",
)
.link("hide")
.no_control();

const FOLDED: OptionSpec = OptionSpec::option(
    "folded",
    "collapsed processes",
    "processes whose threads are folded into one summary row, by id (e.g. 0,2-4)",
    Kind::Text { placeholder: "0,2-4", allowed: "process ids, e.g. 0,2-4" },
    "",
)
.link("fold")
.no_control();

const COLORS: OptionSpec = OptionSpec::option(
    "colors",
    "colours",
    "colours chosen in the legend: a function group's (its functions spread around it) or a region's, e.g. \
     mpi_coll:7b2d8e,r12:1f77b4",
    Kind::Text { placeholder: "mpi_coll:7b2d8e,r12:1f77b4", allowed: "group:rrggbb or rID:rrggbb, comma-separated" },
    "",
)
.link("col")
.no_control();

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelineOptions {
    pub locations: Option<String>,
    pub compact: bool,
    pub hidden: IdSet,
    pub folded: IdSet,
    /// Colours the user chose in the legend (`scene::groups`).
    pub colors: ColorOverrides,
}

impl ViewOptions for TimelineOptions {
    const VIEW: &'static str = "timeline";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[LOCATIONS, COMPACT, HIDDEN, FOLDED, COLORS];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        match spec.key {
            "compact" => self.compact = spec.boolean(value)?,
            "colors" => self.colors = ColorOverrides::parse(value).ok_or_else(|| spec.bad(value))?,
            "hidden" => self.hidden = IdSet::parse(value).ok_or_else(|| spec.bad(value))?,
            "folded" => self.folded = IdSet::parse(value).ok_or_else(|| spec.bad(value))?,
            _ => self.locations = location_filter(value),
        }
        Ok(())
    }
    fn get(&self, key: &str) -> String {
        match key {
            "compact" => if self.compact { "on" } else { "off" }.to_string(),
            "hidden" => self.hidden.to_text(),
            "folded" => self.folded.to_text(),
            "colors" => self.colors.to_text(),
            _ => self.locations.clone().unwrap_or_default(),
        }
    }
}

// ---- moments (utilization) ----

/// The extra quantity the moment view colours bars by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MomentColor {
    #[default]
    None,
    BytesSent,
    MessagesSent,
    Spread,
}

impl MomentColor {
    pub fn key(self) -> &'static str {
        match self {
            MomentColor::None => "none",
            MomentColor::BytesSent => "bytes_sent",
            MomentColor::MessagesSent => "messages_sent",
            MomentColor::Spread => "spread",
        }
    }
}

/// Whose moments the moments view shows: those of the visible time window (they follow the zoom, the paper's
/// Section 6 "moment analysis on a smaller time interval"), or those of the whole trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MomentSpan {
    #[default]
    Window,
    Whole,
}

impl MomentSpan {
    pub fn key(self) -> &'static str {
        match self {
            MomentSpan::Window => "window",
            MomentSpan::Whole => "whole",
        }
    }
}

/// The moment view's time axis: the Gantt chart's (the two halves zoom together), or its own, fitted to the
/// glyphs of the moments shown (the paper's Section 5: moments need a much narrower time scale).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MomentAxis {
    #[default]
    Same,
    Own,
}

impl MomentAxis {
    pub fn key(self) -> &'static str {
        match self {
            MomentAxis::Same => "same",
            MomentAxis::Own => "own",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MomentsOptions {
    pub busy: BusyDefinition,
    pub sort: MomentKey,
    pub color: MomentColor,
    pub locations: Option<String>,
    pub span: MomentSpan,
    pub axis: MomentAxis,
}

/// The busy definition as text `parse` takes (`pattern:GLOB` for a pattern).
pub fn busy_text(d: &BusyDefinition) -> String {
    match d {
        BusyDefinition::Pattern(p) => format!("pattern:{p}"),
        other => other.short_name(),
    }
}

impl ViewOptions for MomentsOptions {
    const VIEW: &'static str = "moments";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[
            OptionSpec::option(
                "busy",
                "busy =",
                "what counts as busy: any region minus communication and synchronization (compute), any region, the wait states (waiting: the waiting part of each MPI call), or regions whose name matches a glob (pattern:GLOB)",
                Kind::Choice {
                    choices: &[
                        Choice { value: "compute", label: "compute (regions minus communication)" },
                        Choice { value: "any", label: "any region" },
                        Choice { value: "waiting", label: "waiting (wait states)" },
                    ],
                    other: Some(Other {
                        value: "pattern",
                        label: "regions matching…",
                        prefix: "pattern:",
                        suffix: "",
                        placeholder: "region glob, e.g. compute*",
                        default: "",
                        number: false,
                        allowed: "pattern:GLOB",
                    }),
                },
                "compute",
            )
            .flag("busy")
            // The page's moments of another definition come from the worker (views::moments).
            .worker(),
            OptionSpec::option(
                "sort",
                "sort",
                "row order: by location, or by a moment",
                Kind::Choice {
                    choices: &[
                        Choice { value: "location", label: "by location" },
                        Choice { value: "m0", label: "by m0 (busy)" },
                        Choice { value: "m1", label: "by m1 (mean)" },
                        Choice { value: "m2", label: "by m2 (spread)" },
                        Choice { value: "m3", label: "by m3 (skew)" },
                    ],
                    other: None,
                },
                "location",
            )
            .flag("sort"),
            OptionSpec::option(
                "color",
                "colour",
                "an extra quantity shown as the bars' colour",
                Kind::Choice {
                    choices: &[
                        Choice { value: "none", label: "grey bars" },
                        Choice { value: "bytes_sent", label: "by bytes sent" },
                        Choice { value: "messages_sent", label: "by messages sent" },
                        Choice { value: "spread", label: "by spread 2·m2/m0" },
                    ],
                    other: None,
                },
                "none",
            ),
            OptionSpec::option(
                "span",
                "moments of",
                "the moments of the visible time window (they follow the zoom) or of the whole trace",
                Kind::Choice {
                    choices: &[
                        Choice { value: "window", label: "the visible window" },
                        Choice { value: "whole", label: "the whole trace" },
                    ],
                    other: None,
                },
                "window",
            ),
            OptionSpec::option(
                "axis",
                "moment axis",
                "the moment view's time axis: the Gantt chart's, or its own, fitted to the glyphs shown",
                Kind::Choice {
                    choices: &[
                        Choice { value: "same", label: "as the Gantt chart" },
                        Choice { value: "own", label: "fitted to the glyphs" },
                    ],
                    other: None,
                },
                "same",
            ),
            LOCATIONS,
        ];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        match spec.key {
            "locations" => self.locations = location_filter(value),
            "span" => {
                self.span = match spec.choice(value)? {
                    "whole" => MomentSpan::Whole,
                    _ => MomentSpan::Window,
                }
            }
            "axis" => {
                self.axis = match spec.choice(value)? {
                    "own" => MomentAxis::Own,
                    _ => MomentAxis::Same,
                }
            }
            "busy" => {
                self.busy = match value {
                    "compute" => BusyDefinition::Compute,
                    "any" => BusyDefinition::Any,
                    "waiting" => BusyDefinition::Waiting,
                    p => match p.strip_prefix("pattern:").filter(|g| !g.is_empty()) {
                        Some(glob) => BusyDefinition::Pattern(glob.to_string()),
                        None => return Err(spec.bad(value)),
                    },
                }
            }
            "sort" => self.sort = MomentKey::parse(value).ok_or_else(|| spec.bad(value))?,
            _ => {
                self.color = match spec.choice(value)? {
                    "bytes_sent" => MomentColor::BytesSent,
                    "messages_sent" => MomentColor::MessagesSent,
                    "spread" => MomentColor::Spread,
                    _ => MomentColor::None,
                }
            }
        }
        Ok(())
    }
    fn get(&self, key: &str) -> String {
        match key {
            "locations" => self.locations.clone().unwrap_or_default(),
            "busy" => busy_text(&self.busy),
            "sort" => self.sort.name().to_string(),
            "span" => self.span.key().to_string(),
            "axis" => self.axis.key().to_string(),
            _ => self.color.key().to_string(),
        }
    }
}

// ---- execution graph ----

/// How short flow edges are drawn: at true scale, or raised to a length in pixels of the true-scale
/// drawing or in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum MinEdge {
    #[default]
    True,
    Px(f64),
    Ns(u64),
}

impl MinEdge {
    /// The layout's scale for this graph.
    pub fn scale(self, g: &ExecGraph) -> Scale {
        match self {
            MinEdge::True => Scale::True,
            MinEdge::Px(px) => scale_for_min_px(g, px),
            MinEdge::Ns(min_ns) => Scale::MinEdge { min_ns },
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExecgraphOptions {
    pub min_edge: MinEdge,
}

impl ViewOptions for ExecgraphOptions {
    const VIEW: &'static str = "execgraph";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[OptionSpec::option(
            "min_edge",
            "time",
            "raise short flow edges to this length: pixels of the 800-pixel true-scale drawing (14px, enough to clear the node shapes) or nanoseconds (5000ns)",
            Kind::Choice {
                choices: &[Choice { value: "true", label: "true scale" }],
                other: Some(Other {
                    value: "min",
                    label: "short edges raised to",
                    prefix: "",
                    suffix: "px",
                    placeholder: "14",
                    default: "14",
                    number: true,
                    allowed: "a length in px (14px) or ns (5000ns)",
                }),
            },
            "true",
        )
        .link("minedge")
        .flag("min-edge")
        .worker()];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        let v = value.trim();
        self.min_edge = if v.is_empty() || v == "true" {
            MinEdge::True
        } else if let Some(px) = v.strip_suffix("px") {
            let px: f64 = px.trim().parse().map_err(|_| spec.bad(value))?;
            if !(px.is_finite() && px >= 0.0) {
                return Err(spec.bad(value));
            }
            MinEdge::Px(px)
        } else {
            MinEdge::Ns(v.strip_suffix("ns").unwrap_or(v).trim().parse().map_err(|_| spec.bad(value))?)
        };
        Ok(())
    }
    fn get(&self, _key: &str) -> String {
        match self.min_edge {
            MinEdge::True => "true".to_string(),
            MinEdge::Px(px) => format!("{px}px"),
            MinEdge::Ns(ns) => format!("{ns}ns"),
        }
    }
}

// ---- grain graph and aggregated grain graph ----

/// Problem thresholds: the papers' or the grain-graphs prototype's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThresholdsPreset {
    #[default]
    Paper,
    Prototype,
}

impl ThresholdsPreset {
    pub fn thresholds(self) -> Thresholds {
        match self {
            ThresholdsPreset::Paper => Thresholds::paper(),
            ThresholdsPreset::Prototype => Thresholds::prototype(),
        }
    }
    /// The preset a set of thresholds came from (custom ones count as the papers').
    pub fn of(t: &Thresholds) -> Self {
        if t.source == "prototype" {
            ThresholdsPreset::Prototype
        } else {
            ThresholdsPreset::Paper
        }
    }
}

const PROBLEM_CHOICES: &[Choice] = &[
    Choice { value: "structure", label: "structure" },
    Choice { value: "parallel_benefit", label: "parallel benefit" },
    Choice { value: "work_deviation", label: "work deviation" },
    Choice { value: "memory_hierarchy_utilization", label: "memory hierarchy utilization" },
    Choice { value: "sibling_work_balance", label: "sibling work balance" },
    Choice { value: "sibling_scatter", label: "sibling scatter" },
    Choice { value: "instantaneous_parallelism_median", label: "instantaneous parallelism median" },
    Choice { value: "instantaneous_parallelism_min", label: "instantaneous parallelism min" },
    Choice { value: "instantaneous_parallelism_max", label: "instantaneous parallelism max" },
];

const PROBLEM: OptionSpec = OptionSpec::option(
    "problem",
    "view",
    "the structural view, or the problem view of one metric (problematic grains in red)",
    Kind::Choice { choices: PROBLEM_CHOICES, other: None },
    "structure",
)
.flag("problem");

const THRESHOLDS: OptionSpec = OptionSpec::option(
    "thresholds",
    "thresholds",
    "problem thresholds: the papers' or the grain-graphs prototype's",
    Kind::Choice {
        choices: &[Choice { value: "paper", label: "papers" }, Choice { value: "prototype", label: "prototype" }],
        other: None,
    },
    "paper",
)
.flag("thresholds");

/// A threshold the user sets, or the preset's (`preset`): the page's control, the permalink's value.
const fn limit(key: &'static str, label: &'static str, help: &'static str, placeholder: &'static str) -> OptionSpec {
    OptionSpec::option(
        key,
        label,
        help,
        Kind::Choice {
            choices: &[Choice { value: "preset", label: "preset" }],
            other: Some(Other {
                value: "value",
                label: "set…",
                prefix: "",
                suffix: "",
                placeholder,
                default: placeholder,
                number: true,
                allowed: "a number",
            }),
        },
        "preset",
    )
}

const CORES: OptionSpec = OptionSpec::option(
    "cores",
    "cores",
    "the cores the program ran on (instantaneous parallelism below them is a problem; sibling scatter beyond a \
     quarter of them); auto: counted from the grains' cpu ids, which a GraphML file does not carry",
    Kind::Choice {
        choices: &[Choice { value: "auto", label: "auto" }],
        other: Some(Other {
            value: "n",
            label: "set…",
            prefix: "",
            suffix: "",
            placeholder: "cores",
            default: "8",
            number: true,
            allowed: "a whole number of cores from 1",
        }),
    },
    "auto",
);

/// The metric thresholds one can set, each with its key (the metric's name) and where it goes in
/// [`Thresholds`]. Setting one keeps the preset's direction (below or above) and changes its value.
const LIMITS: [OptionSpec; 5] = [
    limit(
        "memory_hierarchy_utilization",
        "mem. hierarchy limit",
        "a grain is a problem when its memory hierarchy utilization crosses this (papers: below 2; prototype: above 0.5)",
        "1.5",
    ),
    limit(
        "parallel_benefit",
        "benefit limit",
        "a grain is a problem when its parallel benefit is below this (both presets: 1)",
        "0.8",
    ),
    limit(
        "work_deviation",
        "deviation limit",
        "a grain is a problem when its work deviation is above this (both presets: 2)",
        "1.5",
    ),
    limit(
        "sibling_work_balance",
        "balance limit",
        "a grain is a problem when its siblings' work balance is above this (papers: 1; prototype: 2)",
        "1.5",
    ),
    limit(
        "sibling_scatter",
        "scatter limit",
        "a grain is a problem when its siblings ran scattered over more cores than this (both presets: a quarter of \
         the cores, a socket's)",
        "2",
    ),
];

/// Whether `key` is one of the grain views' threshold options (changing one recomputes the problems and
/// the aggregated view built on them).
pub fn is_threshold_key(key: &str) -> bool {
    key == "thresholds" || key == "cores" || LIMITS.iter().any(|l| l.key == key)
}

/// Thresholds set one by one over a preset; None: the preset's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThresholdOverrides {
    pub cores: Option<u32>,
    /// In [`LIMITS`]'s order: memory hierarchy utilization, parallel benefit, work deviation, sibling work
    /// balance, sibling scatter (cores).
    pub limits: [Option<f64>; 5],
}

impl ThresholdOverrides {
    /// `preset`'s thresholds with these set over them.
    pub fn apply(&self, preset: ThresholdsPreset) -> Thresholds {
        let mut t = preset.thresholds();
        t.cores = self.cores.or(t.cores);
        let [mhu, pb, wd, swb, scatter] = self.limits;
        if let Some(v) = mhu {
            t.mem_hier_util = t.mem_hier_util.at(v);
        }
        if let Some(v) = pb {
            t.parallel_benefit = t.parallel_benefit.at(v);
        }
        if let Some(v) = wd {
            t.work_deviation = t.work_deviation.at(v);
        }
        if let Some(v) = swb {
            t.sibling_work_balance = t.sibling_work_balance.at(v);
        }
        t.sibling_scatter_cores = scatter.or(t.sibling_scatter_cores);
        t
    }

    /// What `t` sets over its preset (the inverse of [`apply`](Self::apply)).
    pub fn of(t: &Thresholds) -> Self {
        let p = ThresholdsPreset::of(t).thresholds();
        let differs = |a: Bound, b: Bound| (a.value() != b.value()).then_some(a.value());
        ThresholdOverrides {
            cores: t.cores.filter(|_| t.cores != p.cores),
            limits: [
                differs(t.mem_hier_util, p.mem_hier_util),
                differs(t.parallel_benefit, p.parallel_benefit),
                differs(t.work_deviation, p.work_deviation),
                differs(t.sibling_work_balance, p.sibling_work_balance),
                t.sibling_scatter_cores.filter(|_| t.sibling_scatter_cores != p.sibling_scatter_cores),
            ],
        }
    }

    /// Whether anything is set over the preset.
    pub fn any(&self) -> bool {
        self.cores.is_some() || self.limits.iter().any(Option::is_some)
    }
}

/// A problem view's metric (one of `METRICS`), None for the structure.
fn problem_of(spec: &OptionSpec, value: &str) -> Result<Option<&'static str>, OptionError> {
    match spec.choice(value)? {
        "structure" => Ok(None),
        v => Ok(METRICS.iter().copied().find(|m| *m == v)),
    }
}

/// The problem views a profile has, with their problematic grain counts, as the view option's choices.
pub fn problem_choices<'a>(problems: impl Iterator<Item = (&'a str, usize)>) -> Vec<(String, String)> {
    let mut c = vec![("structure".to_string(), "structure".to_string())];
    c.extend(problems.map(|(m, n)| (m.to_string(), format!("{} ({})", m.replace('_', " "), thousands(n)))));
    c
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
pub struct GrainsOptions {
    pub problem: Option<&'static str>,
    pub thresholds: ThresholdsPreset,
    /// Cores and metric thresholds set over the preset.
    pub overrides: ThresholdOverrides,
    pub color: ColorBy,
}

impl Default for GrainsOptions {
    fn default() -> Self {
        GrainsOptions {
            problem: None,
            thresholds: ThresholdsPreset::Paper,
            overrides: ThresholdOverrides::default(),
            color: ColorBy::OutlineFunction,
        }
    }
}

impl GrainsOptions {
    /// The thresholds the problems are found under: the preset with what is set over it.
    pub fn effective_thresholds(&self) -> Thresholds {
        self.overrides.apply(self.thresholds)
    }
}

impl ViewOptions for GrainsOptions {
    const VIEW: &'static str = "grains";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[
            PROBLEM,
            THRESHOLDS,
            CORES,
            LIMITS[0],
            LIMITS[1],
            LIMITS[2],
            LIMITS[3],
            LIMITS[4],
            OptionSpec::option(
                "color",
                "colour",
                "the structural view's fragment colours: by outline function, by source line or by the core that ran the grain (cpu_id)",
                Kind::Choice {
                    choices: &[
                        Choice { value: "outline_function", label: "by function" },
                        Choice { value: "source_line", label: "by source line" },
                        Choice { value: "cpu_id", label: "by core (cpu_id)" },
                    ],
                    other: None,
                },
                "outline_function",
            ),
            OptionSpec::action(
                "locate",
                "select and centre the first grain matching a task id, source location or function",
                Kind::Text { placeholder: "task, file:line or function", allowed: "a search" },
            ),
        ];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        match spec.key {
            "problem" => self.problem = problem_of(spec, value)?,
            "thresholds" => {
                self.thresholds = if spec.choice(value)? == "prototype" {
                    ThresholdsPreset::Prototype
                } else {
                    ThresholdsPreset::Paper
                }
            }
            "cores" => {
                self.overrides.cores = match value.trim() {
                    "auto" => None,
                    v => Some(v.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(|| spec.bad(value))?),
                }
            }
            key if is_threshold_key(key) => {
                let i = LIMITS.iter().position(|l| l.key == key).ok_or_else(|| spec.bad(value))?;
                self.overrides.limits[i] = match value.trim() {
                    "preset" => None,
                    v => Some(
                        v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| spec.bad(value))?,
                    ),
                }
            }
            _ => {
                self.color = match spec.choice(value)? {
                    "source_line" => ColorBy::SourceLine,
                    "cpu_id" => ColorBy::Cpu,
                    _ => ColorBy::OutlineFunction,
                }
            }
        }
        Ok(())
    }
    fn get(&self, key: &str) -> String {
        match key {
            "problem" => self.problem.unwrap_or("structure").to_string(),
            "thresholds" => {
                if self.thresholds == ThresholdsPreset::Prototype { "prototype" } else { "paper" }.to_string()
            }
            "cores" => self.overrides.cores.map_or_else(|| "auto".to_string(), |n| n.to_string()),
            key if is_threshold_key(key) => LIMITS
                .iter()
                .position(|l| l.key == key)
                .and_then(|i| self.overrides.limits[i])
                .map_or_else(|| "preset".to_string(), |v| v.to_string()),
            _ => match self.color {
                ColorBy::SourceLine => "source_line",
                ColorBy::Cpu => "cpu_id",
                ColorBy::OutlineFunction => "outline_function",
            }
            .to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggregateOptions {
    pub method: Method,
    pub problem: Option<&'static str>,
    pub filtered: bool,
    pub drill_depth: u32,
    pub similar: bool,
}

impl Default for AggregateOptions {
    fn default() -> Self {
        AggregateOptions { method: Method::Reduction, problem: None, filtered: false, drill_depth: 0, similar: false }
    }
}

/// A group: its tree index, or `selected`.
const GROUP: Kind = Kind::Text { placeholder: "group", allowed: "a group's index or selected" };

impl ViewOptions for AggregateOptions {
    const VIEW: &'static str = "aggregate";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[
            OptionSpec::option(
                "method",
                "method",
                "aggregation: reduction of fork-join and linear patterns, or sibling/family groups",
                Kind::Choice {
                    choices: &[
                        Choice { value: "reduction", label: "reduction" },
                        Choice { value: "family", label: "sibling/family" },
                    ],
                    other: None,
                },
                "reduction",
            )
            .flag("method"),
            PROBLEM,
            OptionSpec::option(
                "filtered",
                "filtered",
                "hide quiet groups behind fast-forward edges",
                Kind::Bool,
                "off",
            )
            .flag("filtered"),
            OptionSpec::option(
                "drill_depth",
                "depth",
                "open every group above this depth",
                Kind::Number { min: 0.0, max: None, step: 1.0, integer: true },
                "0",
            )
            .link("depth")
            .flag("depth"),
            OptionSpec::option(
                "similar",
                "similar",
                "mark groups of equal structure (Weisfeiler–Lehman)",
                Kind::Bool,
                "off",
            ),
            OptionSpec::action("select", "select a group (empty: none)", GROUP),
            OptionSpec::action("open", "open a group", GROUP),
            OptionSpec::action("close", "close a group (a closed one: the group around it)", GROUP),
            OptionSpec::action("open_all_beneath", "open everything beneath a group (O)", GROUP),
            OptionSpec::action("drill_critical", "open the groups on the global critical path (X)", Kind::Trigger),
            OptionSpec::action(
                "local_critical",
                "a group's local critical path (L)",
                Kind::Text { placeholder: "group", allowed: "on, off or a group's index" },
            ),
            OptionSpec::action(
                "compare",
                "leave the comparison with a second run",
                Kind::Text { placeholder: "off", allowed: "off" },
            ),
            OptionSpec::action(
                "restore",
                "put back a saved view state",
                Kind::Text { placeholder: "{}", allowed: "a view state" },
            ),
        ];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        match spec.key {
            "method" => self.method = if spec.choice(value)? == "family" { Method::Family } else { Method::Reduction },
            "problem" => self.problem = problem_of(spec, value)?,
            "filtered" => self.filtered = spec.boolean(value)?,
            "drill_depth" => self.drill_depth = spec.number(value)?.min(u32::MAX as f64) as u32,
            _ => self.similar = spec.boolean(value)?,
        }
        Ok(())
    }
    fn get(&self, key: &str) -> String {
        let flag = |b: bool| if b { "1" } else { "0" }.to_string();
        match key {
            "method" => if self.method == Method::Family { "family" } else { "reduction" }.to_string(),
            "problem" => self.problem.unwrap_or("structure").to_string(),
            "filtered" => flag(self.filtered),
            "drill_depth" => self.drill_depth.to_string(),
            _ => flag(self.similar),
        }
    }
}

// ---- particles ----

#[derive(Clone, Debug, PartialEq)]
pub struct ParticlesOptions {
    /// Which intervals are events: empty for communication and synchronization, name globs, or `cat:GLOB`.
    pub selection: String,
    /// Data nanoseconds per animation step; None: the span in 20 s of animation.
    pub step_ns: Option<u64>,
    pub interval_ms: f64,
    pub min_opacity: f32,
    /// Processes per segment of the grid: a multiple, or 0 for automatic.
    pub segment_multiple: u32,
}

impl Default for ParticlesOptions {
    fn default() -> Self {
        ParticlesOptions {
            selection: String::new(),
            step_ns: None,
            interval_ms: 1000.0 / 60.0,
            min_opacity: 0.15,
            segment_multiple: 0,
        }
    }
}

const NOTHING: Kind = Kind::Trigger;

impl ViewOptions for ParticlesOptions {
    const VIEW: &'static str = "particles";
    fn schema() -> &'static [OptionSpec] {
        const S: &[OptionSpec] = &[
            OptionSpec::option(
                "selection",
                "events",
                "which intervals are events: empty for communication and synchronization, name globs (nccl*, cuda*Synchronize), or cat:GLOB",
                Kind::Text { placeholder: "events: MPI, NCCL…", allowed: "name globs or cat:GLOB" },
                "",
            )
            .link("events"),
            OptionSpec::option(
                "step_ns",
                "step",
                "data time step: how far the window moves per animation interval, ns (empty: the span in 20 s)",
                Kind::Number { min: 1.0, max: None, step: 1.0, integer: true },
                "",
            )
            .link("step"),
            OptionSpec::option(
                "interval_ms",
                "every",
                "animation interval: wall time between steps, ms",
                Kind::Number { min: 0.001, max: None, step: 0.1, integer: false },
                "16.666666666666668",
            )
            .link("every"),
            OptionSpec::option(
                "min_opacity",
                "min opacity",
                "opacity of the faintest history",
                Kind::Number { min: 0.0, max: Some(1.0), step: 0.01, integer: false },
                "0.15",
            )
            .link("opacity"),
            OptionSpec::option(
                "segment_multiple",
                "group",
                "processes per grid segment: a multiple, or 0 for automatic",
                Kind::Number { min: 0.0, max: None, step: 1.0, integer: true },
                "0",
            )
            .link("group"),
            OptionSpec::action("play", "play the animation", NOTHING),
            OptionSpec::action("pause", "pause the animation", NOTHING),
            OptionSpec::action("step", "one animation step", NOTHING),
            OptionSpec::action("clear_history", "clear the history", NOTHING),
            OptionSpec::action("clear_fading", "clear the fading particles", NOTHING),
            OptionSpec::action(
                "tick",
                "advance to the page's frame time, ms",
                Kind::Number { min: f64::MIN, max: None, step: 1.0, integer: false },
            ),
            OptionSpec::action(
                "seek_ns",
                "move the cursor to a time, ns",
                Kind::Number { min: 0.0, max: None, step: 1.0, integer: true },
            ),
            OptionSpec::action(
                "seek_x",
                "move the cursor to a screen x on the stacked timeline",
                Kind::Number { min: f64::MIN, max: None, step: 1.0, integer: false },
            ),
        ];
        S
    }
    fn set(&mut self, spec: &'static OptionSpec, value: &str) -> Result<(), OptionError> {
        match spec.key {
            "selection" => self.selection = value.trim().to_string(),
            "step_ns" if value.trim().is_empty() => self.step_ns = None,
            "step_ns" => self.step_ns = Some(spec.number(value)? as u64),
            "interval_ms" => self.interval_ms = spec.number(value)?,
            "min_opacity" => self.min_opacity = spec.number(value)? as f32,
            _ => self.segment_multiple = spec.number(value)?.min(u32::MAX as f64) as u32,
        }
        Ok(())
    }
    fn get(&self, key: &str) -> String {
        match key {
            "selection" => self.selection.clone(),
            "step_ns" => self.step_ns.map(|s| s.to_string()).unwrap_or_default(),
            "interval_ms" => self.interval_ms.to_string(),
            "min_opacity" => self.min_opacity.to_string(),
            _ => self.segment_multiple.to_string(),
        }
    }
}

/// The schema of a view by its name (the page's view switcher names), for the CLI's help and tests.
pub fn schema_of(view: &str) -> Option<&'static [OptionSpec]> {
    Some(match view {
        "timeline" => TimelineOptions::schema(),
        "moments" => MomentsOptions::schema(),
        "execgraph" => ExecgraphOptions::schema(),
        "grains" => GrainsOptions::schema(),
        "aggregate" => AggregateOptions::schema(),
        "particles" => ParticlesOptions::schema(),
        _ => return None,
    })
}

/// Every view with a schema.
pub const VIEWS: [&str; 6] = ["timeline", "moments", "execgraph", "grains", "aggregate", "particles"];
