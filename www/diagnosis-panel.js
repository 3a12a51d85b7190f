// The Diagnosis panel beside the timeline (issue #53): where and why the run loses time. Three coupled lists as
// in CUBE (wait-state patterns -> the regions they wait in -> the locations), each line with its time and its
// share of the total time; a click in one list filters the next (again: no filter), a click on a location
// takes the timeline to its worst wait. The waits are drawn hatched on the timeline, the selected one with an
// arrow to its cause; a click on a hatched wait names it and its root causes here. The critical path is drawn
// across the rows with a toggle, and the what-if sliders (one per region of the path's top regions) ask the
// worker for the predicted span. Everything is computed in the worker (crates/worker/src/diagnosis.rs) and
// listed by the Viewer (crates/page/src/diagnosis_panel.rs); this file only asks and arranges the answers.
// Trace-derived text goes in with textContent only.

import { el } from './dom.js';
import { formatDuration } from './format.js';
import { ViewPanel } from './panel.js';

/** Lines a list shows at most (the caption says how many there are). */
const MAX_LINES = 200;
/** What-if sliders: the critical path's top regions. */
const WHATIF_REGIONS = 5;
/** What the path report names time outside every region (analyses::diagnosis::critical_path::NO_REGION). */
const NO_REGION = '(no region)';

const percent = (share) => `${(share * 100).toFixed(share >= 0.1 ? 1 : 2)} %`;

