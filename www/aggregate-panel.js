// The aggregated view's controls: its options (method, problem view, filtered view, drill depth, similar-group
// marks) rendered by the page from the view's schema, and its actions (drilling along the critical path, everything
// beneath the selected group, local critical path) as buttons over the view and as keys; a click on the canvas opens or closes a group. "Compare with…" has
// the worker read a second profile of the same program (`onCompare`; its answer goes to Viewer.compare_with) and shows both runs
// side by side, differing groups outlined, with a line of how many visible groups matched and differ (or that the two are
// different programs). The bar shows theta (the visible node count); a click on a group opens its property window (members,
// metrics, problems, source locations: the view state's `properties`), whose grain or J over a grain shows it in the Grain
// graph tab (`onJump`); the similar-group marks get a legend of their classes (`similar_classes`). Every action is one
// Viewer.configure or Viewer.click call (crates/view/src/views/aggregate/); nothing is computed here.
// Trace-derived text goes into the DOM with textContent only (the page's CSP forbids inline handlers).
import { visibleText } from './text.js';
import { el } from './dom.js';
import { attempt, setShown } from './panel.js';
import { formatNumber } from './format.js';

const HELP = 'Aggregated: click a closed group to open it, an opened group\'s envelope to close it (and see its properties) · '
  + 'O: open all beneath · C: close · X: drill along the critical path · +/−: drill deeper/shallower · G: filtered view · '
  + 'L: local critical path · M: similar groups · J: show the grain under the pointer in the Grain graph tab';

const GLYPHS = { diamond: '◆', circle: '●', triangle: '▲', 'triangle-down': '▼' };

const floating = (id, label, where) => {
  const box = el('div', { id, role: 'region', 'aria-label': label, hidden: '' });
  Object.assign(box.style, { position: 'absolute', zIndex: '2', fontSize: '12px', background: 'rgba(255, 255, 255, 0.96)',
    border: '1px solid #d0d4da', borderRadius: '4px', padding: '6px 8px', overflow: 'auto', color: '#1f2328', ...where });
  return box;
};

export class AggregatePanel {
  /** `renderOptions(box)` renders the view's options from its schema, as for the page's other views. */
  /** `onCompare(file)` has the worker read a second profile; the page then calls Viewer.compare_with and `render`. */
  /** `onJump(grain)` shows a grain in the Grain graph tab (Viewer.show_grain) and redraws the page's tabs. */
  /** `onRender()`: the view's state may have changed (the page refreshes its legend). */
  constructor({ viewer, canvas, help, renderOptions, onError, onCompare, onJump, onRender }) {
    this.viewer = viewer;
    this.onRender = onRender;
    // Navigation controls float over the top-left of the view; method and problem view sit in the toolbar.
    this.bar = el('div', { id: 'aggregate-bar', role: 'toolbar', 'aria-label': 'Aggregated view', hidden: '' });
    Object.assign(this.bar.style, { position: 'absolute', left: '8px', top: '8px', zIndex: '2', display: 'flex', gap: '6px',
      alignItems: 'center', fontSize: '12px', background: 'rgba(255, 255, 255, 0.92)', border: '1px solid #d0d4da',
      borderRadius: '4px', padding: '4px 6px' });
    canvas.parentElement.append(this.bar);
    this.props = floating('aggregate-props', 'Group properties', { right: '8px', top: '8px', width: '300px', maxHeight: '70%' });
    this.legend = floating('aggregate-similar-legend', 'Similar groups', { left: '8px', bottom: '8px', maxHeight: '30%' });
    canvas.parentElement.append(this.props, this.legend);
    this.onJump = onJump;
    this.propsClosed = null;
    this.renderOptions = renderOptions;
    this.onError = onError;
    this.onCompare = onCompare;
    this.active = false;
    this.box = null;
    this.help = el('span', { hidden: '' }, el('br'), HELP);
    if (help) help.append(this.help);
    let down = null;
    canvas.addEventListener('pointerdown', (e) => { if (e.button === 0) down = { x: e.clientX, y: e.clientY }; });
    canvas.addEventListener('pointerup', (e) => {
      if (!this.active || !down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) { down = null; return; }
      down = null;
      const r = canvas.getBoundingClientRect();
      if (this.viewer.click(e.clientX - r.left, e.clientY - r.top)) this.render();
    });
  }

  /** A count for reading, by the Viewer's formatter ("131,072"). */
  count(n) {
    return formatNumber(this.viewer, n);
  }

  /** Set an option of the aggregated view, then show the controls' new state. */
  configure(key, value) {
    attempt(() => this.viewer.configure(key, value), this.onError);
    this.render();
  }

  /** The page shows `view` with its options in `box`; true when this panel drew them. */
  update(view, box) {
    this.active = view === 'aggregate';
    setShown(this.active, this.help, this.bar);
    if (!this.active) { setShown(false, this.props, this.legend); return false; }
    this.box = box;
    this.render();
    return true;
  }

