// The grain panel beside the grain graph: search, the problems summary per metric, the table of the shown
// problem view's grains (sortable, click a row to locate it), and the selected grain's properties. It asks
// the Viewer (crates/page/src/grain_panel.rs) for every figure and only arranges them; it computes no metric.
// Trace-derived text goes into the DOM with textContent only (the page's CSP forbids inline handlers).

import { el } from './dom.js';
import { formatNumber } from './format.js';
import { attempt, setShown } from './panel.js';

/** At most this many table rows are in the DOM at once (the caption says how many there are). */
const MAX_ROWS = 1000;

/** Unmeasured values (null, NaN) sort below every measured one. */
const measured = (v) => (typeof v === 'number' && !Number.isNaN(v) ? v : -Infinity);
const metricName = (m) => m.replaceAll('_', ' ');
const sourceOf = (r) => [r.outline_function, r.source_line].filter(Boolean).join(' · ');

/** The Viewer's table (typed-array columns, interned strings) as rows to sort and list; null stays null. */
export function rowsOf(t) {
  if (!t) return null;
  const rows = new Array(t.grain.length);
  for (let i = 0; i < rows.length; i++) {
    const r = { grain: t.grain[i], task: t.task[i], value: t.value[i], severity: t.severity[i], on_critical_path: t.critical[i] === 1,
      source_line: t.strings[t.source[i]], outline_function: t.strings[t.outline[i]] };
    r.source = sourceOf(r);
    rows[i] = r;
  }
  return { metric: t.metric, threshold: t.threshold, unit: t.unit || '', rows };
}

// Table columns: key, header, how to compare two rows, which way a first click sorts.
const COLUMNS = [
  { key: 'task', title: 'task', cmp: (a, b) => a.task - b.task, desc: false },
  { key: 'source', title: 'source (function · file:line)', cmp: (a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.task - b.task), desc: false },
  { key: 'value', title: 'value', cmp: (a, b) => measured(a.value) - measured(b.value) || a.task - b.task, desc: true },
  { key: 'severity', title: 'severity', cmp: (a, b) => a.severity - b.severity || b.task - a.task, desc: true },
];

export class GrainPanel {
  /**
   * @param viewer   the page's Viewer
   * @param canvas   the view's canvas (a click on a grain selects it)
   * @param root     the panel's element (filled here)
   * @param help     an element in the help line that lists the panel's keys (shown with the panel)
   * @param onConfigure (key, value): change a view option the way the view's option bar does
   * @param onError  (message): show an error
   */
  constructor({ viewer, canvas, root, help, onConfigure, onError }) {
    Object.assign(this, { viewer, root, help, onConfigure, onError });
    this.active = false;
    this.table = null; // {metric, threshold, rows}
    this.sort = { key: 'severity', desc: true };
    this.search = { query: '', grains: [], tasks: [], total: 0, at: -1 };
    this.build();
    this.wireClicks(canvas);
  }