export class DiagnosisPanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param canvas  the view's canvas (a click on a hatched wait selects it)
   * @param root    the panel's element (filled here)
   * @param ask     (what, args) => Promise of the worker's answer (reader.js `ask`)
   * @param weft    the page's state (its `loads` tells answers for an older trace)
   * @param onError (message): show an error
   */
  constructor({ viewer, canvas, root, ask, weft, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'diagnosis-toggle', title: 'Diagnosis: where and why the run waits (wait states, critical path, what-if)', text: 'Diagnosis' } });
    Object.assign(this, { viewer, canvas, ask, weft });
    this.pattern = -1;
    this.region = -1;
    this.loaded = null; // the load (weft.loads) the diagnosis shown is of
    this.asking = null;
    this.scales = new Map(); // what-if: region name -> factor
    this.build();
    this.wirePointer(canvas);
  }

  build() {
    this.scope = el('select', { id: 'diagnosis-scope', 'aria-label': 'diagnose' },
      el('option', { value: 'whole', text: 'the whole run' }), el('option', { value: 'window', text: 'the visible window' }));
    this.run = el('button', { type: 'button', id: 'diagnosis-run', text: 'Diagnose', title: 'Ask the worker for the diagnosis of the run or of the visible window' });
    this.waitsBox = el('input', { type: 'checkbox', id: 'diagnosis-waits' });
    this.waitsBox.checked = true;
    this.pathBox = el('input', { type: 'checkbox', id: 'diagnosis-path' });
    this.caption = el('div', { id: 'diagnosis-caption', class: 'muted' });
    this.empty = el('div', { id: 'diagnosis-empty', class: 'notice', hidden: '' });
    this.lists = {
      patterns: el('table', { id: 'diagnosis-patterns', class: 'diagnosis-list' }),
      regions: el('table', { id: 'diagnosis-regions', class: 'diagnosis-list' }),
      locations: el('table', { id: 'diagnosis-locations', class: 'diagnosis-list' }),
    };
    this.wait = el('div', { id: 'diagnosis-wait' });
    this.whatif = el('div', { id: 'diagnosis-whatif' });
    this.predicted = el('div', { id: 'diagnosis-predicted', class: 'muted' });
    this.body = el('div', { id: 'diagnosis-body' },
      el('h3', { text: 'Patterns' }), el('div', { class: 'scroll' }, this.lists.patterns),
      el('h3', { text: 'Regions' }), el('div', { class: 'scroll' }, this.lists.regions),
      el('h3', { text: 'Locations' }), el('div', { class: 'scroll' }, this.lists.locations),
      this.waitHeading = el('h3', { text: 'Selected wait' }), this.wait,
      el('h3', { text: 'What if (critical path regions scaled)' }), this.whatif, this.predicted,
    );
    // The hatching's scale, said on screen: a trace hatches each call's waiting part solid; a store, per row
    // and bin, as opaque as the share of the bin's time spent waiting (a fixed scale, at every zoom).
    this.hatchScale = el('div', { id: 'diagnosis-scale', class: 'muted' });
    this.root.replaceChildren(
      el('div', { class: 'row' }, el('span', { text: 'of' }), this.scope, this.run),
      el('div', { class: 'row' },
        el('label', { title: 'Draw the waiting part of each call hatched' }, this.waitsBox, ' waits'),
        el('label', { title: 'Draw the critical path across the rows' }, this.pathBox, ' critical path')),
      this.hatchScale, this.caption, this.empty, this.body,
    );
    this.run.addEventListener('click', () => this.diagnose());
    this.scope.addEventListener('change', () => this.diagnose());
    for (const b of [this.waitsBox, this.pathBox]) b.addEventListener('change', () => this.applyShown());
  }

  /** A click on the timeline (no Shift, no drag) on a hatched wait selects it and names its cause here. */
  wirePointer(canvas) {
    let down = null;
    canvas.addEventListener('pointerdown', (e) => {
      down = (this.view === 'timeline' && e.button === 0 && !e.shiftKey) ? { x: e.clientX, y: e.clientY } : null;
    });
    canvas.addEventListener('pointerup', (e) => {
      if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) { down = null; return; }
      down = null;
      if (!this.current()) return;
      const r = canvas.getBoundingClientRect();
      const info = this.call(() => this.viewer.timeline_wait_click(e.clientX - r.left, e.clientY - r.top));
      if (info === undefined) return;
      this.showWait(info);
      if (info) this.setOpen(true);
    });
  }

  /** Is the diagnosis the Viewer holds of the trace shown? */
  current() {
    return this.loaded === this.weft.loads && this.call(() => this.viewer.has_diagnosis());
  }

  refresh() {
    if (this.view !== 'timeline') return;
    if (this.current()) { this.render(); return; }
    // A load shows its tabs (and so this panel) before it counts itself loaded: ask once it has.
    setTimeout(() => { if (this.shown && !this.current()) this.diagnose(); }, 0);
  }

  /** Ask the worker for the diagnosis of the run (or of the visible window) of the trace shown. */
  async diagnose() {
    // A store's timeline: the reader worker holds no trace of it; the store worker lists the wait states a
    // store indexed with --waits keeps.
    if (this.weft.store && this.weft.store.open) {
      await this.diagnoseStore();
      return;
    }
    const load = this.weft.loads;
    let window = null;
    if (this.scope.value === 'window') {
      const st = this.viewer.view_brief();
      window = [Math.max(0, st.t0_ns), Math.max(0, Math.min(st.t1_ns, st.span_ns))];
    }
    this.caption.textContent = 'diagnosing…';
    const asked = this.asking = {};
    let answer;
    try {
      answer = await this.ask('diagnose', { window });
    } catch (e) {
      if (asked === this.asking) this.caption.textContent = '';
      this.onError(`Diagnosis: ${e.message || e}`);
      return;
    }
    // A newer question, another trace, or the view left meanwhile: this answer is dropped.
    if (asked !== this.asking || load !== this.weft.loads || this.viewer.view() !== 'timeline') return;
    const got = this.call(() => this.viewer.receive_diagnosis(new Uint8Array(answer.model)));
    if (got === undefined) return;
    if (this.loaded !== load) { this.pattern = -1; this.region = -1; }
    this.loaded = load;
    this.summary = got;
    this.applyShown();
    this.render();
    this.weft.diagnoses = (this.weft.diagnoses || 0) + 1;
  }

  /** A store's diagnosis: the whole run's lists the store worker makes from the manifest's sums (a store
   *  indexed with weft index --waits; `store::read::waits::overview`). On its timeline, where waiting
   *  concentrates is hatched per row and bin and the critical path drawn, from the tiles of each view (the
   *  store worker answers them beside the view); a window's lists are the command line's (weft waits STORE
   *  --window). */
  async diagnoseStore() {
    this.weft.diagnoseAskedAt = performance.now();
    const load = this.weft.loads;
    const asked = this.asking = {};
    this.caption.textContent = 'reading the store\'s wait states…';
    let o;
    try {
      o = await this.weft.store.askWaits();
    } catch (e) {
      if (asked === this.asking) this.caption.textContent = '';
      this.onError(`Diagnosis: ${e.message || e}`);
      return;
    }
    if (asked !== this.asking || load !== this.weft.loads) return;
    this.caption.textContent = '';
    if (o.missing) {
      this.storeOverview = null;
      this.body.hidden = true;
      this.empty.hidden = false;
      this.empty.textContent = `This store keeps no wait states: ${o.missing}.`;
      return;
    }
    if (this.storeOverview !== o) { this.pattern = -1; this.region = -1; this.storeLocation = null; }
    this.storeOverview = o;
    this.renderStore();
    this.weft.diagnoses = (this.weft.diagnoses || 0) + 1;
    this.weft.diagnosedAt = performance.now();
  }

  /** The store's three lists for the pattern chosen (a store sums waiting per pattern and region and per
   *  pattern and location, so a region chosen does not narrow the locations), and its root causes. */
  renderStore() {
    const o = this.storeOverview;
    const f = (ns) => formatDuration(this.viewer, ns);
    if (o.total_wait_ns === 0) {
      this.body.hidden = true;
      this.empty.hidden = false;
      this.empty.textContent = 'No waiting found in the whole run: no call here waits for another location.';
      return;
    }
    this.body.hidden = false;
    this.empty.hidden = true;
    const scopeNote = this.scope.value === 'window' ? ' (a store\'s lists are of the whole run; weft waits STORE --window diagnoses a window)' : '';
    this.waitHeading.textContent = 'Root causes';
    // On a store's timeline: where waiting concentrates (per row and bin, hatched) and the critical path (a
    // store of format 7 keeps it), read per view from the store's tiles by the store worker.
    this.waitsBox.disabled = false;
    this.waitsBox.parentElement.title = 'Hatch where waiting concentrates, per row and bin (the store keeps waiting per bin at every zoom)';
    this.hatchScale.textContent = 'Hatching: as opaque as the share of each bin\'s time spent waiting, 0 – 100 % (faint: 5 %, solid: all of it), the same scale at every zoom; the critical path\'s jumps to rows off screen end in an arrow at the edge.';
    this.pathBox.disabled = !o.critical_path;
    this.pathBox.parentElement.title = o.critical_path ? 'Draw the critical path across the rows'
      : 'This store keeps no critical path (format 6): re-index with weft index --waits';
    if (!o.critical_path) this.pathBox.checked = false;
    this.applyShown();
    this.caption.textContent = `the whole run: waiting ${f(o.total_wait_ns)}, ${percent(o.total_wait_ns / Math.max(1, o.total_time_ns))} of the time on all locations${scopeNote}`;
    const chosen = this.pattern >= 0 && o.patterns[this.pattern] ? o.patterns[this.pattern] : o.all;
    const patterns = o.patterns.map((p, k) => ({ id: k, name: p.label, ns: p.ns, share: p.share, instances: p.instances }));
    this.fill(this.lists.patterns, 'pattern', patterns, this.pattern, (l) => {
      this.pattern = this.pattern === l.id ? -1 : l.id;
      this.region = -1;
      this.renderStore();
    });
    this.fill(this.lists.regions, 'region', chosen.regions, this.region, (l) => {
      this.region = this.region === l.id ? -1 : l.id;
      this.renderStore();
    });
    // A click on a location scrolls the timeline to its row and marks it.
    this.fill(this.lists.locations, 'location', chosen.locations, this.storeLocation ?? -2, (l) => {
      if (this.call(() => this.viewer.store_show_location(l.id))) this.storeLocation = l.id;
      this.renderStore();
    });
    const causes = o.root_causes.filter((c) => chosen === o.all || c.pattern === chosen.label).slice(0, 10);
    this.wait.replaceChildren(causes.length
      ? el('ul', { class: 'wait-causes', data: { causes: String(causes.length) } },
        ...causes.map((c) => el('li', { text: `${c.waiting} waits ${f(c.ns)} (${c.pattern}) because ${c.causing} spends more time in ${c.region}` })))
      : el('span', { class: 'muted', text: 'No root cause: no late location spent more time than its partner in any region.' }));
    this.whatif.replaceChildren(el('span', { class: 'muted', text: 'What-if replays a trace: open the trace this store was indexed from.' }));
    this.predicted.textContent = '';
  }

  applyShown() {
    if (this.weft.store && this.weft.store.open) {
      if (this.storeOverview) this.call(() => this.viewer.store_diagnosis_shown(this.waitsBox.checked, this.pathBox.checked));
      return;
    }
    if (!this.current()) return;
    this.call(() => this.viewer.diagnosis_set_shown(this.waitsBox.checked, this.pathBox.checked));
  }

  /** The three lists for the pattern and region chosen, the selected wait, the what-if sliders. */
  render() {
    const d = this.call(() => this.viewer.diagnosis_lists(this.pattern, this.region));
    if (!d) return;
    this.lastLists = d;
    const whole = !d.window;
    const of = whole ? 'the whole run' : `${formatDuration(this.viewer, d.window[0])} – ${formatDuration(this.viewer, d.window[1])}`;
    if (d.total_wait_ns === 0) {
      this.body.hidden = true;
      this.empty.hidden = false;
      this.empty.textContent = this.summary && this.summary.communication === false
        ? 'No waiting found: this trace has no MPI calls, collectives, barriers or waits.'
        : `No waiting found in ${of}: no call here waits for another location.`;
      this.caption.textContent = '';
      return;
    }
    this.body.hidden = false;
    this.empty.hidden = true;
    this.waitHeading.textContent = 'Selected wait';
    for (const box of [this.waitsBox, this.pathBox]) box.disabled = false;
    this.waitsBox.parentElement.title = 'Draw the waiting part of each call hatched';
    this.pathBox.parentElement.title = 'Draw the critical path across the rows';
    this.hatchScale.textContent = 'Hatching: the waiting part of each call, solid (all of that time waits).';
    this.caption.textContent = `${of}: waiting ${formatDuration(this.viewer, d.total_wait_ns)}, ${percent(d.total_wait_ns / Math.max(1, d.total_time_ns))} of the time on all locations`;
    this.fill(this.lists.patterns, 'pattern', d.patterns, this.pattern, (l) => {
      this.pattern = this.pattern === l.id ? -1 : l.id;
      this.region = -1;
      this.render();
    });
    this.fill(this.lists.regions, 'region', d.regions, this.region, (l) => {
      this.region = this.region === l.id ? -1 : l.id;
      this.render();
    });
    this.fill(this.lists.locations, 'location', d.locations, -2, (l) => {
      const info = this.call(() => this.viewer.diagnosis_show_wait(l.worst));
      if (info !== undefined) this.showWait(info);
    });
    this.shownWait = null;
    this.showWait(this.call(() => this.viewer.diagnosis_selected_wait()) ?? null);
    this.renderWhatIf();
  }

  /** One list: a line per entry (name, time, share), the chosen one marked; a click calls `pick(line)`. */
  fill(table, what, lines, chosen, pick) {
    const rows = lines.slice(0, MAX_LINES).map((l) => {
      const title = l.worst_ns !== undefined ? `${l.name}: ${l.instances} waits, the longest ${formatDuration(this.viewer, l.worst_ns)}`
        : `${l.name}: ${formatDuration(this.viewer, l.ns)}${l.instances !== undefined ? ` in ${l.instances} waits` : ''}`;
      const tr = el('tr', { data: { id: String(l.id), ns: String(l.ns), worst: String(l.worst) }, title },
        el('td', { class: 'name', text: l.name }),
        el('td', { text: formatDuration(this.viewer, l.ns) }),
        el('td', { text: percent(l.share) }));
      tr.setAttribute('aria-selected', String(l.id === chosen));
      tr.addEventListener('click', () => pick(l));
      return tr;
    });
    const more = lines.length > MAX_LINES ? [el('tr', {}, el('td', { class: 'muted', colspan: '3', text: `${lines.length - MAX_LINES} more` }))] : [];
    table.replaceChildren(el('thead', {}, el('tr', {}, el('th', { text: what }), el('th', { text: 'time' }), el('th', { text: 'share' }))),
      el('tbody', {}, ...rows, ...more));
  }

  /** The selected wait in words, then its root causes as the worker finds them for this wait (or null:
   *  nothing selected). */
  async showWait(info) {
    if (!info) { this.wait.replaceChildren(el('span', { class: 'muted', text: 'Click a hatched wait on the timeline, or a location above.' })); return; }
    if (this.shownWait === info.wait && this.wait.querySelector('.wait-text')) return;
    this.shownWait = info.wait;
    const causes = el('div', { class: 'muted', text: info.cause_name ? 'its root causes…' : 'no cause location is known for this wait' });
    this.wait.replaceChildren(
      el('div', { class: 'wait-text', data: { wait: String(info.wait), location: String(info.location), ns: String(info.ns) }, text: info.text }),
      causes);
    if (!info.cause_name) return;
    const load = this.loaded;
    let r;
    try {
      r = await this.ask('causes', { wait: info.wait });
    } catch (e) {
      this.onError(`Root causes: ${e.message || e}`);
      return;
    }
    if (load !== this.loaded || this.shownWait !== info.wait) return;
    const list = r.result.slice(0, 5);
    if (!list.length) {
      causes.textContent = `no root cause: ${info.cause_name} spent no more time than ${info.location_name} in any region since they last met`;
      return;
    }
    // Boehme et al.'s short-term delay cost: the wait shared among the regions in which the late location
    // spent more time since the two last met.
    const items = list.map((c) => el('li', { text: `because ${info.cause_name} spends more time in ${c.name} (${formatDuration(this.viewer, c.ns)} of this wait)` }));
    causes.replaceWith(el('ul', { class: 'wait-causes', data: { causes: String(r.result.length) } }, ...items));
    this.weft.causes = (this.weft.causes || 0) + 1;
  }

  /** A slider per region of the critical path's top regions (factor 0.1–2.0); a change asks the worker. */
  renderWhatIf() {
    const path = JSON.parse(this.call(() => this.viewer.diagnosis_path_report()) || '{}');
    // Time on the path outside every region (`(no region)`) has no region to scale.
    const regions = (path.by_region || []).filter((r) => r.name !== NO_REGION).slice(0, WHATIF_REGIONS);
    if (!regions.length) {
      this.whatif.replaceChildren(el('span', { class: 'muted', text: 'No critical path for this trace.' }));
      this.predicted.textContent = '';
      return;
    }
    if (this.whatifFor === this.loaded && this.whatif.childElementCount) return;
    this.whatifFor = this.loaded;
    this.scales = new Map();
    const rows = regions.map((r, k) => {
      const slider = el('input', { type: 'range', min: '0.1', max: '2', step: '0.1', value: '1', id: `whatif-${k}`, 'aria-label': `scale ${r.name}` });
      slider.dataset.region = r.name;
      const value = el('span', { class: 'whatif-factor', text: '×1.0' });
      slider.addEventListener('input', () => { value.textContent = `×${Number(slider.value).toFixed(1)}`; });
      slider.addEventListener('change', () => {
        this.scales.set(r.name, Number(slider.value));
        this.predict();
      });
      return el('div', { class: 'whatif-row', title: `${r.name}: ${formatDuration(this.viewer, r.ns)} on the critical path` },
        el('span', { class: 'name', text: r.name }), slider, value);
    });
    this.whatif.replaceChildren(...rows);
    this.predicted.textContent = `recorded span ${formatDuration(this.viewer, path.length_ns)}; move a slider for the predicted span`;
    this.predicted.dataset.recorded = String(path.length_ns);
    delete this.predicted.dataset.predicted;
  }

  /** Ask the worker what the run's span would be with the regions scaled. */
  async predict() {
    const load = this.loaded;
    const scales = [...this.scales].map(([region, factor]) => ({ region, factor }));
    const asked = this.predicting = {};
    this.predicted.textContent = 'replaying…';
    let r;
    try {
      r = (await this.ask('whatif', { scales })).result;
    } catch (e) {
      this.onError(`What-if: ${e.message || e}`);
      return;
    }
    if (asked !== this.predicting || load !== this.weft.loads) return;
    const f = (ns) => formatDuration(this.viewer, ns);
    const change = (r.predicted_span_ns - r.recorded_span_ns) / Math.max(1, r.recorded_span_ns);
    this.predicted.textContent = `predicted span ${f(r.predicted_span_ns)} (recorded ${f(r.recorded_span_ns)}, ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %)`;
    this.predicted.dataset.predicted = String(r.predicted_span_ns);
    this.predicted.dataset.recorded = String(r.recorded_span_ns);
    this.weft.whatifs = (this.weft.whatifs || 0) + 1;
  }
}
