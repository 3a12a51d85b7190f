// The profile panel beside the timeline: the selected time range (Shift+drag, or Shift+click twice) and its
// duration, the region profile table of the selection or of the whole trace (count, inclusive, exclusive,
// share; sortable; filtered by location or process), a row click marking that region's intervals, and the
// region search with next/previous match and the count. The Viewer answers every question
// (crates/page/src/profile_panel.rs over views::timeline and analyses::profile, the table `weft info --window
// --json` prints); this file only arranges the answers. Trace-derived text goes in with textContent only.

import { el } from './dom.js';
import { formatDuration, formatNumber } from './format.js';
import { ViewPanel } from './panel.js';

/** At most this many table rows are in the DOM at once (the caption says how many there are). */
const MAX_ROWS = 1000;
/** The legend lists this many regions (those with the most exclusive time). */
const LEGEND = 8;

/** A colour swatch (the colour set through the CSSOM: the page's policy allows no inline style attribute). */
const swatch = (color) => {
  const s = document.createElement('span');
  s.className = 'swatch';
  s.style.background = color;
  return s;
};

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.region - b.region);
// Table columns: key, header, how to compare two rows, which way a first click sorts.
const COLUMNS = [
  { key: 'name', title: 'region', cmp: byName, desc: false },
  { key: 'count', title: 'count', cmp: (a, b) => a.count - b.count || byName(a, b), desc: true },
  { key: 'inclusive_ns', title: 'inclusive', cmp: (a, b) => a.inclusive_ns - b.inclusive_ns || byName(a, b), desc: true },
  { key: 'exclusive_ns', title: 'exclusive', cmp: (a, b) => a.exclusive_ns - b.exclusive_ns || byName(a, b), desc: true },
  { key: 'share', title: 'share', cmp: (a, b) => a.share - b.share || byName(a, b), desc: true },
];

/** What identifies the rows shown: a new trace or another location filter gives another legend. */
const rowsKey = (st) => `${st.span_ns}/${st.row_count}/${st.locations ?? ''}/${st.first_row_name ?? ''}`;

