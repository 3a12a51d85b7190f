//! Scene of the particle animation: the static frame (process segments, duration grid, labels) as a
//! [`Scene`], and per frame the live particles as plain `#[repr(C)]` [`ParticleInstance`]s for the GPU.
//!
//! Each live event is a disc at its process slot's stable pseudo-random x, as high as its age on the
//! logarithmic duration axis; an ended event stops at its duration and fades out over the fading time
//! ([`weft_analyses::particles::Playback`]); when it has faded it becomes a splat for the history. Per
//! frame this touches only the live window's events, never the whole trace. Must not hold GPU or web types.

pub mod colors;
pub mod history;
pub mod timeline;

use crate::layouts::particles::{jitter, ln_f32, DurationAxis, ProcessAxis};
use crate::scene::axis::label_width_px;
use crate::scene::timeline::format_duration;
use crate::scene::{rgba, Align, Label, LineInstance, RectInstance, Rgba, Scene};
use bytemuck::{Pod, Zeroable};
use weft_analyses::particles::{LiveWindow, ParticleEvents};

/// What the particle view adds to a frame (the renderer draws it over the frame's scene): plain instance
/// arrays, no GPU type.
pub struct ParticleLayer<'a> {
    /// Live particles, drawn over the scene's shapes.
    pub particles: &'a [ParticleInstance],
    /// Particles that finished fading since the last frame, added to the history.
    pub splats: &'a [ParticleInstance],
    /// Clear the history before adding this frame's splats.
    pub clear_history: bool,
    /// Largest density in the history (the CPU keeps it: the same splat rule at the same resolution).
    pub max_density: f32,
    pub min_opacity: f32,
}

/// One particle: centre and diameter in CSS pixels of the animation's canvas, colour with its opacity in the
/// alpha byte. 16 bytes; the GPU's instance layout matches it field for field.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct ParticleInstance {
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub color: Rgba,
}

/// Background of the animation window (dark, so that particles and the history glow).
pub const BACKGROUND: Rgba = rgba(0x14, 0x17, 0x1c, 0xff);
const SEGMENT_A: Rgba = rgba(0x3a, 0x3f, 0x47, 0xff);
const SEGMENT_B: Rgba = rgba(0x5a, 0x60, 0x6a, 0xff);
const GRID: Rgba = rgba(0x4a, 0x50, 0x58, 0xff);
const GRID_BOLD: Rgba = rgba(0x9a, 0xa0, 0xa8, 0xff);
pub const TEXT: Rgba = rgba(0xd8, 0xdc, 0xe0, 0xff);
const LABEL_PX: f32 = 11.0;
/// Left margin for duration labels, bottom band for segments and their labels.
const LEFT_PX: f32 = 72.0;
const SEGMENT_BAND_PX: f32 = 8.0;
const BOTTOM_PX: f32 = 26.0;

/// Options the user sets for the animation window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleStyle {
    /// Diameter of a particle in pixels.
    pub particle_px: f32,
    /// Least width of a process segment.
    pub min_segment_px: f32,
    /// Round segment sizes up to a multiple of this (the process grid), if set.
    pub segment_multiple: Option<u32>,
    /// Space above the top grid line (the page keeps its controls there).
    pub top_px: f32,
}

impl Default for ParticleStyle {
    fn default() -> Self {
        ParticleStyle { particle_px: 6.0, min_segment_px: 40.0, segment_multiple: None, top_px: 10.0 }
    }
}

/// The geometry of the animation window for one canvas size and one event index.
#[derive(Clone, Debug)]
pub struct ParticleScene {
    pub width: f32,
    pub height: f32,
    /// Plot rectangle: x from `x0` to `x1`, y from `y_top` (longest duration) to `y_bottom` (the floor).
    pub x0: f32,
    pub x1: f32,
    pub y_top: f32,
    pub y_bottom: f32,
    pub processes: ProcessAxis,
    pub durations: DurationAxis,
    pub style: ParticleStyle,
    /// Colour of each event type (index = type).
    pub colors: Vec<Rgba>,
    /// Per-particle constants, so a frame multiplies instead of divides: pixels per slot, the inverse of the
    /// duration floor, pixels per unit of ln(age / floor).
    px_per_slot: f32,
    inv_min_ns: f32,
    px_per_ln: f32,
}

impl ParticleScene {
    pub fn new(ev: &ParticleEvents, width: f32, height: f32, style: ParticleStyle) -> ParticleScene {
        let (x0, x1) = (LEFT_PX, (width - 8.0).max(LEFT_PX + 1.0));
        let top = style.top_px.max(0.0);
        let (y_top, y_bottom) = (top, (height - BOTTOM_PX - SEGMENT_BAND_PX).max(top + 1.0));
        let processes = ProcessAxis::new(ev.slots() as u32, x1 - x0, style.min_segment_px, style.segment_multiple);
        let durations = DurationAxis::new(ev.min_dur_ns, ev.max_dur_ns);
        let log_range = (durations.max_ns / durations.min_ns).ln() as f32;
        ParticleScene {
            px_per_slot: (x1 - x0) / processes.slots as f32,
            inv_min_ns: 1.0 / durations.min_ns as f32,
            px_per_ln: if log_range > 0.0 { (y_bottom - y_top) / log_range } else { 0.0 },
            width,
            height,
            x0,
            x1,
            y_top,
            y_bottom,
            processes,
            durations,
            style,
            colors: colors::legend_colors(&ev.types),
        }
    }

