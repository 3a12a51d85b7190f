// The call-tree panel beside the timeline (issue #55): the call tree of a selection (the visible window, the
// selected range or the whole run, over the locations a filter matches), top down or bottom up, merged over
// the locations or one location at a time; count, inclusive, exclusive and share per node, sortable by any
// column, searchable by region name; the butterfly of one region (its callers above, its callees below); a
// click on a node marks that call path's intervals in the timeline. The same tree as a flame graph or an
// icicle in a view of its own (a click zooms into a subtree, hover names it). The worker computes the tree
// and the path's intervals (crates/worker/src/calltree.rs; of a store, the store worker from its call-path
// tiles: crates/worker/src/store/calltree.rs); the Viewer lists them (crates/page/src/calltree_panel.rs); this
// file asks and arranges the answers. Trace text goes in with textContent only.

import { el } from './dom.js';
import { formatDuration } from './format.js';
import { ViewPanel } from './panel.js';

const percent = (share) => `${(share * 100).toFixed(share >= 0.1 ? 1 : 2)} %`;
/** The views the panel shows beside: the timeline and the flame graph made from it. */
const VIEWS = ['timeline', 'flamegraph'];
const COLUMNS = [['name', 'Name'], ['count', 'Count'], ['inclusive', 'Inclusive'], ['exclusive', 'Exclusive'], ['share', 'Share']];

