// The clusters panel beside the timeline (issue #55): the locations grouped by behaviour, said in words as
// `weft clusters` says it ("3 clusters of 100 locations ...; 1 outlier: location 17 is alone: ..."), a table
// of the clusters (size, spread, the representative location) and the outliers, and the toggle "group ranks
// by behaviour": the timeline then shows one representative row per cluster and every outlier in full (the
// others hidden through the timeline's `hidden` option, so the grouping travels in the permalink), each
// representative row badged with its cluster's size and spread. The Moments view marks the same clustering
// (Viewer.moments_mark_clusters: each bar in its cluster's colour, a diamond on each representative, a
// triangle on each outlier, the grouping in its legend). The worker clusters
// (crates/worker/src/histogram.rs over analyses::clusters, the JSON of `weft clusters --json`); this file asks
// and arranges the answers. Trace text goes in with textContent only.

import { el } from './dom.js';
import { formatDuration, formatNumber } from './format.js';
import { ViewPanel } from './panel.js';

export class ClustersPanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param stage   the view's container (the representative rows' badges go over it)
   * @param root    the panel's element (filled here)
   * @param ask     (what, args) => Promise of the worker's answer (reader.js `ask`)
   * @param weft    the page's state (its `loads` tells answers for an older trace)
   * @param onRows  () => the rows changed (the page writes its permalink)
   * @param onError (message): show an error
   */
  constructor({ viewer, stage, root, ask, weft, onRows, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'clusters-toggle', title: 'Clusters of ranks: locations grouped by behaviour, in words and in the timeline', text: 'Clusters' } });
    Object.assign(this, { viewer, stage, ask, weft, onRows: onRows || (() => {}) });
    this.result = null;
    this.grouped = null; // while grouped: {before: the hidden option before, hidden: what grouping set}
    this.badges = el('div', { class: 'cluster-badges', id: 'cluster-badges', hidden: '' });
    stage.append(this.badges);
    this.build();
    this.watch();
  }

  build() {
    const option = (value, text) => el('option', { value, text });
    this.k = el('input', { type: 'number', id: 'clusters-k', min: '0', max: '2000', value: '0', 'aria-label': 'clusters (0: chosen by silhouette)', title: 'k: the number of clusters (0: chosen by silhouette)' });
    this.scope = el('select', { id: 'clusters-scope', 'aria-label': 'the behaviour over' },
      option('whole', 'the whole run'), option('window', 'the visible window'));
    this.run = el('button', { type: 'button', id: 'clusters-run', text: 'Compute', title: 'Ask the worker to cluster the locations' });
    this.group = el('input', { type: 'checkbox', id: 'clusters-group' });
    this.caption = el('div', { id: 'clusters-caption', class: 'muted' });
    this.summary = el('p', { id: 'clusters-summary' });
    this.table = el('table', { id: 'clusters-table', class: 'calltree-list' });
    this.root.replaceChildren(
      el('div', { class: 'row' }, el('span', { text: 'over' }), this.scope, el('span', { text: 'k' }), this.k, this.run),
      el('div', { class: 'row' }, el('label', {}, this.group, el('span', { text: ' group ranks by behaviour' }))),
      this.caption, this.summary, el('div', { class: 'scroll' }, this.table));
    this.run.addEventListener('click', () => this.compute());
    this.group.addEventListener('change', () => this.setGrouped(this.group.checked));
  }

  count(n) {
    return formatNumber(this.viewer, n);
  }

  ns(ns) {
    return formatDuration(this.viewer, ns);
  }

  refresh() {
    // A load shows its tabs (and so this panel) before it counts itself loaded: look once it has.
    setTimeout(() => {
      if (this.result && this.loaded !== this.weft.loads) {
        // Another trace: what was shown is of the one before (its rows are new: nothing to undo).
        this.result = null;
        this.grouped = null;
        this.group.checked = false;
        this.summary.textContent = '';
        this.caption.textContent = '';
        this.table.replaceChildren();
        this.placeBadges(true);
      }
      if (this.shown && this.view === 'timeline' && !this.result && !this.asking) this.compute();
    }, 0);
  }

  async compute() {
    if (this.weft.store && this.weft.store.open) {
      this.caption.textContent = 'A store\'s clusters are the command line\'s for now: weft clusters STORE.';
      return;
    }
    const load = this.weft.loads;
    let window = null;
    if (this.scope.value === 'window') {
      const st = this.call(() => this.viewer.view_brief());
      if (st && st.view === 'timeline') window = [Math.max(0, st.t0_ns), Math.max(0, Math.min(st.t1_ns, st.span_ns))];
    }
    const k = Math.max(0, Math.round(Number(this.k.value)) || 0);
    const asked = this.asking = { window, k };
    this.caption.textContent = 'clustering the locations…';
    let answer;
    try {
      answer = await this.ask('clusters', asked);
    } catch (e) {
      if (asked === this.asking) { this.caption.textContent = ''; this.asking = null; }
      this.onError(`Clusters: ${e.message || e}`);
      return;
    }
    if (asked !== this.asking) return;
    this.asking = null;
    if (load !== this.weft.loads) return;
    this.loaded = load;
    const wasGrouped = !!this.grouped;
    if (wasGrouped) this.setGrouped(false);
    this.result = answer.result;
    // The Moments view marks the same clustering: bars by cluster, representatives and outliers, in words.
    this.call(() => this.viewer.moments_mark_clusters(JSON.stringify(this.result)));
    this.render();
    if (wasGrouped) this.setGrouped(true);
    this.weft.clusterings = (this.weft.clusterings || 0) + 1;
  }

  render() {
    const c = this.result;
    const len = c.window.end_ns - c.window.start_ns;
    const how = { given: 'as given', silhouette: 'chosen by silhouette', one: 'no substantial structure' }[c.k_chosen_by] || c.k_chosen_by;
    this.caption.textContent = `${this.count(c.locations)} locations, k = ${c.k} (${how}${c.silhouette === null ? '' : ` ${c.silhouette.toFixed(2)}`}); ` +
      `over ${this.ns(c.window.start_ns)} – ${this.ns(c.window.end_ns)}`;
    this.summary.textContent = c.summary;
    const head = el('tr', {}, ...['cluster', 'size', 'spread', 'representative / outlier'].map((t) => el('th', { text: t })));
    const rows = c.clusters.map((cl, i) => el('tr', { class: 'cluster', data: { cluster: String(i), size: String(cl.size), medoid: String(cl.medoid), spread: String(cl.spread_ns) }, title: 'spread: the members\' mean distance to the representative, as time spent differently' },
      el('td', { class: 'num', text: String(i) }), el('td', { class: 'num', text: this.count(cl.size) }),
      el('td', { class: 'num', text: this.ns(cl.spread_ns) }), el('td', { class: 'name', text: cl.medoid_name })));
    const outliers = c.outliers.map((o) => el('tr', { class: 'outlier', data: { location: String(o.location), cluster: String(o.cluster), reason: o.reason } },
      el('td', { class: 'num', text: o.reason }), el('td', { class: 'num', text: String(o.cluster) }),
      el('td', { class: 'num', text: this.ns(o.distance * len) }), el('td', { class: 'name', text: o.name })));
    this.table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows,
      ...(outliers.length ? [el('tr', { class: 'section' }, el('td', { class: 'muted', colspan: '4', text: 'outliers: why, their cluster, distance' }))] : []), ...outliers));
  }

  /** The timeline's `hidden` option now. */
  hiddenNow() {
    const s = this.call(() => this.viewer.option_schema());
    const o = s && s.view === 'timeline' ? s.options.find((x) => x.key === 'hidden') : null;
    return o ? o.value || '' : '';
  }

  /** Show one row per cluster and the outliers (the others hidden), or the rows as they were. */
  setGrouped(on) {
    this.group.checked = on;
    if (on && this.result && !this.grouped) {
      const before = this.hiddenNow();
      try { this.viewer.configure('hidden', this.result.grouped_hidden); } catch (e) { this.group.checked = false; this.onError(String(e)); return; }
      this.grouped = { before, hidden: this.result.grouped_hidden };
    } else if (!on && this.grouped) {
      // Rows the user changed since are theirs: only the grouping's own set is undone.
      if (this.hiddenNow() === this.grouped.hidden) this.call(() => this.viewer.configure('hidden', this.grouped.before));
      this.grouped = null;
    }
    this.placeBadges(true);
    this.onRows();
  }

  /** While grouped, badge each representative row with its cluster's size and spread, and each outlier's row
   *  with why it is one, where the rows are now (they move with scrolling and zooming rows). */
  watch() {
    const tick = () => {
      this.placeBadges(false);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  placeBadges(force) {
    const on = !!this.grouped && this.view === 'timeline' && !!this.result;
    this.badges.hidden = !on;
    if (!on) { this.badgesKey = null; return; }
    const st = this.viewer.view_brief();
    if (!st || st.view !== 'timeline') { this.badges.hidden = true; return; }
    const key = `${st.scroll_y}/${st.row_count}/${st.width}/${st.height}/${st.lane_px}`;
    if (!force && key === this.badgesKey) return;
    this.badgesKey = key;
    const state = this.viewer.view_state();
    const rows = (state && state.contents && state.contents.rows) || state.rows || [];
    const medoids = new Map(this.result.clusters.map((c, i) => [c.medoid, { c, i }]));
    const outliers = new Map(this.result.outliers.map((o) => [o.location, o]));
    const len = this.result.window.end_ns - this.result.window.start_ns;
    const badges = [];
    for (const r of rows) {
      const m = medoids.get(r.location);
      const o = outliers.get(r.location);
      if (!m && !o) continue;
      const y = r.y + Math.min(r.height, 18) / 2;
      if (y < st.axis_px || y > st.height) continue;
      const text = m ? `cluster ${m.i}: ${this.count(m.c.size)} ranks, spread ${this.ns(m.c.spread_ns)}` : `outlier (${o.reason}): ${this.ns(o.distance * len)} apart`;
      const b = el('span', { class: m ? 'cluster-badge' : 'cluster-badge outlier', data: { location: String(r.location) }, text });
      b.style.left = `${st.track_x0 + 4}px`;
      b.style.top = `${y}px`;
      badges.push(b);
    }
    this.badges.replaceChildren(...badges);
  }
}