    /// Pixel x of a fraction of the plot's width.
    #[inline]
    pub fn px_x(&self, fx: f32) -> f32 {
        self.x0 + fx * (self.x1 - self.x0)
    }
    /// Pixel y of a fraction of the duration axis (0 at the floor, 1 at the top).
    #[inline]
    pub fn px_y(&self, fy: f32) -> f32 {
        self.y_bottom - fy * (self.y_bottom - self.y_top)
    }

    /// The particle of event `e` at data time `t_ns`, or None if it has not started or has faded.
    #[inline]
    pub fn particle(&self, ev: &ParticleEvents, e: usize, t_ns: u64, fade_ns: u64) -> Option<ParticleInstance> {
        let start = ev.start_ns[e];
        if t_ns < start {
            return None;
        }
        let dur = ev.dur_ns[e];
        let age = t_ns - start;
        let alpha = if age <= dur {
            1.0
        } else {
            let since = age - dur;
            if since >= fade_ns {
                return None;
            }
            1.0 - since as f32 / fade_ns as f32
        };
        // The layout's formulas, with the divisions hoisted into the constants (this runs per particle).
        let slot = ev.slot[e] as f32 + 0.1 + 0.8 * jitter(ev.interval[e]);
        let ratio = age.min(dur) as f32 * self.inv_min_ns;
        let y = if self.px_per_ln == 0.0 {
            self.px_y(self.durations.y(age.min(dur) as f64))
        } else if ratio <= 1.0 {
            self.y_bottom
        } else {
            (self.y_bottom - ln_f32(ratio) * self.px_per_ln).max(self.y_top)
        };
        Some(ParticleInstance {
            x: self.x0 + slot * self.px_per_slot,
            y,
            size: self.style.particle_px,
            color: with_alpha(self.colors[ev.kind[e] as usize], alpha),
        })
    }

    /// The live particles of the window at its current time, into `out` (cleared first).
    pub fn particles(&self, ev: &ParticleEvents, window: &LiveWindow, out: &mut Vec<ParticleInstance>) {
        out.clear();
        out.reserve(window.live().len());
        let (t, fade) = (window.time_ns(), window.fade_ns());
        out.extend(window.live().iter().filter_map(|&e| self.particle(ev, e as usize, t, fade)));
    }

    /// Splats for faded events: each at its final height in its full colour (appended to `out`).
    pub fn splats(&self, ev: &ParticleEvents, faded: &[u32], out: &mut Vec<ParticleInstance>) {
        out.extend(faded.iter().map(|&e| {
            let e = e as usize;
            ParticleInstance {
                x: self.px_x(self.processes.particle_x(ev.slot[e], ev.interval[e])),
                y: self.px_y(self.durations.y(ev.dur_ns[e] as f64)),
                size: self.style.particle_px,
                color: self.colors[ev.kind[e] as usize],
            }
        }));
    }

    /// The live event under (x, y): the nearest particle centre within its radius (plus 2 px), preferring
    /// running over fading particles at equal distance.
    pub fn hit(&self, ev: &ParticleEvents, window: &LiveWindow, x: f32, y: f32) -> Option<usize> {
        let reach = self.style.particle_px * 0.5 + 2.0;
        let (t, fade) = (window.time_ns(), window.fade_ns());
        let mut best: Option<(f32, usize)> = None;
        for &e in window.live() {
            let Some(p) = self.particle(ev, e as usize, t, fade) else { continue };
            let d2 = (p.x - x).powi(2) + (p.y - y).powi(2);
            if d2 <= reach * reach && best.is_none_or(|(b, _)| d2 < b) {
                best = Some((d2, e as usize));
            }
        }
        best.map(|(_, e)| e)
    }

