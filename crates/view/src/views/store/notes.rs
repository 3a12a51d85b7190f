//! Notes on a store's timeline (issue #55): the same notes as on a trace's (`views::notes`), taken on the
//! store's skeleton (its locations and span), drawn over the summary rows and the exact slice alike by
//! `scene::note_marks`, named on hover. A store's timeline holds no interval for good (an exact slice comes
//! and goes with the view), so its notes are on time ranges and rows; "note here" notes the range shown.
//! Must not ask the worker anything.

use super::StorePane;
use crate::scene::note_marks;
use crate::scene::Scene;
use crate::views::notes::{note_hover, NoteSet, NotesHost};
use crate::views::{Hover, Pane};
use weft_analyses::moments::TimeWindow;
use weft_model::Trace;

impl StorePane {
    pub(super) fn draw_notes(&self, sc: &mut Scene) {
        note_marks::draw(sc, &self.notes, &self.skeleton, &self.layout, &self.view);
    }

    /// The note under (x, y), as the trace's timeline names it.
    pub(super) fn note_hover(&self, x: f32, y: f32) -> Option<Hover> {
        let k = note_marks::hit(&self.notes, &self.skeleton, &self.layout, &self.view, x, y)?;
        note_hover(&self.notes, k, &self.skeleton, self.view.t1_ns - self.view.t0_ns)
    }
}

impl NotesHost for StorePane {
    fn notes(&self) -> &NoteSet {
        &self.notes
    }
    fn notes_mut(&mut self) -> (&mut NoteSet, &Trace) {
        (&mut self.notes, &self.skeleton)
    }
    fn notes_trace(&self) -> &Trace {
        &self.skeleton
    }
    /// Its range with a tenth on either side, as on a trace's timeline.
    fn show_note(&mut self, k: usize) -> bool {
        let Some(n) = self.notes.notes().get(k) else { return false };
        let (t0, t1) = (n.t0_ns as f64, n.t1_ns as f64);
        let pad = ((t1 - t0) / 10.0).max(100.0);
        self.set_time_range(t0 - pad, t1 + pad);
        true
    }
    fn hovered_interval(&self) -> Option<usize> {
        None
    }
    /// The time shown, within the run.
    fn note_range(&self) -> Option<TimeWindow> {
        let span = self.skeleton.span_ns as f64;
        let (a, b) = (self.view.t0_ns.clamp(0.0, span), self.view.t1_ns.clamp(0.0, span));
        (b > a).then(|| TimeWindow { start_ns: a.round() as u64, end_ns: b.round() as u64 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::note_marks::colour;
    use crate::views::notes::{decode_link, encode_link, Colour, Note};
    use std::rc::Rc;
    use weft_model::{Format, LocationKind, TraceBuilder};

    /// A store's skeleton: two locations' definitions over a 1 ms run (no intervals).
    fn skeleton() -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        for r in 0..2 {
            let p = b.process(r);
            b.location(p, 0, LocationKind::CpuThread);
        }
        let mut t = b.finish();
        t.span_ns = 1_000_000;
        t
    }

    #[test]
    fn a_store_takes_notes_draws_them_names_them_on_hover_and_keeps_them_in_a_link() {
        let mut pane = StorePane::new(Rc::new(skeleton()), Rc::from(Vec::new()), 1000.0, 600.0);
        // "Note here" on a store notes the time shown (within the run); no interval is ever under the pointer.
        assert_eq!(NotesHost::hovered_interval(&pane), None);
        pane.set_time_range(250_000.0, 500_000.0);
        assert_eq!(pane.note_range(), Some(TimeWindow { start_ns: 250_000, end_ns: 500_000 }));
        let text = "<img src=x onerror=alert(1)> slow phase";
        let note = Note {
            t0_ns: 300_000,
            t1_ns: 400_000,
            text: text.into(),
            colour: Colour::Red,
            location: None,
            interval: false,
        };
        let (set, trace) = pane.notes_mut();
        assert_eq!(set.add(trace, note).expect("added"), 0);
        // Drawn over the store's rows: the band at its times, the flag's text as text.
        let sc = pane.scene();
        let band = sc.rects.iter().find(|r| r.fill == colour(Colour::Red, 0x38)).expect("a band");
        assert!((band.x - pane.view.x_of(300_000.0)).abs() < 0.5);
        assert!((band.x + band.w - pane.view.x_of(400_000.0)).abs() < 0.5);
        let flag = sc.labels.iter().find(|l| l.text.ends_with("slow phase")).expect("a flag");
        assert_eq!(flag.text, format!("1 · {text}"));
        // Hover over the flag: the note's text whole, what it is on and when.
        let h = pane.hover(flag.x + 4.0, flag.y).expect("the note is named");
        assert_eq!(h.title, "note 1 (red)");
        assert_eq!(h.lines[0], text);
        assert!(h.lines[1].starts_with("on the time range, 300"), "{:?}", h.lines);
        // Between the edges, off the flag: not the note.
        let mid = pane.view.x_of(350_000.0);
        assert!(pane.hover(mid, 500.0).is_none_or(|h| !h.title.starts_with("note")));
        // The link and zooming to it.
        let link = encode_link(pane.notes().notes());
        let mut again = StorePane::new(Rc::new(skeleton()), Rc::from(Vec::new()), 1000.0, 600.0);
        let (set, trace) = again.notes_mut();
        assert!(set.replace(trace, decode_link(&link).expect("decoded")).is_empty());
        assert_eq!(again.notes().notes(), pane.notes().notes());
        assert!(NotesHost::show_note(&mut again, 0));
        let (t0, t1) = (again.view.t0_ns, again.view.t1_ns);
        assert!(t0 < 300_000.0 && t1 > 400_000.0 && t1 - t0 < 200_000.0, "{t0}..{t1}");
        assert!(!NotesHost::show_note(&mut again, 1));
    }
}