  render() {
    if (!this.active || !this.box) return;
    const st = this.viewer.view_brief();
    if (!st || st.view !== 'aggregate') return;
    this.box.replaceChildren();
    this.renderOptions(this.box);
    const box = this.bar;
    box.replaceChildren();
    const button = (text, title, key, value) => {
      const b = el('button', { type: 'button', title, 'data-action': key, text });
      Object.assign(b.style, { font: 'inherit', padding: '1px 6px' });
      b.addEventListener('click', () => this.configure(key, value));
      return b;
    };
    box.append(button('critical path', 'open the groups on the global critical path (X)', 'drill_critical', ''));
    box.append(button('open beneath', 'open everything beneath the selected group (O)', 'open_all_beneath', 'selected'));
    box.append(button(st.local_critical === null ? 'local path' : 'local path ✓', 'the selected group\'s local critical path, orange (L)',
      'local_critical', st.local_critical === null ? 'on' : 'off'));
    const file = el('input', { type: 'file', id: 'aggregate-compare-file', accept: '.csv,.merged,.graphml,.xml,.txt' });
    file.style.display = 'none';
    file.addEventListener('change', () => {
      const f = file.files[0];
      if (!f) return;
      this.onCompare(f);
    });
    const pick = el('button', { type: 'button', title: 'show a second run of the same program beside this one', text: st.compare ? 'compare ✓' : 'compare with…' });
    Object.assign(pick.style, { font: 'inherit', padding: '1px 6px' });
    pick.addEventListener('click', () => file.click());
    box.append(file, pick);
    if (st.compare) {
      box.append(button('leave', 'leave the comparison: show this run alone again', 'compare', 'off'));
      const text = st.compare_programs_differ ? `${visibleText(st.compare_programs_differ)}: no group matched`
        : `matched ${st.compare_matched} of ${st.compare_visible} visible groups; ${st.compare_differ} differ in structure`;
      const line = el('span', { id: 'aggregate-compare', title: `right: ${visibleText(st.compare_name)}; groups whose structure differs are outlined`, text });
      line.style.whiteSpace = 'nowrap';
      box.append(line);
    }
    const sel = st.selected ? `group ${st.selected.id} · ${st.selected.strength[0]}/${st.selected.strength[1]}` : '';
    box.append(el('span', { class: 'muted', id: 'aggregate-status', text: `${this.count(st.visible)} shown · ${sel}` }));
    const th = st.theta;
    box.append(el('span', { id: 'aggregate-theta', class: 'muted',
      title: `visible node count θ (Reissmann & Muddukrishna, Section 5.1): the fewest nodes on screen while diagnosing a grain; `
        + `θ max is its greatest over ${th.of} of this ${st.problem ? 'problem view' : 'structural view'} (a measure of the aggregation, not a setting)`
        + (th.selected !== null ? `; θ of the selected node: ${th.selected}` : ''),
      text: `θ max ${th.max === null ? '–' : this.fmt(th.max)} (${th.of}) of ${this.fmt(st.graph_nodes)} nodes` }));
    this.renderProps(st);
    this.renderLegend(st);
    if (this.onRender) this.onRender();
  }

  /** A number for reading in `unit` ("" counts, "cycles", "ns"): the Viewer's one formatter (scene::number),
   *  as in the view's tooltips. */
  fmt(v, unit = '') {
    return typeof v !== 'number' ? String(v) : this.viewer.format_number(v, unit);
  }