  build() {
    this.input = el('input', { id: 'grain-search', type: 'search', placeholder: 'task id, function or file:line', 'aria-label': 'find a grain' });
    this.next = el('button', { type: 'button', id: 'grain-next', title: 'next match (Enter or N)', text: 'Next' });
    this.hitsText = el('span', { id: 'grain-hits', class: 'muted' });
    this.summary = el('table', { id: 'grain-summary', class: 'grain-table compact' });
    this.caption = el('div', { id: 'grain-table-caption', class: 'muted' });
    this.problems = el('table', { id: 'grain-problems', class: 'grain-table' });
    this.tableBox = el('div', { class: 'scroll' }, this.problems);
    this.props = el('div', { id: 'grain-properties' });
    this.root.replaceChildren(
      el('div', { class: 'row' }, this.input, this.next),
      this.hitsText,
      el('h3', { text: 'Problems per metric' }), this.summary,
      el('h3', { id: 'grain-table-title', text: 'Problem view' }), this.caption, this.tableBox,
      el('h3', { text: 'Selected grain' }), this.props,
    );
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); this.findNext(); }
      else if (e.key === 'Escape') this.input.blur();
    });
    this.input.addEventListener('input', () => { this.search = { query: '', grains: [], tasks: [], total: 0, at: -1 }; this.hitsText.textContent = ''; });
    this.next.addEventListener('click', () => this.findNext());
  }

  wireClicks(canvas) {
    let down = null;
    canvas.addEventListener('pointerdown', (e) => { if (e.button === 0) down = { x: e.clientX, y: e.clientY }; });
    canvas.addEventListener('pointerup', (e) => {
      if (!this.active || !down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) { down = null; return; }
      down = null;
      const r = canvas.getBoundingClientRect();
      const grain = this.viewer.grain_at(e.clientX - r.left, e.clientY - r.top);
      this.select(grain ?? undefined, false);
    });
  }

  /** The page shows `view` (after a load, a view switch or an option change): show or hide, refresh. */
  update(view) {
    const wasActive = this.active;
    this.active = view === 'grains';
    setShown(this.active, this.root, this.help);
    if (!this.active) return;
    // Another graph loaded: search hits (grain indices) of the last one mean nothing here.
    const st = this.viewer.view_brief();
    const graph = `${st.grains}/${st.nodes}/${st.edges}/${st.critical_path_length}`;
    if (graph !== this.graph) {
      this.graph = graph;
      this.search = { query: '', grains: [], tasks: [], total: 0, at: -1 };
      this.input.value = '';
      this.hitsText.textContent = '';
    }
    this.renderSummary();
    const table = rowsOf(this.viewer.grain_problems(''));
    // Another problem view, or the tab shown again: its table opens at its top (most severe first), not
    // where the last one was scrolled to. The same table re-rendered (a colouring changed) keeps its place.
    const shown = `${table ? table.metric : ''}|${table ? table.threshold : ''}`;
    const fresh = !wasActive || shown !== this.shownTable;
    this.shownTable = shown;
    this.renderTable(table);
    if (fresh) this.tableBox.scrollTop = 0;
    this.renderProperties();
  }

  call(f) {
    return attempt(f, this.onError);
  }

  /** A count for reading, by the Viewer's formatter ("131,072"). */
  count(n) {
    return formatNumber(this.viewer, n);
  }

  /** A value for reading in `unit` by the Viewer's formatter ('NA' for unmeasured), as the views' tooltips. */
  number(v, unit = '') {
    return formatNumber(this.viewer, v, unit);
  }

  renderSummary() {
    const s = this.viewer.grain_summary();
    const current = this.viewer.view_brief().problem;
    const head = el('tr', {}, ...[['problem', ''], ['grains', 'problematic grains'], ['crit.', 'of which on the critical path'], ['worst', 'the most severe grain (its value)']]
      .map(([t, title]) => el('th', { text: t, title })));
    const rows = s.metrics.map((m) => {
      const name = el('button', { type: 'button', class: 'link', title: `show the problem view of ${m.threshold}`, text: m.threshold.replace(m.metric, metricName(m.metric)) });
      name.addEventListener('click', () => this.onConfigure('problem', m.metric === current ? 'structure' : m.metric));
      let worst = el('span', { class: 'muted', text: '—' });
      if (m.worst) {
        worst = el('button', { type: 'button', class: 'link', title: `locate task ${m.worst.task}`, text: `task ${m.worst.task} · ${this.number(m.worst.value, (s.units || {})[m.metric])}` });
        worst.addEventListener('click', () => this.select(m.worst.grain, true));
      }
      return el('tr', { data: { metric: m.metric }, class: m.metric === current ? 'current' : '' },
        el('td', {}, name), el('td', { class: 'num', text: this.number(m.count) }),
        el('td', { class: 'num', text: this.number(m.on_critical_path) }), el('td', { class: 'nowrap' }, worst));
    });
    // A profile without cpu ids (a GraphML file) gives no core count: say so, the view options set it.
    const cores = s.cores ? `${this.number(s.cores)} ${s.cores === 1 ? 'core' : 'cores'}` : 'cores unknown (set them in the view options)';
    const preset = s.thresholds === 'paper' ? "the papers'" : "the prototype's";
    this.summary.replaceChildren(el('caption', { text: `${preset} thresholds${s.edited ? ', edited' : ''}, ${cores}` }),
      el('thead', {}, head), el('tbody', {}, ...rows));
  }

  renderTable(table) {
    this.table = table;
    this.tableBox.hidden = !table;
    if (!table) {
      this.caption.textContent = 'Pick a problem view (above, or in the view menu) to list its grains.';
      this.problems.replaceChildren();
      return;
    }
    const rows = [...table.rows];
    const col = COLUMNS.find((c) => c.key === this.sort.key);
    rows.sort(col.cmp);
    if (this.sort.desc) rows.reverse();
    this.sorted = rows;
    this.caption.textContent = `${table.threshold}: ${this.number(rows.length)} grains` +
      (rows.length > MAX_ROWS ? `, the first ${this.number(MAX_ROWS)} shown` : '');
    const head = el('tr', {}, ...COLUMNS.map((c) => {
      const sorted = c.key === this.sort.key;
      const th = el('th', { 'aria-sort': sorted ? (this.sort.desc ? 'descending' : 'ascending') : 'none', data: { key: c.key } },
        el('button', { type: 'button', class: 'link', text: c.title + (sorted ? (this.sort.desc ? ' ▼' : ' ▲') : '') }));
      th.firstChild.addEventListener('click', () => {
        this.sort = sorted ? { key: c.key, desc: !this.sort.desc } : { key: c.key, desc: c.desc };
        this.renderTable(this.table);
        this.tableBox.scrollTop = 0;
      });
      return th;
    }));
    const selected = this.viewer.selected_grain();
    const body = rows.slice(0, MAX_ROWS).map((r) => {
      const tr = el('tr', { data: { grain: r.grain, task: r.task }, class: r.grain === selected ? 'selected' : '' },
        el('td', { class: 'num', text: String(r.task) }), el('td', { class: 'source', text: r.source, title: r.source }),
        el('td', { class: 'num', text: this.number(r.value, table.unit), data: { value: String(r.value) } }),
        el('td', { class: 'num', text: r.severity.toFixed(2) }));
      tr.addEventListener('click', () => this.select(r.grain, true));
      return tr;
    });
    this.problems.replaceChildren(el('thead', {}, head), el('tbody', {}, ...body));
  }

  renderProperties() {
    const grain = this.viewer.selected_grain();
    if (grain === undefined || grain === null) {
      this.props.replaceChildren(el('p', { class: 'muted', text: 'Click a grain, a table row or a search match.' }));
      return;
    }
    const p = this.viewer.grain_properties(grain);
    const get = (k) => (p.properties.find(([name]) => name === k) || [])[1];
    const where = `${get('outline_function') || '?'} · ${get('source_line') || '?'}`;
    // Each value for reading (`text`), the value as the profile has it kept beside (data-value, the tooltip).
    const list = el('dl', { class: 'props' }, ...p.properties.flatMap(([k, v, text]) => [el('dt', { text: k }),
      el('dd', { text: text ?? v, title: v, data: { value: v } })]));
    const problems = p.problems.length
      ? el('ul', { class: 'problems' }, ...p.problems.map((q) => el('li', { text: `${q.threshold} (severity ${q.severity.toFixed(2)})` })))
      : el('p', { class: 'muted', text: 'no problem under these thresholds' });
    this.props.replaceChildren(el('div', { class: 'title', text: `task ${p.task}` }), el('div', { class: 'where', text: where }), problems, list);
    this.props.dataset.task = String(p.task);
  }

  /** Select a grain (undefined clears), centring the view on it when `locate`. */
  select(grain, locate) {
    this.call(() => this.viewer.select_grain(grain, !!locate));
    this.afterSelect();
  }

  afterSelect() {
    const grain = this.viewer.selected_grain();
    for (const tr of this.problems.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    const row = grain === undefined ? null : this.problems.querySelector(`tr[data-grain="${grain}"]`);
    if (row) { row.classList.add('selected'); row.scrollIntoView({ block: 'nearest' }); }
    this.renderProperties();
  }

  /** Enter in the search box: the first match of a new query, else the next one (wrapping). */
  findNext() {
    const q = this.input.value.trim();
    if (!q) return;
    if (q !== this.search.query) {
      const r = this.call(() => this.viewer.grain_search(q));
      if (!r) return;
      this.search = { query: q, grains: r.grain, tasks: r.task, total: r.total, at: -1 };
    }
    const s = this.search;
    if (!s.grains.length) { this.hitsText.textContent = `no grain matches “${q}”`; return; }
    s.at = (s.at + 1) % s.grains.length;
    this.hitsText.textContent = `match ${this.count(s.at + 1)} of ${this.count(s.total)}: task ${s.tasks[s.at]}`;
    this.select(s.grains[s.at], true);
  }

  /** Keys of the grain view; true when the key was used (the page then ignores it). */
  onKey(e) {
    if (!this.active) return false;
    const has = this.viewer.selected_grain() !== undefined;
    const step = (dir) => { if (this.call(() => this.viewer.grain_step(dir)) !== undefined) this.afterSelect(); return true; };
    switch (e.key) {
      case '/': this.input.focus(); return true;
      case 'n': case 'N': if (!this.search.query) return false; this.findNext(); return true;
      case 'j': case 'J': return this.moveInTable(1);
      case 'k': case 'K': return this.moveInTable(-1);
      case 'ArrowUp': return has && step('parent');
      case 'ArrowDown': return has && step('child');
      case 'ArrowLeft': return has && step('previous');
      case 'ArrowRight': return has && step('next');
      case 'Escape': if (!has) return false; this.select(undefined, false); return true;
      default: return false;
    }
  }

  /** J/K: the next or previous row of the problem table after the selected grain's, located. */
  moveInTable(by) {
    if (!this.table || !this.sorted.length) return false;
    const shown = this.sorted.slice(0, MAX_ROWS);
    const grain = this.viewer.selected_grain();
    const at = shown.findIndex((r) => r.grain === grain);
    const next = at < 0 ? (by > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + by));
    this.select(shown[next].grain, true);
    return true;
  }
}
