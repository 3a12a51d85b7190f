// Permalinks: the view state (what is open, view, time range, zoom, scroll, view options, problem view, the
// selected grain; in the aggregated view its method, open groups, filter and selection) lives in the URL hash, e.g. #sample=fib&view=execgraph&ex=-120&et=0&en=2500. The hash is
// rewritten (replaceState, no history spam) shortly after each interaction, and restored when the page opens
// with one. Embed options (theme, chrome, select) ride along unchanged. Only numbers and names of options go
// into the hash. The view's options are the pairs of its schema (Viewer.option_schema, crates/view/src/views/options.rs),
// written and read back as they are; this file knows the geometry keys and the aggregated view's open groups.
// The notes ride along as one value, `notes`, that notes.js writes and reads (views::notes's link encoding).

// Short hash keys for the geometry keys of viewer.view_brief().
const GEOMETRY = { t0: 't0_ns', t1: 't1_ns', y: 'scroll_y', row: 'first_row', rh: 'row_height_px', ex: 'scroll_x_px', et: 'top_ns', en: 'ns_per_px', ec: 'column_px' };
const VIEWPORT = { gx: 'x0', gy: 'y0', gs: 'scale' };
// Parameters that are not view state and are kept as they came.
const CARRIED = ['theme', 'chrome', 'select'];

/** The link's parameters: the hash's, with a `?trace=` from the query too. */
export function linkParams(loc) {
  const p = new URLSearchParams(loc.hash.slice(1));
  const q = new URLSearchParams(loc.search);
  for (const k of ['trace', 'sample', 'view', ...CARRIED]) if (q.has(k) && !p.has(k)) p.set(k, q.get(k));
  return p;
}

const fmt = (v) => String(Number(v.toPrecision(10)));

/** The shown view as link parameters. */
export function capture(weft, carried) {
  const p = new URLSearchParams();
  const src = weft.source;
  if (src && src.trace && !new URLSearchParams(location.search).has('trace')) p.set('trace', src.trace);
  else if (src && src.sample) p.set('sample', src.sample);
  const st = weft.viewer && weft.viewer.view_brief();
  if (!st) return p;
  p.set('view', st.view);
  for (const [k, key] of Object.entries(GEOMETRY)) if (Number.isFinite(st[key])) p.set(k, fmt(st[key]));
  if (st.viewport) for (const [k, key] of Object.entries(VIEWPORT)) if (Number.isFinite(st.viewport[key])) p.set(k, fmt(st.viewport[key]));
  const schema = weft.viewer.option_schema();
  if (schema) for (const [k, v] of schema.pairs) p.set(k, v);
  if (st.view === 'grains' && st.selected) p.set('sel', String(st.selected.grain));
  if (st.view === 'aggregate') {
    // Open groups by tree index (the tree is the same for the same profile and method); a fully opened large
    // graph would make an unwieldy link, so past 2,000 groups only the depth drilled to (an option) is kept.
    if (st.open && st.open.length <= 2000) p.set('open', st.open.join('.'));
    if (st.selected) p.set('sel', String(st.selected.id));
    if (Number.isInteger(st.local_critical)) p.set('local', String(st.local_critical));
    if (st.fitted) for (const k of Object.keys(VIEWPORT)) p.delete(k);
  }
  // The notes on the trace (notes.js; views::notes: versioned, base64url), whatever view is shown.
  const notes = weft.notesPanel && weft.notesPanel.link();
  if (notes) p.set('notes', notes);
  // Two runs compared (compare.js): run B's address and the comparison's settings.
  const compare = weft.compareLink && weft.compareLink();
  if (compare) for (const [k, v] of Object.entries(compare)) p.set(k, v);
  for (const k of CARRIED) if (carried.has(k)) p.set(k, carried.get(k));
  return p;
}

/** The aggregated view's navigation (open groups, selection, local critical path, camera) as its pane restores
 *  it, from link parameters; its options are set from the link before. */
function aggregateState(p) {
  const st = {};
  if (p.has('open')) st.open = p.get('open').split('.').filter((x) => /^\d+$/.test(x)).map(Number);
  if (p.has('sel')) st.selected = { id: Number(p.get('sel')) };
  if (p.has('local')) st.local_critical = Number(p.get('local'));
  const vp = {};
  for (const [k, key] of Object.entries(VIEWPORT)) if (p.has(k)) vp[key] = Number(p.get(k));
  if (Object.keys(vp).length === 3) { st.viewport = vp; st.fitted = false; }
  return st;
}