export class ProfilePanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param canvas  the view's canvas (Shift+drag or two Shift+clicks select a time range)
   * @param root    the panel's element (filled here)
   * @param onError (message): show an error
   */
  constructor({ viewer, canvas, root, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'profile-toggle', title: 'Profile of a time range, and region search (Shift+drag to select)', text: 'Profile' } });
    Object.assign(this, { viewer, canvas });
    this.sort = { key: 'inclusive_ns', desc: true };
    this.marked = -1;
    this.selecting = null; // {x, moved} while Shift+dragging
    this.firstClick = null; // the time of a first Shift+click, waiting for the second
    this.build();
    this.wirePointer(canvas);
  }

  build() {
    this.selText = el('div', { id: 'profile-selection' });
    this.clear = el('button', { type: 'button', id: 'profile-clear', text: 'Clear' });
    this.scope = el('select', { id: 'profile-scope', 'aria-label': 'profile of' },
      el('option', { value: 'selection', text: 'the selection' }), el('option', { value: 'whole', text: 'the whole trace' }));
    this.locations = el('input', { id: 'profile-locations', type: 'search', placeholder: 'locations: glob, e.g. Rank 3 / *', 'aria-label': 'filter locations' });
    this.caption = el('div', { id: 'profile-caption', class: 'muted' });
    this.table = el('table', { id: 'profile-table', class: 'grain-table' });
    this.search = el('input', { id: 'region-search', type: 'search', placeholder: 'region name or glob (MPI_*)', 'aria-label': 'search regions' });
    this.prev = el('button', { type: 'button', id: 'region-prev', title: 'previous match (Shift+Enter)', text: '◀' });
    this.next = el('button', { type: 'button', id: 'region-next', title: 'next match (Enter)', text: '▶' });
    this.hits = el('span', { id: 'region-hits', class: 'muted' });
    this.legend = el('ul', { id: 'profile-legend' });
    this.root.replaceChildren(
      el('h3', { text: 'Colours: regions with the most time' }), this.legend,
      el('h3', { text: 'Search regions' }),
      el('div', { class: 'row' }, this.search, this.prev, this.next), this.hits,
      el('h3', { text: 'Time range' }),
      el('div', { class: 'row' }, this.selText, this.clear),
      el('h3', { text: 'Profile' }),
      el('div', { class: 'row' }, el('span', { text: 'of' }), this.scope),
      el('div', { class: 'row' }, this.locations),
      this.caption, el('div', { class: 'scroll' }, this.table),
    );
    this.clear.addEventListener('click', () => { this.call(() => this.viewer.timeline_clear_selection()); this.firstClick = null; this.refresh(); });
    this.scope.addEventListener('change', () => this.renderTable());
    this.locations.addEventListener('change', () => this.renderTable());
    this.search.addEventListener('input', () => this.find(''));
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); this.step(!e.shiftKey); } else if (e.key === 'Escape') this.search.blur();
    });
    this.next.addEventListener('click', () => this.step(true));
    this.prev.addEventListener('click', () => this.step(false));
  }

  /** A count for reading, by the Viewer's formatter ("131,072"). */
  count(n) {
    return formatNumber(this.viewer, n);
  }

  /** A duration as the timeline's hovers write it (the Viewer's formatter). */
  ns(ns) {
    return formatDuration(this.viewer, ns);
  }

  /** Shift+drag selects; a Shift+click sets one end and the next the other. Returns whether it takes this press. */
  takesPointer(e) {
    return this.view === 'timeline' && e.button === 0 && e.shiftKey;
  }

  wirePointer(canvas) {
    const local = (e) => e.clientX - canvas.getBoundingClientRect().left;
    canvas.addEventListener('pointerdown', (e) => {
      if (!this.takesPointer(e)) return;
      this.selecting = { x: local(e), moved: false };
    });
    canvas.addEventListener('pointermove', (e) => {
      const s = this.selecting;
      if (!s) return;
      const x = local(e);
      if (!s.moved && Math.abs(x - s.x) < 4) return;
      s.moved = true;
      this.firstClick = null;
      this.showSelection(this.call(() => this.viewer.timeline_select_px(s.x, x)));
    });
    canvas.addEventListener('pointerup', (e) => {
      const s = this.selecting;
      if (!s) return;
      this.selecting = null;
      if (s.moved) { this.setOpen(true); return; }
      // A click: the first sets one end, the second the other (the view may have moved in between).
      const t = this.call(() => this.viewer.timeline_time_at(local(e)));
      if (this.firstClick === null) {
        this.firstClick = t;
        this.selText.textContent = 'Shift+click the other end of the range';
        return;
      }
      this.showSelection(this.call(() => this.viewer.timeline_select(this.firstClick, t)));
      this.firstClick = null;
      this.setOpen(true);
    });
  }

  /** The page shows `view`: away from the timeline, a selection being made is dropped. */
  update(view, box) {
    super.update(view, box);
    if (view !== 'timeline') { this.selecting = null; this.firstClick = null; }
  }

  refresh() {
    if (this.view !== 'timeline') return;
    this.showSelection(this.call(() => this.viewer.timeline_selection()));
    const st = this.viewer.view_brief();
    this.marked = st.marked_region ?? -1;
    if (!st.search) { this.hits.textContent = ''; }
    // The legend changes with what is loaded and with the rows shown (the location filter).
    const key = rowsKey(st);
    if (key !== this.legendKey) { this.legendKey = key; this.renderLegend(); }
    this.renderTable();
  }

  renderLegend() {
    const items = this.call(() => this.viewer.timeline_legend(LEGEND)) || [];
    this.legend.replaceChildren(...items.map((it) => {
      const li = el('li', { 'data-region': String(it.region), title: it.name }, swatch(it.color), el('span', { text: it.short ?? it.name }));
      li.addEventListener('click', () => this.mark(it.region === this.marked ? -1 : it.region));
      return li;
    }));
  }

  showSelection(sel) {
    this.selection = sel || null;
    this.selText.textContent = sel
      ? `${this.ns(sel.duration_ns)} (${this.ns(sel.t0_ns)} to ${this.ns(sel.t1_ns)})`
      : 'none: Shift+drag on the timeline, or Shift+click twice';
    this.clear.disabled = !sel;
    if (!this.selecting && !this.root.hidden) this.renderTable();
  }

  renderTable() {
    const p = this.call(() => this.viewer.timeline_profile(this.scope.value === 'whole', this.locations.value));
    if (!p) return;
    this.profile = p;
    const what = p.whole ? 'the whole trace' : 'the selection';
    const filter = this.locations.value.trim() ? ` · locations ${this.locations.value.trim()}` : '';
    this.caption.textContent = `${this.count(p.rows.length)} region${p.rows.length === 1 ? '' : 's'} in ${what} (${this.ns(p.duration_ns)})${filter}` +
      (p.rows.length > MAX_ROWS ? ` · first ${MAX_ROWS} shown` : '');
    const col = COLUMNS.find((c) => c.key === this.sort.key);
    const rows = [...p.rows].sort((a, b) => (this.sort.desc ? -1 : 1) * col.cmp(a, b));
    const head = el('tr', {}, ...COLUMNS.map((c) => {
      const th = el('th', { scope: 'col', 'data-key': c.key }, el('button', { type: 'button', class: 'link', text: c.title + (c.key === this.sort.key ? (this.sort.desc ? ' ▾' : ' ▴') : '') }));
      th.firstChild.addEventListener('click', () => {
        this.sort = c.key === this.sort.key ? { key: c.key, desc: !this.sort.desc } : { key: c.key, desc: c.desc };
        this.renderTable();
      });
      return th;
    }));
    const body = el('tbody');
    for (const r of rows.slice(0, MAX_ROWS)) {
      const tr = el('tr', { 'data-region': String(r.region), 'data-count': String(r.count), 'data-inclusive': String(r.inclusive_ns), 'data-exclusive': String(r.exclusive_ns) },
        el('td', { class: 'source', title: r.name }, swatch(r.color), el('span', { text: r.short ?? r.name })),
        el('td', { class: 'num', text: this.count(r.count) }),
        el('td', { class: 'num', text: this.ns(r.inclusive_ns) }),
        el('td', { class: 'num', text: this.ns(r.exclusive_ns) }),
        el('td', { class: 'num', text: `${(100 * r.share).toFixed(1)}%` }));
      if (r.region === this.marked) tr.classList.add('selected');
      tr.addEventListener('click', () => this.mark(r.region === this.marked ? -1 : r.region));
      body.append(tr);
    }
    this.table.replaceChildren(el('thead', {}, head), body);
  }

  /** Bring a region's intervals forward in the timeline (-1: none). */
  mark(region) {
    if (this.call(() => this.viewer.timeline_mark_region(region)) === undefined) return;
    this.marked = region;
    // The histogram panel follows the region clicked (app.js sets onMark).
    const row = region >= 0 && this.profile ? this.profile.rows.find((r) => r.region === region) : null;
    if (row && this.onMark) this.onMark(row.name);
    for (const tr of this.table.querySelectorAll('tbody tr')) tr.classList.toggle('selected', Number(tr.dataset.region) === region);
  }

  /** Start a search for `pattern` ('' : the text typed); returns the count. */
  find(pattern) {
    const count = this.call(() => this.viewer.timeline_search(pattern || this.search.value)) ?? 0;
    this.searched = pattern || this.search.value;
    this.hits.textContent = this.searched.trim() ? `${this.count(count)} matches` : '';
    return count;
  }

  /** The next (or previous) match, zoomed to. */
  step(forward) {
    if (this.searched !== this.search.value) this.find('');
    const hit = this.call(() => this.viewer.timeline_search_step(forward));
    if (!hit) { if (this.search.value.trim()) this.hits.textContent = 'no match'; return; }
    this.hits.textContent = `${this.count(hit.at + 1)} / ${this.count(hit.count)} · ${hit.region} at ${this.ns(hit.start_ns)}`;
  }
}
