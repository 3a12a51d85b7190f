// The duration histogram panel beside the timeline (issue #55): a region (typed, chosen from the list, or the
// row clicked in the profile panel) over a selection (the whole run, the visible window or the selected
// range, on the locations a filter matches); its instances' durations on log-spaced bins (equal widths on a
// log axis) with count, min, p50, p90, p99 and max; brushing a bin or a run of bins lists its instances
// slowest first (location, start, duration; a click zooms the timeline to one) and marks them all in the
// timeline; and the slowest 1 % of every region in one table. The worker computes every number with the
// functions and JSON of `weft histogram --json` and `--outliers --json` (crates/worker/src/histogram.rs);
// this file asks and arranges the answers. Trace text goes in with textContent only.

import { el } from './dom.js';
import { formatDuration, formatNumber } from './format.js';
import { ViewPanel } from './panel.js';

/** Instances listed for a brush (all of them are marked). */
const LISTED = 200;
/** Instances listed per region in the outliers table. */
const OUTLIERS_LISTED = 5;

export class HistogramPanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param root    the panel's element (filled here)
   * @param ask     (what, args) => Promise of the worker's answer (reader.js `ask`)
   * @param weft    the page's state (its `loads` tells answers for an older trace)
   * @param onError (message): show an error
   */
  constructor({ viewer, root, ask, weft, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'histogram-toggle', title: 'Duration histogram of a region, and the slowest 1 % of every region', text: 'Histogram' } });
    Object.assign(this, { viewer, ask, weft });
    this.asked = null; // the selection of the histogram shown: {region, window, locations, bins}
    this.hist = null; // the worker's histogram (weft histogram --json)
    this.brush = null; // [first bin, last bin] brushed
    this.build();
  }

  build() {
    const option = (value, text) => el('option', { value, text });
    this.region = el('input', { type: 'search', id: 'histogram-region', list: 'histogram-regions', placeholder: 'region name', 'aria-label': 'the region' });
    this.regions = el('datalist', { id: 'histogram-regions' });
    this.scope = el('select', { id: 'histogram-scope', 'aria-label': 'the instances of' },
      option('whole', 'the whole run'), option('window', 'the visible window'), option('selection', 'the selected range'));
    this.locations = el('input', { type: 'search', id: 'histogram-locations', placeholder: 'locations: all (or a glob)', 'aria-label': 'locations (a glob over process / location)' });
    this.bins = el('input', { type: 'number', id: 'histogram-bins', min: '1', max: '1000', value: '20', 'aria-label': 'bins', title: 'log-spaced bins' });
    this.run = el('button', { type: 'button', id: 'histogram-run', text: 'Compute', title: 'Ask the worker for the histogram of this region' });
    this.caption = el('div', { id: 'histogram-caption', class: 'muted' });
    this.stats = el('dl', { id: 'histogram-stats' });
    this.chart = el('div', { id: 'histogram-bars', role: 'group', 'aria-label': 'bins: click, drag or Shift+click to brush' });
    this.axis = el('div', { id: 'histogram-axis', class: 'muted' });
    this.picked = el('div', { id: 'histogram-picked', class: 'muted' });
    this.clear = el('button', { type: 'button', id: 'histogram-clear', text: 'clear marks', hidden: '' });
    this.list = el('table', { id: 'histogram-instances', class: 'calltree-list' });
    this.outliersRun = el('button', { type: 'button', id: 'histogram-outliers-run', text: 'Slowest 1 % of each region', title: 'The outliers of every region in this selection' });
    this.outliersCaption = el('div', { id: 'histogram-outliers-caption', class: 'muted' });
    this.outliers = el('table', { id: 'histogram-outliers', class: 'calltree-list' });
    this.body = el('div', { id: 'histogram-body', hidden: '' },
      this.stats, this.chart, this.axis,
      el('div', { class: 'row' }, this.picked, this.clear),
      el('div', { class: 'scroll' }, this.list));
    this.root.replaceChildren(
      el('div', { class: 'row' }, this.region, this.regions),
      el('div', { class: 'row' }, el('span', { text: 'of' }), this.scope, this.bins, this.run),
      el('div', { class: 'row' }, this.locations),
      this.caption, this.body,
      el('h3', { text: 'Outliers' }),
      el('div', { class: 'row' }, this.outliersRun), this.outliersCaption,
      el('div', { class: 'scroll' }, this.outliers));
    this.run.addEventListener('click', () => this.compute());
    this.region.addEventListener('change', () => { if (this.region.value.trim()) this.compute(); });
    this.scope.addEventListener('change', () => { if (this.hist) this.compute(); });
    this.bins.addEventListener('change', () => { if (this.hist) this.compute(); });
    this.locations.addEventListener('change', () => { if (this.hist && this.locations.value !== this.askedFilter) this.compute(); });
    this.clear.addEventListener('click', () => this.brushBins(null));
    this.outliersRun.addEventListener('click', () => this.computeOutliers());
    this.wireBrush();
  }

  /** A press on a bar starts a brush, moving over others extends it, the release asks for its instances;
   *  Shift+click extends the brush shown. */
  wireBrush() {
    const binOf = (e) => {
      const b = e.target.closest && e.target.closest('[data-bin]');
      return b ? Number(b.dataset.bin) : null;
    };
    let from = null;
    this.chart.addEventListener('pointerdown', (e) => {
      const k = binOf(e);
      if (k === null || e.button !== 0) return;
      e.preventDefault();
      from = e.shiftKey && this.brush ? this.brush[0] : k;
      this.showBrush([Math.min(from, k), Math.max(from, k)]);
    });
    this.chart.addEventListener('pointerover', (e) => {
      const k = binOf(e);
      if (from === null || k === null) return;
      this.showBrush([Math.min(from, k), Math.max(from, k)]);
    });
    const end = () => {
      if (from === null) return;
      from = null;
      this.brushBins(this.brush);
    };
    this.chart.addEventListener('pointerup', end);
    this.chart.addEventListener('pointerleave', end);
    this.chart.addEventListener('keydown', (e) => {
      const k = binOf(e);
      if (k === null || (e.key !== 'Enter' && e.key !== ' ')) return;
      e.preventDefault();
      this.brushBins([k, k]);
    });
  }

  refresh() {
    // A load shows its tabs (and so this panel) before it counts itself loaded: look once it has.
    setTimeout(() => {
      this.fillRegions();
      if ((this.hist || this.outliers.firstChild) && this.loaded !== this.weft.loads) {
        // Another trace: what was shown is of the one before (its marks went with it).
        this.hist = null;
        this.marked = false;
        this.body.hidden = true;
        this.caption.textContent = '';
        this.outliers.replaceChildren();
        this.outliersCaption.textContent = '';
      }
    }, 0);
  }

  /** The regions of the trace shown, the busiest first, as the region box's choices. */
  fillRegions() {
    if (this.regionsOf === this.weft.loads) return;
    const p = this.call(() => this.viewer.timeline_profile(true, ''));
    if (!p) return;
    this.regionsOf = this.weft.loads;
    const seen = new Set();
    const rows = [...p.rows].sort((a, b) => b.inclusive_ns - a.inclusive_ns);
    this.regions.replaceChildren(...rows.filter((r) => !seen.has(r.name) && seen.add(r.name)).map((r) => el('option', { value: r.name })));
  }

  /** The profile panel's row clicked: that region's histogram, when this panel is open. */
  fromProfile(name) {
    if (!name) return;
    this.region.value = name;
    if (this.shown) this.compute();
  }

  /** The window asked for: the visible one, the selected range, or null (the whole run). */
  window() {
    if (this.scope.value === 'whole') return null;
    if (this.scope.value === 'selection') {
      const s = this.call(() => this.viewer.timeline_selection());
      if (s) return [s.t0_ns, s.t1_ns];
      this.onError('Histogram: no range is selected (Shift+drag on the timeline); the visible window is used');
    }
    const st = this.call(() => this.viewer.view_brief());
    return st && st.view === 'timeline' ? [Math.max(0, st.t0_ns), Math.max(0, Math.min(st.t1_ns, st.span_ns))] : null;
  }

  /** The selection as the worker takes it: {window, locations}, or null (no location matches). */
  selection() {
    this.askedFilter = this.locations.value;
    let locations;
    try { locations = this.viewer.calltree_locations(this.locations.value); } catch (e) { this.onError(String(e)); return null; }
    if (locations && locations.length === 0) { this.caption.textContent = 'No location matches the filter.'; return null; }
    return { window: this.window(), locations: locations ? Array.from(locations) : null };
  }

  ns(ns) {
    return formatDuration(this.viewer, ns);
  }

  count(n) {
    return formatNumber(this.viewer, n);
  }

  /** Ask the worker for the histogram of the region typed over the selection. */
  async compute() {
    const region = this.region.value.trim();
    if (!region) { this.caption.textContent = 'Type or choose a region.'; return; }
    if (this.weft.store && this.weft.store.open) {
      this.caption.textContent = 'A store\'s histogram is the command line\'s for now: weft histogram STORE --region NAME.';
      return;
    }
    const sel = this.selection();
    if (!sel) return;
    const bins = Math.max(1, Math.min(1000, Math.round(Number(this.bins.value)) || 20));
    const load = this.weft.loads;
    const asked = this.asking = { region, bins, ...sel };
    this.caption.textContent = 'computing the histogram…';
    let answer;
    try {
      answer = await this.ask('histogram', asked);
    } catch (e) {
      if (asked === this.asking) this.caption.textContent = '';
      this.onError(`Histogram: ${e.message || e}`);
      return;
    }
    if (asked !== this.asking || load !== this.weft.loads) return;
    this.loaded = load;
    this.asked = asked;
    this.hist = answer.result;
    this.brushBins(null);
    this.render();
    this.weft.histograms = (this.weft.histograms || 0) + 1;
  }

  render() {
    const h = this.hist;
    const a = this.asked;
    const of = a.window ? `${this.ns(a.window[0])} – ${this.ns(a.window[1])}` : 'the whole run';
    const where = a.locations ? `${this.count(a.locations.length)} location${a.locations.length === 1 ? '' : 's'}` : 'every location';
    this.caption.textContent = `${h.region}: ${this.count(h.count)} instance${h.count === 1 ? '' : 's'} in ${of}, ${where}`;
    this.body.hidden = false;
    const stat = (key, label, value) => el('div', {}, el('dt', { text: label }), el('dd', { data: { key, value: String(value) }, text: key === 'count' ? this.count(value) : this.ns(value) }));
    this.stats.replaceChildren(stat('count', 'count', h.count), stat('min_ns', 'min', h.min_ns), stat('p50_ns', 'median', h.p50_ns),
      stat('p90_ns', 'p90', h.p90_ns), stat('p99_ns', 'p99', h.p99_ns), stat('max_ns', 'max', h.max_ns));
    if (h.count === 0) {
      this.chart.replaceChildren(el('span', { class: 'muted', text: 'No instance of this region counts in this selection.' }));
      this.axis.replaceChildren();
      return;
    }
    const most = Math.max(1, ...h.bins.map((b) => b.count));
    this.chart.replaceChildren(...h.bins.map((b, k) => {
      const bar = el('div', { class: 'bar', tabindex: '0', role: 'button', data: { bin: String(k), lo: String(b.lo_ns), hi: String(b.hi_ns), count: String(b.count) },
        title: `${this.ns(b.lo_ns)} to ${this.ns(b.hi_ns)}: ${this.count(b.count)}`, 'aria-label': `${this.ns(b.lo_ns)} to ${this.ns(b.hi_ns)}: ${b.count}` },
      el('span', { class: 'fill' }, el('span', { class: 'n', text: b.count ? this.count(b.count) : '' })));
      // Heights through the CSSOM (the page's policy allows no inline style attribute); a non-empty bin is
      // at least a sliver tall.
      bar.firstChild.style.height = b.count ? `${Math.max(2, (100 * b.count) / most)}%` : '0';
      return bar;
    }));
    // Log axis: the bins are equal widths, so the edges under the first, middle and last bins place it.
    const n = h.bins.length;
    const ticks = [...new Set([0, Math.floor(n / 2), n])].map((k) => (k < n ? h.bins[k].lo_ns : h.bins[n - 1].hi_ns));
    this.axis.replaceChildren(...ticks.map((t) => el('span', { text: this.ns(t) })), el('span', { class: 'scale', text: 'log scale' }));
    this.showBrush(this.brush);
  }

  /** Show bins `brush` ([first, last]) as brushed, or none. */
  showBrush(brush) {
    this.brush = brush;
    for (const bar of this.chart.querySelectorAll('[data-bin]')) {
      const k = Number(bar.dataset.bin);
      bar.classList.toggle('brushed', !!brush && k >= brush[0] && k <= brush[1]);
    }
  }

  /** Brush bins [first, last] (null: none): ask the worker for their instances, list and mark them. */
  async brushBins(brush) {
    this.showBrush(brush);
    const load = this.weft.loads;
    const asked = this.brushing = {};
    if (!brush || !this.hist || !this.hist.bins.length) {
      if (this.marked) this.call(() => this.viewer.histogram_mark(new Uint8Array(0)));
      this.marked = false;
      this.picked.textContent = this.hist && this.hist.count ? 'Click or drag over bins to list their instances.' : '';
      this.clear.hidden = true;
      this.list.replaceChildren();
      return;
    }
    const lo_ns = this.hist.bins[brush[0]].lo_ns;
    const hi_ns = this.hist.bins[brush[1]].hi_ns;
    let answer;
    try {
      answer = await this.ask('histogram-instances', { ...this.asked, lo_ns, hi_ns, limit: LISTED });
    } catch (e) {
      this.onError(`Histogram: ${e.message || e}`);
      return;
    }
    if (asked !== this.brushing || load !== this.weft.loads) return;
    const marked = this.call(() => this.viewer.histogram_mark(new Uint8Array(answer.model)));
    this.marked = marked !== undefined;
    const r = answer.result;
    this.picked.textContent = `${this.count(r.count)} instance${r.count === 1 ? '' : 's'} from ${this.ns(r.lo_ns)} to ${this.ns(r.hi_ns)}, marked in the timeline` +
      (r.count > r.instances.length ? `; the slowest ${this.count(r.instances.length)} listed` : '');
    this.picked.dataset.count = String(r.count);
    this.clear.hidden = false;
    this.list.replaceChildren(
      el('thead', {}, el('tr', {}, el('th', { text: 'location' }), el('th', { text: 'start' }), el('th', { text: 'duration' }))),
      el('tbody', {}, ...r.instances.map((i) => this.instanceRow(i))));
    this.weft.histogramBrushes = (this.weft.histogramBrushes || 0) + 1;
  }

  /** One instance's row: a click zooms the timeline to it. */
  instanceRow(i) {
    const tr = el('tr', { data: { interval: String(i.interval), location: String(i.location), start: String(i.start_ns), dur: String(i.dur_ns) }, title: 'zoom the timeline to this instance' },
      el('td', { class: 'name', text: i.name }), el('td', { class: 'num', text: this.ns(i.start_ns) }), el('td', { class: 'num', text: this.ns(i.dur_ns) }));
    tr.addEventListener('click', () => this.call(() => this.viewer.histogram_show(i.interval)));
    return tr;
  }

  /** Ask the worker for the slowest 1 % of every region over the selection. */
  async computeOutliers() {
    if (this.weft.store && this.weft.store.open) {
      this.outliersCaption.textContent = 'A store\'s outliers are the command line\'s for now: weft histogram STORE --outliers.';
      return;
    }
    const sel = this.selection();
    if (!sel) return;
    const load = this.weft.loads;
    const asked = this.askingOutliers = sel;
    this.outliersCaption.textContent = 'computing the outliers…';
    let answer;
    try {
      answer = await this.ask('outliers', { ...sel, limit: OUTLIERS_LISTED });
    } catch (e) {
      if (asked === this.askingOutliers) this.outliersCaption.textContent = '';
      this.onError(`Outliers: ${e.message || e}`);
      return;
    }
    if (asked !== this.askingOutliers || load !== this.weft.loads) return;
    this.loaded = load;
    const rows = answer.result.outliers;
    const lists = answer.result.intervals;
    this.outliersCaption.textContent = `${this.count(rows.length)} region${rows.length === 1 ? '' : 's'}: each one's slowest 1 % (at most ${OUTLIERS_LISTED} listed); a region opens its histogram, an instance zooms to it`;
    const head = el('tr', {}, ...['region / location', 'count', 'p99', '1 %', 'slowest'].map((t) => el('th', { text: t })));
    const body = el('tbody');
    rows.forEach((o, k) => {
      const top = o.slowest.length ? o.slowest[0].dur_ns : 0;
      const tr = el('tr', { class: 'region', data: { region: o.region, count: String(o.count), p99: String(o.p99_ns), outliers: String(o.outliers), slowest: String(top) }, title: `the histogram of ${o.region}` },
        el('td', { class: 'name', text: o.region }), el('td', { class: 'num', text: this.count(o.count) }), el('td', { class: 'num', text: this.ns(o.p99_ns) }),
        el('td', { class: 'num', text: this.count(o.outliers) }), el('td', { class: 'num', text: this.ns(top) }));
      tr.addEventListener('click', () => { this.region.value = o.region; this.compute(); });
      body.append(tr);
      for (const i of lists[k]) {
        const r = this.instanceRow(i);
        r.classList.add('instance');
        r.replaceChildren(el('td', { class: 'name', text: `${i.name} @ ${this.ns(i.start_ns)}` }), el('td'), el('td'), el('td'), el('td', { class: 'num', text: this.ns(i.dur_ns) }));
        body.append(r);
      }
    });
    this.outliers.replaceChildren(el('thead', {}, head), body);
    this.weft.outlierTables = (this.weft.outlierTables || 0) + 1;
  }
}
