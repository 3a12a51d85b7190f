// Recently opened traces, kept in this browser's localStorage: names only (never contents, paths or URLs).
// Built-in samples reopen from the list; a file has to be opened again, which the list says.

import { visibleText } from './text.js';

const KEY = 'weft-recent';
const MAX = 10;

function load() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(list) ? list.filter((e) => e && typeof e.name === 'string').slice(0, MAX) : [];
  } catch {
    return [];
  }
}

function save(list) {
  try { localStorage.setItem(KEY, JSON.stringify(list)); } catch { /* storage off (private mode, sandbox) */ }
}

export function initRecent(app) {
  const select = document.getElementById('recent');
  if (!select) return;
  const render = () => {
    const list = load();
    select.replaceChildren();
    const head = document.createElement('option');
    head.value = '';
    head.textContent = 'Recent…';
    select.append(head);
    list.forEach((e, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = e.sample ? `${e.name} (built in)` : visibleText(e.name);
      select.append(o);
    });
    select.hidden = list.length === 0;
  };
  select.addEventListener('change', () => {
    const e = load()[Number(select.value)];
    select.value = '';
    if (!e) return;
    if (e.sample) app.openSample(e.sample);
    else app.showError(`Only names are kept: open ${e.name} again with "Open trace…", or drop it here.`);
  });
  app.weft.hooks.loaded.push((msg) => {
    const sample = app.weft.source && app.weft.source.sample;
    const entry = sample ? { name: msg.name, sample } : { name: msg.name };
    save([entry, ...load().filter((e) => e.name !== entry.name)].slice(0, MAX));
    render();
  });
  render();
}
