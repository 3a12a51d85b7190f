// The timeline's rows: a "Rows" panel beside the timeline with a text filter over "process / location" and a
// checklist (a process's fold toggle, each location's checkbox; a page of locations at a time, so 10k
// locations stay a short list), and the pointer on the label column (a process header or, in compact rows, a
// label folds/unfolds its process) and on the overview strip (a click or drag moves the window there). The
// Viewer answers (crates/page/src/rows_panel.rs over views::timeline); the compact-rows checkbox is an ordinary view
// option. Names are trace text: set with textContent only.

import { el } from './dom.js';
import { ViewPanel } from './panel.js';

const PAGE = 200;

export class RowsPanel extends ViewPanel {
  /** @param viewer the page's Viewer; canvas the view's canvas; root the panel's aside */
  constructor({ viewer, canvas, root, onChange, onError }) {
    super({ root, view: 'timeline', onError, toggle: { id: 'rows-toggle', title: 'Rows: filter, hide and fold processes and locations', text: 'Rows' } });
    Object.assign(this, { viewer, canvas, onChange: onChange || (() => {}) });
    this.filter = '';
    this.from = 0;
    this.dragging = false;
    this.build();
    this.wirePointer(canvas);
  }

  build() {
    this.input = el('input', { type: 'search', id: 'rows-filter', placeholder: 'filter: process / location', 'aria-label': 'Filter the list of locations' });
    this.input.addEventListener('input', () => { this.filter = this.input.value; this.from = 0; this.refresh(); });
    const all = el('button', { type: 'button', id: 'rows-show-all', text: 'Show all' });
    all.addEventListener('click', () => { this.call(() => this.viewer.configure('hidden', '')); this.changed(); });
    this.count = el('div', { class: 'count', id: 'rows-count' });
    this.list = el('ul', { id: 'rows-list', class: 'scroll' });
    this.more = el('div', { class: 'row' });
    this.root.replaceChildren(el('h3', { text: 'Rows' }), el('div', { class: 'row' }, this.input, all), this.count, this.list, this.more);
  }

  /** The pointer on the label column or the overview strip (before the page's drag pans): true when taken. */
  takesPointer(e) {
    if (this.view !== 'timeline' || e.button !== 0 || e.shiftKey) return false;
    const r = this.canvas.getBoundingClientRect();
    const [x, y] = [e.clientX - r.left, e.clientY - r.top];
    if (this.call(() => this.viewer.timeline_on_overview(x, y))) {
      this.dragging = true;
      this.canvas.setPointerCapture(e.pointerId);
      this.call(() => this.viewer.timeline_overview_go(x));
      return true;
    }
    if (this.call(() => this.viewer.timeline_rows_click(x, y))) { this.changed(); return true; }
    return false;
  }

  wirePointer(canvas) {
    canvas.addEventListener('pointermove', (e) => {
      if (!this.dragging) return;
      this.call(() => this.viewer.timeline_overview_go(e.clientX - canvas.getBoundingClientRect().left));
    });
    const end = () => { this.dragging = false; };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
  }

  /** Rows changed (a fold, a hidden location): the list and whatever the page keeps of the options. */
  changed() {
    if (this.open) this.refresh();
    this.onChange();
  }

  refresh() {
    const st = this.call(() => this.viewer.timeline_locations(this.filter, this.from, PAGE));
    if (!st) return;
    const items = [];
    for (const p of st.processes) {
      const fold = el('button', { type: 'button', class: 'fold', 'data-process': String(p.id), title: p.folded ? 'Expand this process' : 'Collapse its rows into one', text: p.folded ? '\u25b8' : '\u25be' });
      fold.setAttribute('aria-expanded', String(!p.folded));
      fold.addEventListener('click', () => { this.call(() => this.viewer.timeline_set_folded(p.id, !p.folded)); this.changed(); });
      const locs = el('ul');
      for (const l of p.locations) {
        const box = el('input', { type: 'checkbox', 'data-location': String(l.id) });
        box.checked = l.shown;
        box.addEventListener('change', () => {
          if (!this.call(() => this.viewer.timeline_set_hidden(l.id, !box.checked))) box.checked = !box.checked;
          this.changed();
        });
        locs.append(el('li', {}, el('label', {}, box, el('span', { text: ` ${l.name}` }))));
      }
      items.push(el('li', { class: 'process' }, fold, el('span', { class: 'name', text: ` ${p.name}` }), locs));
    }
    this.list.replaceChildren(...items);
    const to = st.from + st.listed;
    this.count.textContent = st.matched === 0 ? 'No location matches.' : `Locations ${st.from + 1}–${to} of ${st.matched}`;
    this.more.replaceChildren();
    if (st.from > 0) {
      const prev = el('button', { type: 'button', text: 'Previous' });
      prev.addEventListener('click', () => { this.from = Math.max(0, this.from - PAGE); this.refresh(); });
      this.more.append(prev);
    }
    if (to < st.matched) {
      const next = el('button', { type: 'button', id: 'rows-next', text: 'Next' });
      next.addEventListener('click', () => { this.from = to; this.refresh(); });
      this.more.append(next);
    }
  }
}
