// The aggregated view's controls: its options (method, problem view, filtered view, drill depth, similar-group
// marks) rendered by the page from the view's schema, and its actions (drilling along the critical path, everything
// beneath the selected group, local critical path) as buttons over the view and as keys; a click on the canvas opens or closes a group. "Compare with…" has
// the worker read a second profile of the same program (`onCompare`; its answer goes to Viewer.compare_with) and shows both runs
// side by side, differing groups outlined, with a line of how many visible groups matched and differ. Every action is one
// Viewer.configure or Viewer.click call (src/views/aggregate/); nothing is computed here.
// Trace-derived text goes into the DOM with textContent only (the page's CSP forbids inline handlers).
import { visibleText } from './text.js';
import { el } from './dom.js';

const HELP = 'Aggregated: click a closed group to open it, an opened group\'s envelope to close it · O: open all beneath · '
  + 'C: close · X: drill along the critical path · +/−: drill deeper/shallower · G: filtered view · L: local critical path · '
  + 'M: similar groups';

export class AggregatePanel {
  /** `renderOptions(box)` renders the view's options from its schema, as for the page's other views. */
  /** `onCompare(file)` has the worker read a second profile; the page then calls Viewer.compare_with and `render`. */
  constructor({ viewer, canvas, help, renderOptions, onError, onCompare }) {
    this.viewer = viewer;
    // Navigation controls float over the top-left of the view; method and problem view sit in the toolbar.
    this.bar = el('div', { id: 'aggregate-bar', role: 'toolbar', 'aria-label': 'Aggregated view', hidden: '' });
    Object.assign(this.bar.style, { position: 'absolute', left: '8px', top: '8px', zIndex: '2', display: 'flex', gap: '6px',
      alignItems: 'center', fontSize: '12px', background: 'rgba(255, 255, 255, 0.92)', border: '1px solid #d0d4da',
      borderRadius: '4px', padding: '4px 6px' });
    canvas.parentElement.append(this.bar);
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

  /** Set an option of the aggregated view, then show the controls' new state. */
  configure(key, value) {
    try { this.viewer.configure(key, value); } catch (e) { this.onError(String(e)); }
    this.render();
  }

  /** The page shows `view` with its options in `box`; true when this panel drew them. */
  update(view, box) {
    this.active = view === 'aggregate';
    this.help.hidden = !this.active;
    this.bar.hidden = !this.active;
    if (!this.active) return false;
    this.box = box;
    this.render();
    return true;
  }

  render() {
    if (!this.active || !this.box) return;
    const st = this.viewer.view_state();
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
      const line = el('span', { id: 'aggregate-compare', title: `right: ${visibleText(st.compare_name)}; groups whose structure differs are outlined`,
        text: `matched ${st.compare_matched} of ${st.compare_visible} visible groups; ${st.compare_differ} differ in structure` });
      line.style.whiteSpace = 'nowrap';
      box.append(line);
    }
    const sel = st.selected ? `group ${st.selected.id} · ${st.selected.strength[0]}/${st.selected.strength[1]}` : '';
    box.append(el('span', { class: 'muted', id: 'aggregate-status', text: `${st.visible.toLocaleString()} shown · ${sel}` }));
  }

  onKey(e) {
    if (!this.active) return false;
    const st = this.viewer.view_state();
    switch (e.key) {
      case 'o': case 'O': this.configure('open_all_beneath', 'selected'); return true;
      case 'c': case 'C': this.configure('close', 'selected'); return true;
      case 'x': case 'X': this.configure('drill_critical', ''); return true;
      case '+': case '=': this.configure('drill_depth', String(Math.min(st.depth + 1, st.tree_depth))); return true;
      case '-': this.configure('drill_depth', String(Math.max(st.depth - 1, 0))); return true;
      case 'g': case 'G': this.configure('filtered', st.filtered ? 'off' : 'on'); return true;
      case 'l': case 'L': this.configure('local_critical', st.local_critical === null ? 'on' : 'off'); return true;
      case 'm': case 'M': this.configure('similar', st.similar_marks ? 'off' : 'on'); return true;
      default: return false;
    }
  }
}
