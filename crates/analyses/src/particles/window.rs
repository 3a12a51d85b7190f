//! The moving window of the particle animation: which events are live (running, or ended and still fading) at
//! the current data time, kept incrementally as time advances, and rebuilt by a seek when the user jumps.
//!
//! Advancing costs the live events plus the events that start in the step; a seek costs one binary search,
//! one look at each block's latest end (`n / SEEK_BLOCK`) and the events of the blocks that can still be live.
//! Neither walks the whole trace per frame. This module must not know pixels or colours; wall time enters
//! only through [`Playback`], which turns the two seconds of fading into data time.

use super::{ParticleEvents, SEEK_BLOCK};

/// How animation time maps to data time: the sliding window moves by `step_ns` (the data time step, the
/// window width) every `interval_ms` of wall time (the animation interval).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    pub step_ns: u64,
    pub interval_ms: f64,
    /// How long an ended particle fades, in seconds of animation (wall) time.
    pub fade_s: f64,
}

impl Playback {
    /// The paper's fading time.
    pub const FADE_S: f64 = 2.0;

    /// A step that plays the whole span in about `seconds` of animation at 60 steps per second.
    pub fn for_span(span_ns: u64, seconds: f64) -> Playback {
        let steps = (seconds * 60.0).max(1.0);
        Playback { step_ns: ((span_ns as f64 / steps).ceil() as u64).max(1), interval_ms: 1000.0 / 60.0, fade_s: 2.0 }
    }
    /// The default playback of `events` over `span_ns`: the whole span in about `seconds`
    /// ([`Playback::for_span`]), slower where that would keep more than [`Playback::LIVE_BUDGET`] particles
    /// alive at once on average (an event lives its duration plus the fading time, which is two seconds of
    /// animation whatever the speed: a billion events played in 20 s would keep a tenth of them, a hundred
    /// million, on screen). The user's step overrides it.
    pub fn for_events(span_ns: u64, events: u64, seconds: f64) -> Playback {
        let mut p = Playback::for_span(span_ns, seconds);
        // Live on average ≈ events x fade / span, fade = fade_s x 60 steps a second x step.
        let per_step = events as f64 * p.fade_s * (1000.0 / p.interval_ms) / span_ns.max(1) as f64;
        if per_step > 0.0 {
            let most = (Self::LIVE_BUDGET as f64 / per_step).floor().max(1.0) as u64;
            p.step_ns = p.step_ns.min(most);
        }
        p
    }

    /// Particles alive at once, on average, that the default speed allows.
    pub const LIVE_BUDGET: u64 = 100_000;

    /// Data nanoseconds per second of animation (the speed readout).
    pub fn speed_ns_per_s(&self) -> f64 {
        self.step_ns as f64 * 1000.0 / self.interval_ms.max(1e-3)
    }
    /// The fading time in data nanoseconds at this speed (at least one step, so a fading particle is seen).
    pub fn fade_ns(&self) -> u64 {
        ((self.fade_s * self.speed_ns_per_s()) as u64).max(self.step_ns).max(1)
    }
}

/// The live events at one data time.
#[derive(Clone, Debug, Default)]
pub struct LiveWindow {
    t_ns: u64,
    fade_ns: u64,
    /// First event not yet started at `t_ns`.
    next: usize,
    live: Vec<u32>,
}

impl LiveWindow {
    pub fn new(fade_ns: u64) -> LiveWindow {
        LiveWindow { t_ns: 0, fade_ns: fade_ns.max(1), next: 0, live: Vec::new() }
    }
    /// The current data time.
    pub fn time_ns(&self) -> u64 {
        self.t_ns
    }
    pub fn fade_ns(&self) -> u64 {
        self.fade_ns
    }
    /// Change the fading time (speed changed); takes effect for every live event from the next step on.
    pub fn set_fade_ns(&mut self, fade_ns: u64) {
        self.fade_ns = fade_ns.max(1);
    }
    /// Live event indices (running or fading), in no particular order.
    pub fn live(&self) -> &[u32] {
        &self.live
    }
    /// Whether event `e` is live at `t_ns` with this fading time.
    #[inline]
    fn is_live(ev: &ParticleEvents, e: usize, t_ns: u64, fade_ns: u64) -> bool {
        ev.start_ns[e] <= t_ns && ev.end_ns(e).saturating_add(fade_ns) > t_ns
    }

    /// Jump to `t_ns`: the events skipped are not played (they do not reach the history).
    pub fn seek(&mut self, ev: &ParticleEvents, t_ns: u64) {
        self.t_ns = t_ns;
        self.next = ev.first_after(t_ns);
        self.live.clear();
        let blocks = self.next.div_ceil(SEEK_BLOCK);
        for b in 0..blocks {
            if ev.block_max_end(b).saturating_add(self.fade_ns) <= t_ns {
                continue;
            }
            for e in b * SEEK_BLOCK..((b + 1) * SEEK_BLOCK).min(self.next) {
                if Self::is_live(ev, e, t_ns, self.fade_ns) {
                    self.live.push(e as u32);
                }
            }
        }
    }

    /// Play forward to `t_ns` (a seek if `t_ns` is earlier). Events whose fading ends by `t_ns` leave the
    /// window and are appended to `faded` (to be splatted into the history), including events that start and
    /// finish fading inside this one step.
    pub fn advance(&mut self, ev: &ParticleEvents, t_ns: u64, faded: &mut Vec<u32>) {
        if t_ns < self.t_ns {
            self.seek(ev, t_ns);
            return;
        }
        self.t_ns = t_ns;
        let end = ev.first_after(t_ns).max(self.next);
        self.live.extend((self.next..end).map(|e| e as u32));
        self.next = end;
        let fade = self.fade_ns;
        self.live.retain(|&e| {
            let keep = ev.end_ns(e as usize).saturating_add(fade) > t_ns;
            if !keep {
                faded.push(e);
            }
            keep
        });
    }

    /// Drop the fading particles (the page's "clear fading" button): only running events stay.
    pub fn clear_fading(&mut self, ev: &ParticleEvents) {
        let t = self.t_ns;
        self.live.retain(|&e| ev.end_ns(e as usize) > t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_speed_keeps_live_particles_within_the_budget() {
        // Few events: the whole span in 20 s.
        assert_eq!(Playback::for_events(4_000_000_000, 50_000, 20.0), Playback::for_span(4_000_000_000, 20.0));
        assert_eq!(Playback::for_events(4_000_000_000, 0, 20.0), Playback::for_span(4_000_000_000, 20.0));
        // A billion events over 273 s: 20 s would keep ~10 % (a hundred million) fading at once.
        let (span, events) = (273_000_000_000u64, 1_000_000_000u64);
        let fast = Playback::for_span(span, 20.0);
        assert!(events as f64 * fast.fade_ns() as f64 / span as f64 > 5e7);
        let p = Playback::for_events(span, events, 20.0);
        let live = events as f64 * p.fade_ns() as f64 / span as f64;
        assert!(live <= Playback::LIVE_BUDGET as f64 && live > 0.9 * Playback::LIVE_BUDGET as f64, "{live}");
        assert_eq!((p.interval_ms, p.fade_s), (fast.interval_ms, fast.fade_s));
        // Past a nanosecond a step, it stays at one.
        assert_eq!(Playback::for_events(1_000, u64::MAX / 2, 20.0).step_ns, 1);
    }
}