    /// The static frame: segments of alternating grey along the bottom labelled with their first process
    /// (`names`, by slot: [`slot_labels`]), vertical separators, duration grid lines labelled in real units
    /// (never overlapping).
    pub fn frame(&self, ev: &ParticleEvents, names: &[String]) -> Scene {
        let mut s = Scene::new(self.width, self.height, BACKGROUND);
        let band_y = self.y_bottom + 2.0;
        let mut last_label_end = f32::NEG_INFINITY;
        for seg in 0..self.processes.segments() {
            let (first, end) = self.processes.segment_slots(seg);
            let xa = self.px_x(self.processes.slot_x0(first));
            let xb = self.px_x(if end >= self.processes.slots { 1.0 } else { self.processes.slot_x0(end) });
            let fill = if seg % 2 == 0 { SEGMENT_A } else { SEGMENT_B };
            s.rects.push(RectInstance::filled(xa, band_y, (xb - xa).max(0.5), SEGMENT_BAND_PX, fill));
            if seg > 0 {
                s.lines.push(LineInstance::solid(xa, self.y_top, xa, self.y_bottom, 1.0, GRID));
            }
            let text = names.get(first as usize).cloned().unwrap_or_else(|| first.to_string());
            if xa >= last_label_end {
                // A name wider than its segment is cut at the segment's end (the next label starts there).
                let room = (xb - xa - 4.0).max(label_width_px("00", LABEL_PX));
                last_label_end = xa + label_width_px(&text, LABEL_PX).min(room) + 4.0;
                s.labels.push(Label::new(xa + 1.0, band_y + SEGMENT_BAND_PX + 8.0, text, TEXT, LABEL_PX).clipped(room));
            }
        }
        let min_gap = (LABEL_PX + 4.0) / (self.y_bottom - self.y_top).max(1.0);
        for g in self.durations.grid(min_gap) {
            let y = self.px_y(g.y);
            let (w, c) = if g.bold { (1.5, GRID_BOLD) } else { (1.0, GRID) };
            s.lines.push(LineInstance::solid(self.x0, y, self.x1, y, w, c));
            let text = grid_label(g.dur_ns);
            s.labels.push(Label::new(self.x0 - 6.0, y, text, TEXT, LABEL_PX).aligned(Align::Right));
        }
        // The frame is the background the particles move over: decoration, not data.
        s.chrome = s.rects.len() + s.lines.len();
        // No event in the whole trace: a store's slice is empty until its first answer, but its counts are
        // the whole store's.
        if ev.type_counts.iter().all(|&n| n == 0) {
            let from = s.labels.len();
            s.add_notice(
                0.0,
                self.y_top,
                self.width,
                (self.y_bottom - self.y_top).max(1.0),
                &[
                    "No events to animate.",
                    "This trace has no communication or synchronization calls (MPI, NCCL, CUDA synchronization, \
                     OpenMP barriers), or none is selected.",
                    "Type region name globs (e.g. *Send*) or cat:GLOB in the events box to animate other intervals.",
                ],
            );
            // Light text on the animation's dark background (the notice's own colours are for light views).
            for l in &mut s.labels[from..] {
                l.color = TEXT;
            }
        }
        s
    }

    /// The grid lines' labels, top to bottom (for tests and the page's overlay).
    pub fn grid_labels(&self) -> Vec<(f32, String)> {
        let min_gap = (LABEL_PX + 4.0) / (self.y_bottom - self.y_top).max(1.0);
        self.durations.grid(min_gap).iter().map(|g| (self.px_y(g.y), grid_label(g.dur_ns))).collect()
    }
}

/// A grid line's label: the duration in the largest unit that keeps it at least one, at most three
/// decimals, trailing zeros dropped ("5 us", "2.5 ms", "980 us").
pub fn grid_label(ns: f64) -> String {
    let (div, unit) = if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "us")
    } else {
        (1.0, "ns")
    };
    let v = format!("{:.3}", ns / div);
    let v = v.trim_end_matches('0').trim_end_matches('.');
    format!("{v} {unit}")
}

/// The segment labels of the processes in slot order: an MPI rank's number (a process named "rank 3",
/// "Task 3" or "3"), else the process's name as the trace gives it (a Chrome or PyTorch process, not its pid),
/// else its native id.
pub fn slot_labels(trace: &weft_model::Trace, ev: &ParticleEvents) -> Vec<String> {
    ev.slot_process
        .iter()
        .map(|p| {
            let name = trace.process_name(*p).trim();
            let last = name.rsplit([' ', '_', '#']).next().unwrap_or("");
            let rank_like = last.parse::<u64>().is_ok() && {
                let head = name[..name.len() - last.len()].trim_end_matches([' ', '_', '#']).to_ascii_lowercase();
                head.is_empty() || ["rank", "mpi rank", "task", "process", "proc", "p"].contains(&head.as_str())
            };
            if rank_like {
                last.to_string()
            } else if name.is_empty() {
                trace.processes.native_id[p.index()].to_string()
            } else {
                name.to_string()
            }
        })
        .collect()
}

/// `c` with its alpha byte replaced by `alpha` in [0, 1].
#[inline]
pub fn with_alpha(c: Rgba, alpha: f32) -> Rgba {
    (c & 0xffff_ff00) | ((alpha.clamp(0.0, 1.0) * 255.0).round() as u32)
}

/// The speed readout: data time per second of animation, e.g. "1.500 ms/s".
pub fn speed_label(ns_per_s: f64) -> String {
    format!("{}/s", format_duration(ns_per_s.round().max(0.0) as u64))
}

/// The frame with the particles drawn on it as ellipses (for SVG export and snapshots).
pub fn snapshot(mut frame: Scene, particles: &[ParticleInstance]) -> Scene {
    frame.rects.extend(particles.iter().map(|p| {
        let r = p.size * 0.5;
        RectInstance::filled(p.x - r, p.y - r, p.size, p.size, p.color).with_shape(crate::scene::Shape::Ellipse)
    }));
    frame
}
