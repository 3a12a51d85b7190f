// The header's warnings: what the reader left out (records not shown) apart from its benign repairs
// (sorted, clipped, closed), as a button ("3 left out · 12 repaired") that opens a popover listing each kind
// with its count, what it means for the view and the first examples. The figures and meanings come from the
// trace summary (crates/analyses/src/summary.rs, the same as `weft info`); nothing is computed here. Examples are
// trace text: isolated, with hidden characters made visible (text.js), and only ever set as textContent.
import { isolated } from './text.js';
import { formatNumber } from './format.js';

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const POPOVER = typeof HTMLElement !== 'undefined' && 'popover' in HTMLElement.prototype;

const HEADINGS = {
  left_out: 'Data left out: these records are not shown',
  repaired: 'Repaired: everything read is shown, after these repairs',
};

/** Show the warnings of a loaded trace's summary `s` (or none, for other kinds of file). */
export function showWarnings(s, viewer) {
  const count = (n) => formatNumber(viewer, n);
  const button = document.getElementById('warnings');
  const panel = document.getElementById('warnings-panel');
  if (!button || !panel) return;
  const groups = (s && s.warning_kinds) || [];
  if (!POPOVER) {
    // Browsers without the popover attribute show it as a plain panel: the button toggles it.
    if (!button.dataset.wired) button.addEventListener('click', () => { panel.hidden = !panel.hidden; });
    button.dataset.wired = '1';
    panel.hidden = true;
  } else {
    if (!panel.dataset.wired) {
      // Just below the button, however many rows the header wraps into.
      panel.addEventListener('beforetoggle', (e) => {
        if (e.newState === 'open') panel.style.top = `${Math.round(button.getBoundingClientRect().bottom + 6)}px`;
      });
      panel.dataset.wired = '1';
    }
    panel.hidden = false; // index.html hides it until now, for browsers without popovers
    if (panel.matches(':popover-open')) panel.hidePopover();
  }
  panel.replaceChildren();
  button.hidden = groups.length === 0;
  if (!groups.length) return;
  const lost = s.warnings_left_out || 0;
  const repaired = s.warnings_repaired || 0;
  const parts = [];
  if (lost) parts.push(`${count(lost)} left out`);
  if (repaired) parts.push(`${count(repaired)} repaired`);
  button.textContent = parts.join(' · ');
  button.classList.toggle('lost', lost > 0);
  panel.append(el('p', 'muted', 'What the reader did with parts of this file it could not show as written (`weft info FILE` lists the same).'));
  for (const effect of ['left_out', 'repaired']) {
    const mine = groups.filter((g) => g.effect === effect);
    if (!mine.length) continue;
    panel.append(el('h3', null, HEADINGS[effect]));
    const list = el('ul', `warning-kinds ${effect}`);
    for (const g of mine) {
      const item = el('li');
      item.dataset.kind = g.kind;
      item.append(el('span', 'count', count(g.count)), el('code', null, g.kind), el('span', 'meaning', g.meaning));
      if (g.examples.length) {
        const ex = el('ul', 'examples');
        for (const e of g.examples) { const li = el('li'); li.append(isolated(e)); ex.append(li); }
        item.append(ex);
      }
      list.append(item);
    }
    panel.append(list);
  }
}