export class CallTreePanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param canvas  the view's canvas (a click on the flame graph zooms)
   * @param root    the panel's element (filled here)
   * @param ask     (what, args) => Promise of the worker's answer (reader.js `ask`)
   * @param weft    the page's state (its `loads` tells answers for an older trace)
   * @param switchWith (change) => switch views with the Viewer call `change` (views.js), tabs redrawn
   * @param onError (message): show an error
   */
  constructor({ viewer, canvas, root, ask, weft, switchWith, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'calltree-toggle', title: 'Call tree: call paths of the selection, bottom up, butterfly, flame graph', text: 'Call tree' } });
    Object.assign(this, { viewer, ask, weft, switchWith });
    this.loaded = null; // the load (weft.loads) the tree shown is of
    this.asking = null;
    this.sort = { key: 'inclusive', descending: true };
    this.lastWindow = null; // the timeline's visible window when it was last shown: [t0, t1]
    this.build();
    this.wirePointer(canvas);
  }

  /** A click (no drag) on the flame graph zooms into the frame under it, or back out. */
  wirePointer(canvas) {
    let down = null;
    canvas.addEventListener('pointerdown', (e) => {
      down = (this.view === 'flamegraph' && e.button === 0) ? { x: e.clientX, y: e.clientY } : null;
    });
    canvas.addEventListener('pointerup', (e) => {
      if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) { down = null; return; }
      down = null;
      const r = canvas.getBoundingClientRect();
      this.viewer.click(e.clientX - r.left, e.clientY - r.top);
    });
  }

  get shown() {
    return VIEWS.includes(this.view) && this.open;
  }

  update(view, box) {
    super.update(view, box);
    // In the flame graph's view too: its toggle, and the panel beside it.
    if (view === 'flamegraph' && box) {
      const b = el('button', { type: 'button', id: this.toggle.id, title: this.toggle.title, text: this.toggle.text });
      b.setAttribute('aria-pressed', String(this.open));
      b.addEventListener('click', () => this.setOpen(!this.open));
      box.append(b);
    }
    this.root.hidden = !this.shown;
  }

  build() {
    const option = (value, text) => el('option', { value, text });
    this.scope = el('select', { id: 'calltree-scope', 'aria-label': 'the call tree of' },
      option('window', 'the visible window'), option('selection', 'the selected range'), option('whole', 'the whole run'));
    this.locations = el('input', { type: 'search', id: 'calltree-locations', placeholder: 'locations: all (or a glob)', 'aria-label': 'locations (a glob over process / location)' });
    this.direction = el('select', { id: 'calltree-direction', 'aria-label': 'direction' },
      option('top', 'top down'), option('bottom', 'bottom up (inverted)'));
    this.merge = el('select', { id: 'calltree-merge', 'aria-label': 'locations merged or one at a time' },
      option('merged', 'merged over locations'), option('per', 'per location'));
    this.run = el('button', { type: 'button', id: 'calltree-run', text: 'Compute', title: 'Ask the worker for the call tree of this selection' });
    this.tree = el('select', { id: 'calltree-location', 'aria-label': 'the location whose tree is shown', hidden: '' });
    this.caption = el('div', { id: 'calltree-caption', class: 'muted' });
    this.search = el('input', { type: 'search', id: 'calltree-search', placeholder: 'search regions (substring or glob)', 'aria-label': 'search the call tree' });
    this.hits = el('span', { id: 'calltree-hits', class: 'muted' });
    this.openAll = el('button', { type: 'button', id: 'calltree-open-all', text: 'open all' });
    this.closeAll = el('button', { type: 'button', id: 'calltree-close-all', text: 'close all' });
    this.table = el('table', { id: 'calltree-table', class: 'calltree-list' });
    this.more = el('div', { id: 'calltree-more', class: 'muted' });
    this.flame = el('button', { type: 'button', id: 'calltree-flame', text: 'Flame graph', title: 'This tree as a flame graph (widths by inclusive time)' });
    this.icicle = el('button', { type: 'button', id: 'calltree-icicle', text: 'Icicle', title: 'This tree as an icicle (roots at the top)' });
    this.back = el('button', { type: 'button', id: 'calltree-timeline', text: 'Timeline', title: 'Back to the timeline (marks of the selected path)' });
    this.marked = el('div', { id: 'calltree-marked', class: 'muted' });
    this.clear = el('button', { type: 'button', id: 'calltree-clear', text: 'clear marks' });
    this.butterflyBox = el('div', { id: 'calltree-butterfly' });
    this.body = el('div', { id: 'calltree-body', hidden: '' },
      el('div', { class: 'row' }, this.search, this.hits, this.openAll, this.closeAll),
      el('div', { class: 'scroll tree' }, this.table), this.more,
      el('div', { class: 'row' }, this.flame, this.icicle, this.back),
      el('div', { class: 'row' }, this.marked, this.clear),
      el('h3', { text: 'Butterfly: callers above, callees below' }), this.butterflyBox);
    this.root.replaceChildren(
      el('div', { class: 'row' }, el('span', { text: 'of' }), this.scope, this.run),
      el('div', { class: 'row' }, this.locations),
      el('div', { class: 'row' }, this.direction, this.merge),
      this.tree, this.caption, this.body);
    this.run.addEventListener('click', () => this.compute());
    for (const s of [this.scope, this.direction, this.merge]) s.addEventListener('change', () => this.compute());
    // A change event also comes when the box loses focus: ask again only for another filter.
    this.locations.addEventListener('change', () => { if (this.locations.value !== this.askedFilter) this.compute(); });
    this.tree.addEventListener('change', () => { this.call(() => this.viewer.calltree_choose(Number(this.tree.value))); this.markPath(null); this.render(); });
    this.search.addEventListener('input', () => { this.hits.textContent = this.searchText(this.call(() => this.viewer.calltree_search(this.search.value))); this.render(); });
    this.openAll.addEventListener('click', () => { this.call(() => this.viewer.calltree_open_all(true)); this.render(); });
    this.closeAll.addEventListener('click', () => { this.call(() => this.viewer.calltree_open_all(false)); this.render(); });
    this.flame.addEventListener('click', () => this.showFlame(false));
    this.icicle.addEventListener('click', () => this.showFlame(true));
    this.back.addEventListener('click', () => this.switchWith(() => this.viewer.set_view('timeline')));
    this.clear.addEventListener('click', () => this.markPath(null));
  }

  searchText(n) {
    return this.search.value.trim() && n !== undefined ? `${n} node${n === 1 ? '' : 's'}` : '';
  }

  /** Is the tree the Viewer holds of the trace shown? */
  current() {
    return this.loaded === this.weft.loads && this.call(() => this.viewer.has_calltree());
  }

  refresh() {
    if (this.view === 'timeline') this.refreshWindow();
    if (this.current()) { this.render(); return; }
    // A load shows its tabs (and so this panel) before it counts itself loaded: ask once it has.
    if (this.view === 'timeline') setTimeout(() => { if (this.shown && !this.current()) this.compute(); }, 0);
  }

  /** The window asked for: the visible one, the selected range, or null (the whole run). */
  window() {
    if (this.scope.value === 'whole') return null;
    if (this.scope.value === 'selection') {
      const s = this.view === 'timeline' ? this.call(() => this.viewer.timeline_selection()) : null;
      if (s) return [s.t0_ns, s.t1_ns];
      if (this.selected) return this.selected;
      this.onError('Call tree: no range is selected (Shift+drag on the timeline); the visible window is used');
    }
    if (this.view === 'timeline') this.refreshWindow();
    return this.lastWindow;
  }

  refreshWindow() {
    const st = this.call(() => this.viewer.view_brief());
    if (st && st.view === 'timeline') this.lastWindow = [Math.max(0, st.t0_ns), Math.max(0, Math.min(st.t1_ns, st.span_ns))];
  }

  /** Ask the worker for the call tree of the selection. */
  async compute() {
    const load = this.weft.loads;
    this.askedFilter = this.locations.value;
    const window = this.window();
    if (this.scope.value === 'selection' && window) this.selected = window;
    // Undefined: every location (an empty filter).
    let locations;
    try { locations = this.viewer.calltree_locations(this.locations.value); } catch (e) { this.onError(String(e)); return; }
    if (locations && locations.length === 0) { this.caption.textContent = 'No location matches the filter.'; return; }
    this.caption.textContent = 'computing the call tree…';
    const asked = this.asking = {};
    this.selection = { window, locations: locations ? Array.from(locations) : null, inverted: this.direction.value === 'bottom', perLocation: this.merge.value === 'per' };
    let answer;
    try {
      answer = await this.ask('calltree', this.selection);
    } catch (e) {
      if (asked === this.asking) this.caption.textContent = '';
      this.onError(`Call tree: ${e.message || e}`);
      return;
    }
    if (asked !== this.asking || load !== this.weft.loads) return;
    const got = this.call(() => this.viewer.receive_calltree(new Uint8Array(answer.model)));
    if (got === undefined) return;
    this.loaded = load;
    this.summary = got;
    this.call(() => this.viewer.calltree_sort(this.sort.key, this.sort.descending));
    if (this.search.value.trim()) this.hits.textContent = this.searchText(this.call(() => this.viewer.calltree_search(this.search.value)));
    this.fillTrees();
    this.markPath(null);
    this.render();
    this.weft.calltrees = (this.weft.calltrees || 0) + 1;
  }

  fillTrees() {
    const s = this.summary;
    this.tree.hidden = !s.per_location;
    this.tree.replaceChildren(...s.trees.map((t) => el('option', { value: String(t.index), text: `${t.name} · ${formatDuration(this.viewer, t.total_ns)}` })));
  }

  render() {
    const s = this.call(() => this.viewer.calltree_summary());
    const r = this.call(() => this.viewer.calltree_rows());
    if (!s || !r) return;
    const f = (ns) => formatDuration(this.viewer, ns);
    const whole = s.window[0] === 0 && s.window[1] >= (this.call(() => this.viewer.view_brief()) || {}).span_ns;
    const of = this.selection && !this.selection.window ? 'the whole run' : `${f(s.window[0])} – ${f(s.window[1])}`;
    const where = s.locations ? `${s.locations.length} location${s.locations.length === 1 ? '' : 's'}` : 'every location';
    const which = s.per_location ? ` · tree of ${(s.trees[s.shown] || {}).name || 'no location'}` : '';
    this.caption.textContent = `${whole ? 'the whole run' : of}, ${where} (${s.inverted ? 'bottom up' : 'top down'})${which}: ${s.nodes} nodes, ${f(s.total_ns)} in all`;
    this.body.hidden = false;
    if (s.nodes === 0) {
      this.table.replaceChildren(el('tr', {}, el('td', { class: 'muted', text: 'No interval of the selected locations touches this window.' })));
      this.more.textContent = '';
      this.butterflyBox.replaceChildren();
      return;
    }
    const head = el('tr', {}, ...COLUMNS.map(([key, label]) => {
      const arrow = this.sort.key === key ? (this.sort.descending ? ' ▾' : ' ▴') : '';
      const th = el('th', { text: label + arrow, data: { sort: key }, title: `sort siblings by ${label.toLowerCase()}` });
      th.addEventListener('click', () => {
        const k = key === 'share' ? 'inclusive' : key;
        this.sort = { key: k, descending: this.sort.key === k ? !this.sort.descending : k !== 'name' };
        this.call(() => this.viewer.calltree_sort(this.sort.key, this.sort.descending));
        this.render();
      });
      return th;
    }));
    const rows = r.rows.map((n) => {
      const twist = el('button', { type: 'button', class: 'twist', text: n.children ? (n.open ? '▾' : '▸') : '·', 'aria-label': n.open ? 'close' : 'open' });
      if (n.children) twist.addEventListener('click', (e) => { e.stopPropagation(); this.call(() => this.viewer.calltree_toggle(n.node)); this.render(); });
      else twist.disabled = true;
      const name = el('td', { class: 'name', title: n.name }, twist, el('span', { text: n.name }));
      name.style.paddingLeft = `${4 + 12 * Math.min(n.depth, 30)}px`;
      const tr = el('tr', { data: { node: String(n.node), inclusive: String(n.inclusive_ns), exclusive: String(n.exclusive_ns), count: String(n.count), depth: String(n.depth) } },
        name, el('td', { class: 'num', text: n.count.toLocaleString('en-US') }), el('td', { class: 'num', text: f(n.inclusive_ns) }),
        el('td', { class: 'num', text: f(n.exclusive_ns) }), el('td', { class: 'num', text: percent(n.share) }));
      if (n.match) tr.classList.add('match');
      if (n.selected) tr.setAttribute('aria-selected', 'true');
      tr.addEventListener('click', () => this.select(n.selected ? -1 : n.node));
      return tr;
    });
    this.table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
    this.more.textContent = r.more ? `${r.more.toLocaleString('en-US')} more rows: close some nodes or search` : '';
    this.renderButterfly();
  }

  renderButterfly() {
    const b = this.call(() => this.viewer.calltree_butterfly());
    if (!b) {
      this.butterflyBox.replaceChildren(el('span', { class: 'muted', text: 'The butterfly reads the top-down tree: choose top down.' }));
      return;
    }
    const f = (ns) => formatDuration(this.viewer, ns);
    const line = (e, kind) => {
      const tr = el('tr', { class: kind, data: { region: e.region === null ? '' : String(e.region), inclusive: String(e.inclusive_ns), count: String(e.count) } },
        el('td', { class: 'name', text: e.name === null ? '(no caller: a root)' : e.name }),
        el('td', { class: 'num', text: e.count.toLocaleString('en-US') }), el('td', { class: 'num', text: f(e.inclusive_ns) }));
      if (e.region !== null && kind !== 'focus') {
        tr.title = `the butterfly of ${e.name}`;
        tr.addEventListener('click', () => { this.call(() => this.viewer.calltree_set_butterfly(e.region)); this.renderButterfly(); });
      }
      return tr;
    };
    const focus = el('tr', { class: 'focus', data: { region: String(b.region), inclusive: String(b.inclusive_ns), exclusive: String(b.exclusive_ns), count: String(b.count) } },
      el('td', { class: 'name', text: b.name }), el('td', { class: 'num', text: b.count.toLocaleString('en-US') }),
      el('td', { class: 'num', text: `${f(b.inclusive_ns)} (excl. ${f(b.exclusive_ns)})` }));
    const section = (text) => el('tr', { class: 'section' }, el('td', { class: 'muted', text, colspan: '3' }));
    this.butterflyBox.replaceChildren(el('table', { class: 'calltree-list', id: 'calltree-butterfly-table' }, el('tbody', {},
      section(b.callers.length ? 'called by' : 'called by: nothing'), ...b.callers.map((e) => line(e, 'caller')),
      focus,
      section(b.callees.length ? 'calls' : 'calls: nothing'), ...b.callees.map((e) => line(e, 'callee')))));
  }

  /** Select node `node` (negative: none): its butterfly, and its call path's intervals marked in the timeline. */
  async select(node) {
    const path = this.call(() => this.viewer.calltree_select(node));
    this.render();
    await this.markPath(path ? Array.from(path) : null);
  }

  /** Ask the worker for the intervals of `path` over the tree's selection and mark them (null: none). */
  async markPath(path) {
    const load = this.weft.loads;
    const asked = this.marking = {};
    if (!path) {
      this.call(() => this.viewer.calltree_mark(new Uint8Array(0)));
      this.marked.textContent = '';
      this.clear.hidden = true;
      return;
    }
    const s = this.summary;
    // One location's tree: that location's intervals only.
    const tree = s.trees[s.shown];
    const locations = tree && tree.location !== null ? [tree.location] : this.selection.locations;
    // A store keeps call paths per window, not where each call is: its worker finds the path's intervals in
    // the level-0 tiles of the window, only within its tile cache's budget (said here otherwise).
    const store = this.weft.store && this.weft.store.open;
    if (store) this.marked.textContent = 'finding the path\'s intervals in the store\'s level-0 tiles of the window…';
    let answer;
    try {
      answer = await this.ask('calltree-path', { window: this.selection.window, locations, path, inverted: s.inverted });
    } catch (e) {
      if (asked !== this.marking) return;
      if (store) { this.marked.textContent = `Not marked: ${e.message || e}`; this.clear.hidden = true; return; }
      this.onError(`Call tree: ${e.message || e}`);
      return;
    }
    if (asked !== this.marking || load !== this.weft.loads) return;
    const n = this.call(() => this.viewer.calltree_mark(new Uint8Array(answer.model)));
    if (n === undefined) return;
    this.marked.textContent = `${n.toLocaleString('en-US')} interval${n === 1 ? '' : 's'} of this path marked in the timeline${store ? ' (read from the level-0 tiles; drawn where the timeline shows exact records: zoom in)' : ''}`;
    this.clear.hidden = false;
    this.weft.calltreeMarks = (this.weft.calltreeMarks || 0) + 1;
  }

  showFlame(icicle) {
    this.switchWith(() => this.viewer.calltree_show_flame(icicle));
  }
}
