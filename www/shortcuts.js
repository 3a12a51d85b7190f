// The keyboard shortcut overlay: `?` (or the ? button) shows it, `?`, Escape or a click closes it. It lists the
// keys of the view that is open, as the Viewer says (Viewer.keys: Pane::keys and the keys every view shares,
// crates/view/src/views/keys.rs), read again each time it opens. The keys themselves are handled in app.js and the
// panels; this only lists them.

export function initShortcuts() {
  const overlay = document.createElement('div');
  overlay.id = 'shortcuts';
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-label', 'Keyboard shortcuts');
  overlay.hidden = true;
  const box = document.createElement('div');
  box.className = 'panel';
  const h = document.createElement('h2');
  h.textContent = 'Keyboard shortcuts';
  const table = document.createElement('table');
  box.append(h, table);
  overlay.append(box);
  document.body.append(overlay);
  const fill = () => {
    const weft = window.weft;
    const viewer = weft && weft.viewer;
    const keys = viewer ? viewer.keys() : [];
    overlay.dataset.view = viewer ? viewer.view() : '';
    table.replaceChildren();
    for (const { keys: key, action } of keys) {
      const tr = table.insertRow();
      const k = tr.insertCell();
      k.textContent = key;
      k.className = 'key';
      tr.insertCell().textContent = action;
    }
  };
  const toggle = (show = overlay.hidden) => {
    if (show) fill();
    overlay.hidden = !show;
  };
  overlay.addEventListener('click', () => toggle(false));
  const button = document.getElementById('shortcuts-button');
  if (button) button.addEventListener('click', () => toggle());
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === '?') { toggle(); e.preventDefault(); } else if (e.key === 'Escape' && !overlay.hidden) toggle(false);
  });
}