/** Put the view back as the link says; options the loaded trace lacks are skipped. */
export function restore(app, p) {
  const v = app.weft.viewer;
  if (app.weft.notesPanel) app.weft.notesPanel.fromLink(p.get('notes') || '');
  const view = p.get('view');
  if (view && view !== v.view() && v.views().includes(view)) app.switchView(view);
  const shown = v.view();
  try { v.set_link_options(JSON.stringify([...p.entries()])); } catch (e) { app.showError(String(e)); }
  // Options the worker applies (a layout) go to the worker when the link sets them.
  const schema = v.option_schema();
  for (const o of (schema && schema.options) || []) {
    if (o.applies === 'worker' && o.role === 'option' && p.has(o.link) && o.value !== o.default) app.relayout(o.key, o.value);
  }
  if (shown === 'aggregate') {
    app.configure('restore', JSON.stringify(aggregateState(p)));
    app.renderViewTabs();
    return;
  }
  const state = {};
  for (const [k, key] of Object.entries(GEOMETRY)) if (p.has(k)) state[key] = Number(p.get(k));
  const vp = {};
  for (const [k, key] of Object.entries(VIEWPORT)) if (p.has(k)) vp[key] = Number(p.get(k));
  if (Object.keys(vp).length) state.viewport = vp;
  v.restore_state(JSON.stringify(state));
  if (shown === 'grains') selectGrain(app, p);
  app.renderViewTabs();
}

/** The grain a link selects: `sel` (a grain index, as saved) or `select` (an embed's search: task id, function,
 *  source line; the first match is selected and centred). The grain panel shows its properties. */
function selectGrain(app, p) {
  const v = app.weft.viewer;
  let grain = p.has('sel') ? Number(p.get('sel')) : undefined;
  let locate = false;
  if (grain === undefined && p.get('select') && typeof v.grain_search === 'function') {
    const hits = v.grain_search(p.get('select'));
    if (hits && hits.grain && hits.grain.length) { grain = hits.grain[0]; locate = true; }
    else app.showError(`No grain matches “${p.get('select')}”.`);
  }
  if (!Number.isInteger(grain) || grain < 0) return;
  if (app.weft.grainPanel) app.weft.grainPanel.select(grain, locate);
  else v.select_grain(grain, locate);
}

/** Does a finished load match what the link names (a URL, a sample, or a file opened by hand)? */
function matches(p, source) {
  if (p.has('trace')) return !!(source && source.trace === new URL(p.get('trace'), location.href).href);
  if (p.has('sample')) return !!(source && source.sample === p.get('sample'));
  return !source;
}

export function initPermalinks(app, initial) {
  const { weft } = app;
  const carried = new URLSearchParams();
  for (const k of CARRIED) if (initial.has(k)) carried.set(k, initial.get(k));
  // The link's view is applied once, to the first load that matches it.
  // Any key but the source and the embed's look is view state (the view, geometry, a view's options, `select`).
  const hasState = (p) => [...p.keys()].some((k) => !['trace', 'sample', 'theme', 'chrome'].includes(k));
  let waiting = hasState(initial) ? initial : null;
  const write = () => {
    if (!weft.viewer || weft.state !== 'ready') return;
    const hash = capture(weft, carried).toString();
    if (location.hash.slice(1) !== hash) history.replaceState(history.state, '', `${location.pathname}${location.search}#${hash}`);
    weft.link = location.href;
  };
  let timer = 0;
  const later = () => { clearTimeout(timer); timer = setTimeout(write, 250); };
  weft.hooks.loaded.push(() => {
    if (waiting && matches(waiting, weft.source)) {
      try { restore(app, waiting); } catch (e) { app.showError(`The link's view could not be restored: ${e}`); }
      waiting = null;
    }
    write();
  });
  for (const type of ['wheel', 'pointerup', 'keyup', 'click', 'change']) window.addEventListener(type, later, { capture: true, passive: true });
  window.addEventListener('hashchange', () => {
    const p = linkParams(location);
    if (p.toString() === capture(weft, carried).toString()) return;
    if (matches(p, weft.source)) { restore(app, p); write(); return; }
    waiting = hasState(p) ? p : null;
    if (p.has('trace')) app.openUrl(new URL(p.get('trace'), location.href).href);
    else if (p.has('sample')) app.openSample(p.get('sample'));
  });
  const button = document.getElementById('copy-link');
  if (button) {
    button.addEventListener('click', async () => {
      write();
      let note = weft.source ? 'Link copied' : 'Link copied (it holds the view; the file must be opened again)';
      try {
        await navigator.clipboard.writeText(location.href);
        button.textContent = '✓';
      } catch {
        button.textContent = '✗';
        note = 'Copying was refused: the address bar holds the same link';
      }
      button.title = note;
      setTimeout(() => { button.textContent = 'Link'; }, 1500);
    });
  }
  weft.permalink = { write, capture: () => capture(weft, carried).toString() };
}
