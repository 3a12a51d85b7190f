// The pointer and keys on the view: the wheel zooms, pans or scrolls (Ctrl: row height), a drag pans and
// scrolls, W/A/S/D/arrows/F move, 1-3 switch views, Escape cancels a load; the panels take their presses first
// (profile: Shift+drag selects; rows: the label column and overview strip; grains and aggregated: their keys).
// The hover tooltip shows the Viewer's text for what is under the pointer. Trace text goes in with textContent.
import { visibleText } from './text.js';

export function createPointer(app) {
  const { weft, ui, load } = app;

  function hideTooltip() { ui.tooltip.hidden = true; }

  function showTooltip(info, x, y) {
    if (!info) { hideTooltip(); return; }
    const t = ui.tooltip;
    t.replaceChildren();
    const name = document.createElement('div');
    name.className = 'name';
    name.textContent = visibleText(info.title);
    t.append(name);
    for (const l of info.lines) { const d = document.createElement('div'); d.textContent = visibleText(l); t.append(d); }
    t.hidden = false;
    const stage = ui.stage.getBoundingClientRect();
    const tw = t.offsetWidth, th = t.offsetHeight;
    t.style.left = `${Math.max(4, x + 14 + tw > stage.width ? x - tw - 14 : x + 14)}px`;
    t.style.top = `${y + 18 + th > stage.height ? Math.max(4, y - th - 10) : y + 18}px`;
  }

  /** Wire the view's canvas (once the Viewer exists). */
  function wire(canvas) {
    const v = () => weft.viewer;
    const local = (e) => { const r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    let drag = null;
    let mouseX = null;
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [x] = local(e);
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const dx = e.deltaX * unit, dy = e.deltaY * unit;
      if (e.ctrlKey) v().zoom_rows(local(e)[1], Math.exp(-dy * 0.002));
      else if (e.shiftKey) v().scroll(dy || dx);
      else if (Math.abs(dx) > Math.abs(dy)) v().pan(dx);
      else v().zoom(x, Math.exp(-dy * 0.002), local(e)[1]);
      hideTooltip();
    }, { passive: false });
    canvas.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      if (weft.profilePanel && weft.profilePanel.takesPointer(e)) return; // Shift+drag selects a time range
      if (weft.rowsPanel && weft.rowsPanel.takesPointer(e)) return; // label column folds, overview strip moves
      drag = { x: e.clientX, y: e.clientY };
      canvas.setPointerCapture(e.pointerId);
      canvas.classList.add('dragging');
      hideTooltip();
    });
    canvas.addEventListener('pointermove', (e) => {
      const [x, y] = local(e);
      mouseX = x;
      if (drag) {
        v().pan(drag.x - e.clientX);
        v().scroll(drag.y - e.clientY);
        drag = { x: e.clientX, y: e.clientY };
        return;
      }
      showTooltip(v().hover(x, y), x, y);
    });
    const endDrag = () => { drag = null; canvas.classList.remove('dragging'); };
    canvas.addEventListener('pointerup', endDrag);
    canvas.addEventListener('pointercancel', endDrag);
    canvas.addEventListener('pointerleave', () => { hideTooltip(); v().clear_hover(); mouseX = null; });
    window.onkeydown = (e) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      if (weft.grainPanel && weft.grainPanel.onKey(e)) { e.preventDefault(); hideTooltip(); return; }
      if (weft.aggregatePanel && weft.aggregatePanel.onKey(e)) { e.preventDefault(); hideTooltip(); return; }
      const w = canvas.clientWidth;
      const cx = mouseX ?? (200 + (w - 200) / 2);
      switch (e.key.toLowerCase()) {
        case 'w': v().zoom(cx, 1.25); break;
        case 's': v().zoom(cx, 0.8); break;
        case 'a': v().pan(-w * 0.1); break;
        case 'd': v().pan(w * 0.1); break;
        case 'arrowup': v().scroll(-40); break;
        case 'arrowdown': v().scroll(40); break;
        case 'f': v().fit(); break;
        case 'escape': if (load.pending) app.reader.cancel(); break;
        case '1': case '2': case '3': {
          const views = v().views();
          const want = views[Number(e.key) - 1];
          if (want) app.views.switchStepped(want);
          break;
        }
        default: return;
      }
      e.preventDefault();
      hideTooltip();
    };
  }

  return { wire, hideTooltip };
}
