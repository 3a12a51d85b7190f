// The legend of the Grain graph, Aggregated and Execution graph views: what each colour, node shape and edge
// line means, exactly as the view's scene draws them (Viewer.legend, from Pane::legend and scene::legend: the
// entries `weft render` draws beside its picture), in the theme's colours. A column of its own right of the
// stage (as `weft render` puts it right of the picture), so it covers nothing of the graph: the stage narrows
// and a fitted view fits again. It scrolls when taller than the window and folds to its title with one click.
// The page calls `update` after every view, option or theme change. The timeline's legend lists its function
// groups and their functions (scene::groups); an entry with an `edit` key has a colour picker on its swatch,
// and a choice becomes the view's `colors` option (Viewer.legend_set_color), kept in the permalink.
// It arranges what the Viewer says and computes nothing; trace text (function names) goes in as textContent.
import { el } from './dom.js';
import { foldButton } from './panel.js';

const SVG = 'http://www.w3.org/2000/svg';
const VIEWS = new Set(['grains', 'aggregate', 'execgraph', 'timeline']);

const svg = (tag, attrs) => {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
};

/** A 16x12 swatch drawn as the scene draws the entry: a filled shape with its border, a line, or mixed colours. */
export function swatch(e) {
  const s = svg('svg', { width: 16, height: 12, viewBox: '0 0 16 12', 'aria-hidden': 'true', class: 'swatch' });
  const fill = e.color;
  const stroke = e.border ? { stroke: e.border, 'stroke-width': 1.5 } : {};
  if (e.mark === 'line') {
    s.append(svg('line', { x1: 1, y1: 6, x2: 15, y2: 6, stroke: fill, 'stroke-width': 2, ...(e.dashed ? { 'stroke-dasharray': '3 2' } : {}) }));
  } else if (e.mark === 'mixed') {
    [0.9, 0.6, 0.35].forEach((o, i) => s.append(svg('rect', { x: 1 + i * 5, y: 1, width: 4, height: 10, fill, 'fill-opacity': o })));
  } else {
    const shape = {
      rect: () => svg('rect', { x: 1, y: 1, width: 14, height: 10 }),
      rounded: () => svg('rect', { x: 1, y: 1, width: 14, height: 10, rx: 3 }),
      ellipse: () => svg('ellipse', { cx: 8, cy: 6, rx: 7, ry: 5 }),
      diamond: () => svg('polygon', { points: '8,1 15,6 8,11 1,6' }),
      triangle_down: () => svg('polygon', { points: '1,1 15,1 8,11' }),
      triangle_up: () => svg('polygon', { points: '8,1 15,11 1,11' }),
    }[e.shape] || (() => svg('rect', { x: 1, y: 1, width: 14, height: 10 }));
    const n = shape();
    n.setAttribute('fill', fill);
    for (const [k, v] of Object.entries(stroke)) n.setAttribute(k, String(v));
    s.append(n);
  }
  return s;
}

export class LegendPanel {
  /** @param viewer the page's Viewer; @param stage the element the view is drawn in (the legend goes beside it) */
  constructor({ viewer, stage, dock, onChange }) {
    this.viewer = viewer;
    this.onChange = onChange || (() => {});
    this.folded = false;
    this.last = '';
    this.root = el('section', { id: 'legend', role: 'region', 'aria-label': 'Legend', hidden: '' });
    this.toggle = el('button', { type: 'button', class: 'legend-title', 'aria-expanded': 'true', title: 'fold or unfold the legend', text: 'Legend' });
    this.body = el('div', { class: 'legend-body' });
    this.root.append(this.toggle, this.body);
    foldButton(this.toggle, (folded) => { this.folded = folded; this.body.hidden = folded; });
    // In the side column under its bar (www/side-panels.js), else beside the stage.
    const bar = dock && dock.querySelector('.side-bar');
    if (bar) bar.after(this.root); else if (dock) dock.prepend(this.root); else stage.after(this.root);
    // The theme changes the views' colours (Viewer.set_theme): show the legend in the new ones.
    new MutationObserver(() => { if (this.view) { this.last = ''; this.update(this.view); } })
      .observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  }

  /** The page shows `view`, or changed its options or the theme: show its legend, or hide. */
  update(view) {
    this.view = view;
    const legend = VIEWS.has(view) ? this.viewer.legend() : null;
    this.root.hidden = !legend;
    if (!legend) { this.last = ''; return; }
    this.root.dataset.view = view;
    const key = JSON.stringify(legend);
    if (key === this.last) return;
    this.last = key;
    this.legend = legend;
    this.body.replaceChildren(...legend.sections.map((sec) => el('div', { class: 'legend-section' },
      el('div', { class: 'legend-heading', text: sec.title }),
      ...sec.entries.map((e) => {
        const row = el('div', { class: 'legend-entry', data: { mark: e.mark, color: e.color } }, el('span', { class: 'legend-label', text: e.label }));
        row.prepend(e.edit ? this.picker(e) : swatch(e));
        if (e.edit) { row.dataset.edit = e.edit; row.title = `${e.label}: click the colour to change it (double-click: back to its own)`; }
        return row;
      }))));
  }

  /** The swatch of an editable entry: a colour input over it (the browser's picker); a double click resets. */
  picker(e) {
    const wrap = el('label', { class: 'legend-picker' });
    const input = el('input', { type: 'color', 'aria-label': `colour of ${e.label}` });
    input.value = e.color.slice(0, 7);
    input.addEventListener('change', () => this.setColor(e.edit, input.value));
    wrap.addEventListener('dblclick', (ev) => { ev.preventDefault(); this.setColor(e.edit, ''); });
    wrap.append(swatch(e), input);
    return wrap;
  }

  setColor(key, css) {
    try { this.viewer.legend_set_color(key, css); } catch (err) { console.warn(err); return; }
    this.last = '';
    this.update(this.view);
    this.onChange();
  }
}
