// The timeline's counter tracks (OTF2 metrics, Chrome "C" events, Paraver counters): a "Counters" menu in
// the view options listing every series with a checkbox that shows or hides its track. The Viewer answers
// (crates/page/src/counters_panel.rs over views::counters); this file only lists the answers. Series names are trace
// text: set with textContent only.

import { el } from './dom.js';

export class CountersPanel {
  /** @param viewer the page's Viewer */
  constructor({ viewer }) {
    this.viewer = viewer;
    this.open = false;
  }

  /** The page shows `view`: for a timeline with counters, the menu goes into `box`. */
  update(view, box) {
    if (view !== 'timeline' || !box) return;
    const st = this.viewer.timeline_counters();
    if (!st || !st.series.length) return;
    const details = el('details', { id: 'counter-tracks' });
    details.open = this.open;
    details.addEventListener('toggle', () => { this.open = details.open; });
    const summary = el('summary', { title: 'Counter tracks below the rows: show or hide each series' });
    const list = el('ul');
    const count = () => {
      const s = this.viewer.timeline_counters();
      const shown = s ? s.series.filter((x) => x.shown).length : 0;
      summary.textContent = `Counters ${shown}/${st.series.length}`;
    };
    for (const s of st.series) {
      const box = el('input', { type: 'checkbox', 'data-series': String(s.series) });
      box.checked = s.shown;
      box.addEventListener('change', () => {
        this.viewer.timeline_set_counter_shown(s.series, box.checked);
        count();
      });
      const label = el('label', { title: `${s.samples} samples, min ${s.min}, max ${s.max}` }, box,
        el('span', { text: ` ${s.process} · ${s.name}` }));
      list.append(el('li', {}, label));
    }
    count();
    details.append(summary, list);
    box.append(details);
  }
}
