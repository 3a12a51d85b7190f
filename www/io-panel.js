// The I/O panel beside the timeline (issue #57): for a trace with I/O intervals (a Darshan log's DXT segments or
// per-file records), the bytes read and written over the visible window (read up, written down, one bar per
// bin), the files with the most bytes (a click shows that file alone, again: every file) and the bytes per
// rank. It follows the timeline: a new visible window is asked again. The worker sums (crates/worker/src/io.rs,
// analyses::io: `weft io --json`'s numbers); this file asks and draws the answer. Trace text (file and rank
// names) goes in with textContent only.

import { el } from './dom.js';
import { formatBytes, formatDuration } from './format.js';
import { ViewPanel } from './panel.js';

/** Bins asked for the chart: one per two pixels of its width. */
const BINS = 120;
/** Files listed at most (the caption says how many there are). */
const MAX_FILES = 25;
/** How often the panel looks whether the visible window moved (ms). */
const FOLLOW_MS = 300;
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export class IoPanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param root    the panel's element (filled here)
   * @param ask     (what, args) => Promise of the worker's answer (reader.js `ask`)
   * @param weft    the page's state (its `hooks.loaded` say a new trace is shown)
   * @param onError (message): show an error
   */
  constructor({ viewer, root, ask, weft, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'io-toggle', title: 'I/O: bytes read and written over time, per file and per rank', text: 'I/O' } });
    Object.assign(this, { viewer, ask, weft });
    this.file = ''; // the file shown alone ('' every file)
    this.traceNo = 0; // counts the traces shown (a new one drops the answers about the last)
    this.hasIo = null; // whether the trace shown has I/O intervals (null: not known yet)
    this.asked = null; // the question last asked: {trace, window, file}
    this.summary = null;
    this.build();
    weft.hooks.loaded.push(() => this.loaded());
    setInterval(() => this.follow(), FOLLOW_MS);
  }

  build() {
    this.caption = el('div', { id: 'io-caption', class: 'muted' });
    this.totals = el('div', { id: 'io-totals' });
    this.chart = svg('svg', { id: 'io-chart', viewBox: `0 0 ${2 * BINS} 120`, preserveAspectRatio: 'none', role: 'img' });
    this.axis = el('div', { id: 'io-axis', class: 'muted' });
    this.filter = el('div', { id: 'io-filter', class: 'muted' });
    this.files = el('table', { id: 'io-files', class: 'io-list' });
    this.ranks = el('table', { id: 'io-ranks', class: 'io-list' });
    this.root.replaceChildren(this.caption, this.totals,
      el('div', { class: 'io-legend' }, el('span', { class: 'io-read', text: '▮ read' }), el('span', { class: 'io-write', text: '▮ written' })),
      this.chart, this.axis,
      el('h3', { text: 'Files (most bytes first)' }), this.filter, el('div', { class: 'scroll' }, this.files),
      el('h3', { text: 'Per rank' }), el('div', { class: 'scroll' }, this.ranks));
  }

  /** Open, beside the timeline, and the trace shown has I/O intervals. */
  get shown() {
    return this.view === this.panelView && this.open && this.hasIo === true;
  }

  /** The toggle is there for a trace with I/O only (hidden until the worker has said so). */
  update(view, box) {
    super.update(view, box);
    const b = box && box.querySelector(`#${this.toggle.id}`);
    if (b) b.hidden = this.hasIo !== true;
  }

  /** A new trace: whether it has I/O, asked once (the toggle and the panel follow the answer). */
  loaded() {
    const n = ++this.traceNo;
    this.file = '';
    this.hasIo = null;
    this.summary = null;
    this.asked = null;
    this.applyShown();
    if (this.weft.store && this.weft.store.open) { this.hasIo = false; return; }
    this.ask('io', { bins: 1 }).then((a) => {
      if (n !== this.traceNo) return;
      this.hasIo = a.result.layer !== null;
      this.applyShown();
    }, () => { if (n === this.traceNo) this.hasIo = false; });
  }

  applyShown() {
    const b = document.getElementById(this.toggle.id);
    if (b) b.hidden = this.hasIo !== true;
    this.root.hidden = !this.shown;
    if (this.shown) this.refresh();
  }

  refresh() {
    this.asked = null;
    this.follow();
  }

  /** The visible window (trace ns), clamped to the run. */
  visible() {
    let st;
    try { st = this.viewer.view_brief(); } catch { return null; }
    if (!st || st.view !== 'timeline') return null;
    return [Math.max(0, Math.round(st.t0_ns)), Math.max(0, Math.round(Math.min(st.t1_ns, st.span_ns)))];
  }

  /** While shown: ask again when the window, the file or the trace changed since the last question. */
  follow() {
    if (!this.shown || this.asking) return;
    const window = this.visible();
    if (!window) return;
    const q = { trace: this.traceNo, window, file: this.file };
    const a = this.asked;
    if (a && a.trace === q.trace && a.file === q.file && a.window[0] === window[0] && a.window[1] === window[1]) return;
    this.compute(q);
  }

  async compute(q) {
    this.asked = q;
    this.asking = true;
    let answer;
    try {
      answer = await this.ask('io', { window: q.window, bins: BINS, file: q.file });
    } catch (e) {
      this.onError(`I/O: ${e.message || e}`);
      return;
    } finally {
      this.asking = false;
    }
    if (q.trace !== this.traceNo) return;
    this.summary = answer.result;
    this.render();
    this.weft.ioAnswers = (this.weft.ioAnswers || 0) + 1;
  }

  render() {
    const s = this.summary;
    const bytes = (n) => formatBytes(this.viewer, n);
    const dur = (ns) => formatDuration(this.viewer, ns);
    if (s.layer === null) {
      this.caption.textContent = 'No I/O intervals in this trace.';
      return;
    }
    const layers = s.layers.length > 1 ? ` (of ${s.layers.map((l) => l.name).join(', ')}: the same bytes at each layer)` : '';
    this.caption.textContent = `${s.layer} layer${layers}, ${dur(s.window_t0_ns)} – ${dur(s.window_t1_ns)}`;
    this.totals.replaceChildren(
      el('span', { id: 'io-read-total', 'data-bytes': String(s.read_bytes), text: `read ${bytes(s.read_bytes)} in ${dur(s.read_ns)}` }),
      el('span', { text: ' · ' }),
      el('span', { id: 'io-write-total', 'data-bytes': String(s.write_bytes), text: `written ${bytes(s.write_bytes)} in ${dur(s.write_ns)}` }),
      el('span', { text: ` · ${s.operations} operations` }));
    this.drawChart(s);
    this.axis.textContent = `bins of ${dur((s.window_t1_ns - s.window_t0_ns) / Math.max(1, s.bins.length))}; most in a bin: ${bytes(Math.max(0, ...s.bins.map((b) => Math.max(b.read_bytes, b.write_bytes))))}`;
    this.filter.textContent = s.file ? `showing ${s.file} alone (click it again for every file)` : `${s.files.length} file${s.files.length === 1 ? '' : 's'}; a click shows one alone`;
    this.listFiles(s, bytes);
    this.listRanks(s, bytes);
  }

  /** Read bytes up from the middle line, written bytes down, each bin one bar, scaled to the largest. */
  drawChart(s) {
    const n = s.bins.length;
    const w = (2 * BINS) / Math.max(1, n);
    const max = Math.max(1, ...s.bins.map((b) => Math.max(b.read_bytes, b.write_bytes)));
    const bars = [svg('line', { x1: 0, y1: 60, x2: 2 * BINS, y2: 60, class: 'io-zero' })];
    s.bins.forEach((b, k) => {
      const r = (b.read_bytes / max) * 58;
      const wr = (b.write_bytes / max) * 58;
      if (b.read_bytes > 0) bars.push(svg('rect', { x: k * w, y: 60 - r, width: w, height: Math.max(r, 0.5), class: 'io-read', 'data-bin': k, 'data-bytes': b.read_bytes }));
      if (b.write_bytes > 0) bars.push(svg('rect', { x: k * w, y: 60, width: w, height: Math.max(wr, 0.5), class: 'io-write', 'data-bin': k, 'data-bytes': b.write_bytes }));
    });
    this.chart.replaceChildren(...bars);
  }

  listFiles(s, bytes) {
    const head = el('tr', {}, el('th', { text: 'File' }), el('th', { text: 'Read' }), el('th', { text: 'Written' }), el('th', { text: 'Ops' }));
    const rows = s.files.slice(0, MAX_FILES).map((f) => {
      const short = f.name.length > 48 ? `…${f.name.slice(-47)}` : f.name;
      const tr = el('tr', { class: f.name === s.file ? 'selected' : '', 'data-file': f.name, title: f.name },
        el('td', { text: short }), el('td', { text: bytes(f.read_bytes) }), el('td', { text: bytes(f.write_bytes) }), el('td', { text: String(f.operations) }));
      tr.addEventListener('click', () => { this.file = this.file === f.name ? '' : f.name; this.follow(); });
      return tr;
    });
    if (s.files.length > MAX_FILES) rows.push(el('tr', {}, el('td', { class: 'muted', colspan: '4', text: `${s.files.length - MAX_FILES} more files` })));
    this.files.replaceChildren(head, ...rows);
  }

  listRanks(s, bytes) {
    const shown = s.per_process.filter((p) => p.operations > 0 || p.read_bytes + p.write_bytes > 0);
    const max = Math.max(1, ...shown.map((p) => p.read_bytes + p.write_bytes));
    const head = el('tr', {}, el('th', { text: 'Rank' }), el('th', { text: 'Read' }), el('th', { text: 'Written' }), el('th', { text: '' }));
    const rows = shown.map((p) => {
      const bar = el('span', { class: 'io-bar' });
      bar.style.width = `${Math.round(((p.read_bytes + p.write_bytes) / max) * 60)}px`;
      return el('tr', { 'data-rank': p.name }, el('td', { text: p.name }), el('td', { text: bytes(p.read_bytes) }), el('td', { text: bytes(p.write_bytes) }), el('td', {}, bar));
    });
    if (!rows.length) rows.push(el('tr', {}, el('td', { class: 'muted', text: 'No I/O in this window.' })));
    this.ranks.replaceChildren(head, ...rows);
  }
}
