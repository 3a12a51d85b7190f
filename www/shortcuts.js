// The keyboard shortcut overlay: `?` (or the ? button) shows it, `?`, Escape or a click closes it. The keys
// themselves are handled in app.js; this only lists them.

const KEYS = [
  ['W / S, wheel', 'zoom in / out (about the pointer)'],
  ['A / D, drag', 'pan earlier / later'],
  ['↑ / ↓, Shift+wheel', 'scroll rows'],
  ['Shift+drag, Shift+click twice', 'select a time range (timeline): its duration and profile'],
  ['Ctrl+wheel', 'row height (moments view)'],
  ['F', 'fit: show everything'],
  ['1 / 2 / 3', 'switch view (the time range is kept)'],
  ['Esc', 'cancel loading, close this overlay'],
  ['?', 'show or hide these shortcuts'],
];

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
  for (const [key, what] of KEYS) {
    const tr = table.insertRow();
    const k = tr.insertCell();
    k.textContent = key;
    k.className = 'key';
    tr.insertCell().textContent = what;
  }
  box.append(h, table);
  overlay.append(box);
  document.body.append(overlay);
  const toggle = (show = overlay.hidden) => { overlay.hidden = !show; };
  overlay.addEventListener('click', () => toggle(false));
  const button = document.getElementById('shortcuts-button');
  if (button) button.addEventListener('click', () => toggle());
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === '?') { toggle(); e.preventDefault(); } else if (e.key === 'Escape' && !overlay.hidden) toggle(false);
  });
}
