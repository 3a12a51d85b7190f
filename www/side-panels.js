// The side column (index.html #side: the legend and the timeline's profile, messages and rows panels, stacked)
// folds to its bar and back, so the view can take the whole width; the column is at most 28 % of the window
// (style.css). And keys go back to the view after a search: Enter or Escape in a panel's text box, or a press
// on the view, leaves the box (typed keys were going into it); a new file clears the panels' search and filter
// boxes (a pattern carried over to the next file). N / Shift+N step through the timeline's search matches.
// Nothing here knows a trace.

import { foldButton } from './panel.js';

const BOXES = '#side input[type="search"], #grain-panel input[type="search"]';

export function initSidePanels({ weft, stage }) {
  const side = document.getElementById('side');
  const fold = document.getElementById('side-collapse');
  foldButton(fold, (folded) => {
    side.classList.toggle('collapsed', folded);
    fold.textContent = folded ? '⟨' : '⟩';
    fold.title = folded ? 'Show the side panels' : 'Fold the side panels: the view takes the width';
  });

  // After the box's own handler (Enter steps to the next match): the box lets go of the keys.
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (!(t instanceof HTMLInputElement) || !t.closest('#side, #grain-panel') || !['search', 'text'].includes(t.type)) return;
    if (e.key === 'Enter' || e.key === 'Escape') t.blur();
  });
  stage.addEventListener('pointerdown', () => {
    const a = document.activeElement;
    if (a instanceof HTMLInputElement || a instanceof HTMLSelectElement || a instanceof HTMLTextAreaElement) a.blur();
  }, { capture: true });

  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey || e.key.toLowerCase() !== 'n') return;
    const p = weft.profilePanel;
    if (!weft.viewer || weft.viewer.view() !== 'timeline' || !p || !p.search.value.trim()) return;
    e.preventDefault();
    p.step(!e.shiftKey);
  });

  let shown = null;
  weft.hooks.loaded.push((msg) => {
    const file = msg && msg.name;
    if (shown !== null && file === shown) return;
    shown = file;
    // The panels' own state follows the emptied boxes; nothing is asked of the view (it may not be a timeline).
    for (const box of document.querySelectorAll(BOXES)) box.value = '';
    if (weft.profilePanel) { weft.profilePanel.searched = ''; weft.profilePanel.hits.textContent = ''; }
    if (weft.rowsPanel) { weft.rowsPanel.filter = ''; weft.rowsPanel.from = 0; }
    if (weft.grainPanel && weft.grainPanel.input) weft.grainPanel.input.dispatchEvent(new Event('input'));
  });
}