  /** The selected node's property window (the view state's `properties`), closable until the selection changes. */
  renderProps(st) {
    const p = st.properties;
    const box = this.props;
    if (!p || this.propsClosed === p.id) { box.hidden = true; return; }
    this.propsClosed = null;
    box.hidden = false;
    box.replaceChildren();
    const head = el('div', {});
    Object.assign(head.style, { display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: '6px', fontWeight: '600' });
    const title = p.leaf ? (p.grain !== null ? `grain: task ${p.task}` : `${p.kind} node ${p.id}`) : `${p.kind.replace('_', '-')} group ${p.id} (${p.open ? 'opened' : 'closed'})`;
    const close = el('button', { type: 'button', title: 'close the property window', 'aria-label': 'close', text: '×' });
    Object.assign(close.style, { font: 'inherit', padding: '0 6px' });
    close.addEventListener('click', () => { this.propsClosed = p.id; box.hidden = true; });
    head.append(el('span', { text: title }), close);
    box.append(head);
    const table = el('table', {});
    Object.assign(table.style, { borderCollapse: 'collapse', width: '100%', marginTop: '4px' });
    const row = (cells, header = false) => {
      const tr = el('tr', {});
      cells.forEach((c, i) => {
        const td = el(header ? 'th' : 'td', { text: c });
        Object.assign(td.style, { textAlign: i === 0 ? 'left' : 'right', padding: '1px 4px', whiteSpace: i === 0 ? 'normal' : 'nowrap',
          fontWeight: header ? '600' : 'normal' });
        tr.append(td);
      });
      table.append(tr);
    };
    const kinds = Object.entries(p.member_kinds).map(([k, n]) => `${n} ${k.replace('_', '-')}`).join(', ');
    row(['members', p.leaf ? '–' : `${this.fmt(p.members)}${kinds ? ` (${kinds})` : ''}`]);
    row(['grains', this.fmt(p.grains)]);
    row(['grain-graph nodes', this.fmt(p.graph_nodes)]);
    row(['depth', this.fmt(p.depth)]);
    row(['θ (visible node count)', p.theta === null ? '–' : this.fmt(p.theta)]);
    row(['on the critical path', p.on_critical ? 'yes' : 'no']);
    box.append(table);
    if (p.metrics.length) {
      const m = el('table', { class: 'metrics' });
      Object.assign(m.style, { borderCollapse: 'collapse', width: '100%', marginTop: '6px' });
      const tr = (cells, header = false) => {
        const r = el('tr', {});
        cells.forEach((c, i) => {
          const td = el(header ? 'th' : 'td', { text: c });
          Object.assign(td.style, { textAlign: i === 0 ? 'left' : 'right', padding: '1px 4px', fontWeight: header ? '600' : 'normal' });
          r.append(td);
        });
        m.append(r);
      };
      tr(['metric', 'total', 'mean', 'max'], true);
      for (const x of p.metrics) tr([x.label, this.fmt(x.total, x.unit), this.fmt(x.mean, x.unit), this.fmt(x.max, x.unit)]);
      box.append(m);
    }
    const list = (heading, items) => {
      if (!items.length) return;
      box.append(el('div', { text: heading, class: 'muted' }));
      const ul = el('ul', {});
      Object.assign(ul.style, { margin: '2px 0 4px', paddingLeft: '16px' });
      for (const t of items) ul.append(el('li', { text: t }));
      box.append(ul);
    };
    list('problems (grains flagged)', p.problems.map((x) => `${x.metric.replace(/_/g, ' ')}: ${this.fmt(x.grains)}`));
    const more = p.sources_distinct - p.sources.length;
    list(`source locations (${this.fmt(p.sources_distinct)})`, p.sources.map((x) => `${visibleText(x.source || '?')}${x.function ? ` · ${visibleText(x.function)}` : ''}: ${this.fmt(x.grains)} grain${x.grains === 1 ? '' : 's'}`)
      .concat(more > 0 ? [`and ${this.fmt(more)} more`] : []));
    if (p.grain !== null && p.grain !== undefined) {
      const jump = el('button', { type: 'button', id: 'aggregate-jump', title: 'show this grain in the Grain graph tab, selected (J)', text: 'show in Grain graph' });
      Object.assign(jump.style, { font: 'inherit', padding: '1px 6px' });
      jump.addEventListener('click', () => this.onJump(p.grain));
      box.append(jump);
    }
  }

  /** A legend of the similar-group marks: each class's glyph in its colour and its groups. */
  renderLegend(st) {
    const box = this.legend;
    const classes = st.similar_classes || [];
    if (!st.similar_marks) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren(el('div', { class: 'muted', text: classes.length ? 'similar groups: one mark per structure' : 'similar groups: no two visible closed groups share a structure' }));
    for (const c of classes) {
      const item = el('div', { 'data-class': String(c.class) });
      const glyph = el('span', { text: `${GLYPHS[c.shape] || '◆'} ${c.class}` });
      glyph.style.color = c.color;
      glyph.style.fontWeight = '600';
      item.append(glyph, ` · ${c.groups.length} groups (${c.groups.slice(0, 6).join(', ')}${c.groups.length > 6 ? ', …' : ''})`);
      box.append(item);
    }
  }

  onKey(e) {
    if (!this.active) return false;
    const st = this.viewer.view_brief();
    switch (e.key) {
      case 'o': case 'O': this.configure('open_all_beneath', 'selected'); return true;
      case 'c': case 'C': this.configure('close', 'selected'); return true;
      case 'x': case 'X': this.configure('drill_critical', ''); return true;
      case '+': case '=': this.configure('drill_depth', String(Math.min(st.depth + 1, st.tree_depth))); return true;
      case '-': this.configure('drill_depth', String(Math.max(st.depth - 1, 0))); return true;
      case 'g': case 'G': this.configure('filtered', st.filtered ? 'off' : 'on'); return true;
      case 'l': case 'L': this.configure('local_critical', st.local_critical === null ? 'on' : 'off'); return true;
      case 'm': case 'M': this.configure('similar', st.similar_marks ? 'off' : 'on'); return true;
      case 'j': case 'J': {
        const grain = st.hovered_grain ?? (st.properties ? st.properties.grain : null);
        if (grain === null || grain === undefined) return false;
        this.onJump(grain);
        return true;
      }
      default: return false;
    }
  }
}
