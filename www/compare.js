// Two runs compared on the page (issue #54). Run A is the page's trace, opened as any file is (reader.js, the
// Viewer in #stage); run B is read by a reader worker of its own (a second worker.js) and drawn by a second
// Viewer below A (#stage-b). Both timelines share one time axis after the alignment: a zoom or pan of either
// moves the other (each frame, the one that moved sets the other's window, shifted by the runs' origins). Each
// worker computes its run's side of the comparison (`compare_side`: analyses::compare::side over the trace it
// holds) and B's worker pairs both (`compare_pair`), so the summary and the region table are what
// `weft diff --json` prints; this file only arranges that answer. A row's click marks the region of that name in
// both timelines. A is blue and lettered "A", B orange and "B", wherever either is named.
// Opened by `?trace=A&compare=B`, by "Compare with…" on an open trace, or by dropping two files that are two
// runs (the B worker's `two_runs` looks at their heads; one run's per-rank files still open as one run).
// Stores (`?store=A/&compare=B/`, a store URL given to "Compare with a URL…", or a store against a trace):
// a store run is held by a store worker of its own (store.js, store-worker.js; run B's is store.js given B's
// viewer and stage), drawn from its tiles, and answers its side of the comparison from its tiles
// (`store::read::compare`: the region profile from its call-path tiles, the whole run's moments, the wait
// states it keeps); what a store does not keep is said on screen and left out of both runs. Each store's
// decoded-tile cache is half the single store's budget while comparing (two stores: the one budget in all).
import { pageUrlParam, nameOfUrl } from './open-url.js';
import { initStore, storeUrlOf } from './store.js';
import { visibleText } from './text.js';
import { runSteps, yieldToBrowser } from './loading.js';
import { formats, flameView, matrixView, momentsView, momentsGlyphView, waitsView } from './compare-views.js';

const PROTOCOL = 1;
const CHUNK = 4 << 20;
const RECEIVE_PART = 4 << 20;
// A window asked for a "visible window" table: after the view rests this long.
const WINDOW_SETTLE_MS = 250;

const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};

/** `app`: the page's handles (app.js); `mod`: the page's wasm module (its Viewer class). */
export function createCompare(app, mod) {
  const { weft } = app;
  const $ = (id) => document.getElementById(id);
  const ui = { runs: $('runs'), stageB: $('stage-b'), bar: $('compare-bar'), panel: $('compare-panel') };
  const s = {
    on: false, pendingA: false, aLoaded: false, bLoaded: false,
    names: { a: null, b: null },
    worker: null, viewer: null, canvas: null, nextId: 1, pending: new Map(), loadId: null,
    sides: null, comparison: null, asked: 0,
    origins: { a: 0, b: 0 }, last: null, marked: null, windowTimer: null, lastWindow: null,
    // The panel's tab, the flame graph's answer for the comparison shown (asked when its tab opens), the
    // matrix's unit.
    tab: 'regions', flame: null, flameAsked: 0, matrixUnit: 'count',
    // Each run's kind ('trace' or 'store'), and run B's store client (store.js) when B is a store.
    kinds: { a: 'trace', b: 'trace' }, storeB: null,
  };
  // For tests and benchmarks.
  weft.compare = s;

  // --- B's worker -------------------------------------------------------------------------------------------
  function startWorker() {
    const entry = URL.createObjectURL(new Blob([`import ${JSON.stringify(new URL('./worker.js', import.meta.url).href)};`],
      { type: 'text/javascript' }));
    s.worker = new Worker(entry, { type: 'module' });
    s.worker.onmessage = (e) => onB(e.data);
    s.worker.onerror = (e) => { e.preventDefault(); failB(`run B's reader crashed: ${e.message || 'unknown error'}`); stopWorker(); };
  }
  function stopWorker() {
    if (s.worker) s.worker.terminate();
    s.worker = null;
    for (const q of s.pending.values()) q.reject(new Error("run B's reader was stopped"));
    s.pending.clear();
  }
  const postB = (msg) => { if (!s.worker) startWorker(); s.worker.postMessage({ v: PROTOCOL, ...msg }); };

  /** A question to B's worker ('ask', answered 'answer'). */
  function askB(what, args = {}) {
    const id = `c${s.nextId++}`;
    return new Promise((resolve, reject) => {
      s.pending.set(id, { resolve, reject });
      postB({ id, type: 'ask', what, ...args });
    });
  }

  function onB(msg) {
    if (!msg || msg.v !== PROTOCOL) return;
    if (msg.type === 'answer') {
      const q = s.pending.get(msg.id);
      if (!q) return;
      s.pending.delete(msg.id);
      if (msg.error) q.reject(new Error(msg.error)); else q.resolve(msg);
      return;
    }
    if (msg.id !== s.loadId) return;
    if (msg.type === 'progress') say(`reading B: ${Math.round(100 * msg.done / Math.max(1, msg.total))} %`);
    else if (msg.type === 'loaded') showB(msg);
    else if (msg.type === 'error') failB(msg.message);
  }

  // --- Stores ---------------------------------------------------------------------------------------------
  // The single store's decoded-tile cache (StoreSession's default, or the address's `store_cache_mb`); each
  // store compared gets half of it.
  const STORE_CACHE_BYTES = 256 << 20;
  function storeBudget() {
    const mb = Number(new URLSearchParams(location.search).get('store_cache_mb'));
    return Math.floor((mb > 0 ? mb * (1 << 20) : STORE_CACHE_BYTES) / 2);
  }
  /** Whether a run's address is a store: a folder (it ends in "/"). */
  const isStoreUrl = (u) => { try { return new URL(u, location.href).pathname.endsWith('/'); } catch { return false; } };
  const storeOf = (which) => (which === 'a' ? (s.kinds.a === 'store' ? weft.store : null) : s.storeB);

  /** Run B's store client: store.js's, given B's viewer and stage in the page's place (its header, progress
   *  and view tabs are the page's A's, so B's are detached elements nobody shows). */
  function storeClientB() {
    const fake = { loads: 0, hooks: { loaded: [], storeOpened: [onStoreB] } };
    Object.defineProperty(fake, 'viewer', { get: () => s.viewer });
    const detached = () => document.createElement('div');
    const uiB = { stage: ui.stageB, error: detached(), progress: detached(), fill: detached(), progressText: detached(),
      fileName: detached(), summary: detached() };
    const showError = (m) => { if (!s.bLoaded) failB(`run B: ${m}`); else app.status.showError(`run B: ${m}`); };
    initStore({ weft: fake, ui: uiB, renderViewTabs() {}, showError, setState() {}, summaryText: app.loading.summaryText });
    return fake.store;
  }
  function stopStoreB() {
    if (s.storeB) s.storeB.stop();
    s.storeB = null;
  }
  function onStoreB() {
    if (!s.on || s.kinds.b !== 'store') return;
    if (s.viewer.views().includes('timeline') && s.viewer.view() !== 'timeline') s.viewer.set_view('timeline');
    s.bLoaded = true;
    sized = '';
    resizeB();
    say('');
    afterBoth();
  }

  /** A question to run `which` ('a' or 'b'): its trace's reader worker, or its store's worker (the store's
   *  answers' JSON parsed where the reader's are: the pair and the flame graph). */
  async function askRun(which, what, args) {
    const store = storeOf(which);
    if (!store) return which === 'a' ? app.reader.ask(what, args) : askB(what, args);
    const r = await store.askCompare(what.replace(/^compare-/, ''), args);
    return what === 'compare-pair' || what === 'compare-flame' ? { result: JSON.parse(r.text) } : { text: r.text };
  }
  /** The two sides paired: by a trace's reader (B's, else A's), or by B's store worker when both are stores. */
  function pairSides(a, b, args) {
    const which = s.kinds.b === 'trace' ? 'b' : s.kinds.a === 'trace' ? 'a' : 'b';
    return askRun(which, 'compare-pair', { a, b, ...args });
  }

  // --- The second Viewer ------------------------------------------------------------------------------------
  async function ensureViewer() {
    if (s.viewer) return s.viewer;
    s.canvas = el('canvas', { id: 'gpu-b' });
    const labels = el('canvas', { id: 'labels-b' });
    s.tip = el('div', { id: 'tooltip-b', hidden: true });
    ui.stageB.prepend(s.canvas, labels, s.tip);
    s.viewer = await mod.Viewer.create(s.canvas, labels);
    // B's colours follow the page's theme as A's do (theme.js sets html[data-theme] and weft.theme).
    const theme = () => { if (weft.theme) { try { s.viewer.set_theme(weft.theme); } catch (e) { console.warn('set_theme:', e); } } };
    theme();
    new MutationObserver(theme).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    wirePointer(s.canvas);
    new ResizeObserver(resizeB).observe(ui.stageB);
    requestAnimationFrame(loop);
    return s.viewer;
  }
  let sized = '';
  function resizeB() {
    if (!s.viewer) return;
    const r = ui.stageB.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const size = `${r.width}x${r.height}@${dpr}`;
    if (size === sized || r.width === 0) return;
    sized = size;
    s.viewer.resize(r.width, r.height, dpr);
  }
  function loop() {
    if (s.viewer && s.on) {
      try { sync(); s.viewer.frame(); } catch (e) { console.error('run B frame failed:', e); }
    }
    requestAnimationFrame(loop);
  }

  // Wheel zooms or pans, a drag pans and scrolls: as on A's view (pointer.js), and the sync moves A with it.
  function wirePointer(canvas) {
    const local = (e) => { const r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    let drag = null;
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [x, y] = local(e);
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const dx = e.deltaX * unit, dy = e.deltaY * unit;
      if (e.shiftKey) s.viewer.scroll(dy || dx);
      else if (Math.abs(dx) > Math.abs(dy)) s.viewer.pan(dx);
      else s.viewer.zoom(x, Math.exp(-dy * 0.002), y);
    }, { passive: false });
    canvas.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) { const [x, y] = local(e); showTipB(s.viewer.hover(x, y), x, y); return; }
      hideTipB();
      s.viewer.pan(drag.x - e.clientX);
      s.viewer.scroll(drag.y - e.clientY);
      drag = { x: e.clientX, y: e.clientY };
    });
    const end = () => { drag = null; };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('pointerleave', () => { hideTipB(); try { s.viewer.clear_hover(); } catch { /* no view */ } });
  }

  // B's hover: the Viewer's text for what is under the pointer (as pointer.js shows A's), lettered B.
  function hideTipB() { if (s.tip) s.tip.hidden = true; }
  function showTipB(info, x, y) {
    if (!info) { hideTipB(); return; }
    const t = s.tip;
    t.replaceChildren(el('div', { className: 'name' }, el('span', { className: 'run-badge run-b' }, el('b', { textContent: 'B' })), ` ${visibleText(info.title)}`),
      ...info.lines.map((l) => el('div', { textContent: visibleText(l) })));
    t.hidden = false;
    const r = ui.stageB.getBoundingClientRect();
    const tw = t.offsetWidth, th = t.offsetHeight;
    t.style.left = `${Math.max(4, x + 14 + tw > r.width ? x - tw - 14 : x + 14)}px`;
    t.style.top = `${y + 18 + th > r.height ? Math.max(4, y - th - 10) : y + 18}px`;
  }

  // --- Coupled zoom and pan ---------------------------------------------------------------------------------
  const range = (v) => {
    const b = v && v.view_brief();
    return b && b.view === 'timeline' ? [b.t0_ns, b.t1_ns] : null;
  };
  const same = (x, y) => x && y && Math.abs(x[0] - y[0]) < 1e-6 && Math.abs(x[1] - y[1]) < 1e-6;
  /** B's time of A's time `t` (and back): the alignment's origins. */
  const toB = (t) => t - s.origins.a + s.origins.b;
  const toA = (t) => t - s.origins.b + s.origins.a;
  function sync() {
    if (!s.aLoaded || !s.bLoaded) return;
    const a = range(weft.viewer), b = range(s.viewer);
    if (!a || !b) { s.last = null; return; }
    if (!s.last || !same(a, s.last.a)) s.viewer.set_time_range(toB(a[0]), toB(a[1]));
    else if (!same(b, s.last.b)) weft.viewer.set_time_range(toA(b[0]), toA(b[1]));
    else return;
    s.last = { a: range(weft.viewer), b: range(s.viewer) };
    if (scopeWindow()) askWindowSoon();
  }

  // --- Opening ----------------------------------------------------------------------------------------------
  function begin(nameA) {
    s.on = true;
    s.bLoaded = false;
    s.sides = null;
    s.comparison = null;
    if (s.flame) s.flame.view.dispose();
    s.flame = null;
    s.last = null;
    s.marked = null;
    s.origins = { a: 0, b: 0 };
    if (nameA) s.names.a = nameA;
    // A new pair starts aligned at the start (a region of the last pair may not be in this one), whole.
    controls.align.value = 'start';
    controls.scope.value = 'whole';
    controls.region.hidden = true;
    controls.instance.hidden = true;
    document.body.classList.add('comparing');
    ui.runs.classList.add('comparing');
    ui.stageB.hidden = false;
    ui.bar.hidden = false;
    ui.panel.hidden = false;
    renderBar();
    ui.panel.replaceChildren(el('p', { className: 'muted', textContent: 'comparing…' }));
  }

  /** Open run B from `{file}` or `{url}` (a store's when it ends in "/"), beside the run A shown or being
   *  opened; `link`: the permalink's compare settings (alignment, rank mapping, scope, tab) to start from. */
  async function openB(src, link = null) {
    const store = !src.file && isStoreUrl(src.url);
    const name = src.file ? src.file.name : store ? storeName(src.url) : nameOfUrl(src.url);
    s.names.b = name;
    s.urlB = src.url || null;
    s.kinds.b = store ? 'store' : 'trace';
    begin(null);
    if (link) fromLink(link);
    try { await ensureViewer(); } catch (e) { failB(`cannot draw run B: ${e}`); return; }
    resizeB();
    // A's store (if A is one) keeps half the budget while compared, whatever B is.
    if (s.kinds.a === 'store' && weft.store && weft.store.open) weft.store.setBudget(storeBudget());
    if (store) {
      // B's store in a store worker of its own; the reader worker is not needed.
      stopWorker();
      stopStoreB();
      s.storeB = storeClientB();
      s.storeB.cacheBytes = storeBudget();
      say(`opening store B: ${visibleText(name)}`);
      s.storeB.openUrl(new URL(src.url, location.href).href);
      return;
    }
    stopStoreB();
    s.loadId = `b${s.nextId++}`;
    say(`reading B: ${visibleText(name)}`);
    if (src.file) postB({ id: s.loadId, type: 'open', file: src.file, chunk: CHUNK });
    else postB({ id: s.loadId, type: 'fetch', url: src.url, limits: { ...weft.limits } });
  }

  // B's buffers copied into its Viewer a part at a time and its views built a step at a time, as loading.js
  // does for A: no main-thread task reads a whole run.
  async function showB(msg) {
    if (msg.kind !== 'trace') { failB(`${msg.name}: run B is not a trace with a timeline (${msg.kind}); only traces compare`); return; }
    const id = s.loadId;
    const current = () => s.on && s.loadId === id;
    const v = s.viewer;
    try {
      for (const buffer of [msg.model, msg.moments].filter(Boolean)) {
        v.receive(buffer.byteLength);
        for (let at = 0; at < buffer.byteLength; at += RECEIVE_PART) {
          await yieldToBrowser();
          if (!current()) return;
          v.receive_part(new Uint8Array(buffer, at, Math.min(RECEIVE_PART, buffer.byteLength - at)));
        }
      }
      v.begin_load_received('trace');
      if (!await runSteps(v, current)) return;
      if (v.views().includes('timeline') && v.view() !== 'timeline') v.set_view('timeline');
    } catch (e) { failB(`${msg.name}: ${e}`); return; }
    s.bLoaded = true;
    sized = '';
    resizeB();
    say('');
    afterBoth();
  }

  /** A store's name from its address (its folder's). */
  function storeName(u) {
    const url = new URL(u, location.href);
    return url.pathname.split('/').filter(Boolean).pop() || url.host;
  }

  /** A run A opened (`kind`: 'trace' from the reader, 'store' from store.js): part of the comparison when it
   *  was opened as one, else the comparison ends. */
  function onALoaded(msg, kind = 'trace') {
    s.kinds.a = kind;
    if (kind === 'store' && s.pendingA) weft.store.setBudget(storeBudget());
    if (s.pendingA) {
      s.pendingA = false;
      s.aLoaded = true;
      s.names.a = msg.name;
      renderBar();
      afterBoth();
    } else if (s.on) {
      close();
    } else {
      s.aLoaded = true;
      s.names.a = msg.name;
    }
  }

  function afterBoth() {
    if (!s.aLoaded || !s.bLoaded) return;
    // A store cannot be aligned at a region's instance (said in the panel).
    const store = s.kinds.a === 'store' || s.kinds.b === 'store';
    const byRegion = controls.align.querySelector('option[value=region]');
    byRegion.disabled = store;
    byRegion.title = store ? "not on a store: its tiles keep no region instance starts" : '';
    if (store && controls.align.value === 'region') { controls.align.value = 'start'; controls.region.hidden = true; controls.instance.hidden = true; }
    if (weft.viewer.views().includes('timeline') && weft.viewer.view() !== 'timeline') app.views.switchTo('timeline');
    s.last = null;
    compute();
  }

  /** Open `a` as run A and `b` as run B (each a File). */
  function openPair(a, b) {
    s.pendingA = true;
    s.aLoaded = false;
    s.names.a = a.name;
    app.reader.openFile(a);
    openB({ file: b });
  }

  /** Two files given at once (dropped, or chosen together): two runs to compare, or one input as before. */
  async function openTwo(files, asSet) {
    let two = false;
    try { two = (await askB('two-runs', { a: files[0], b: files[1] })).result === true; } catch (e) { console.warn('two-runs:', e); }
    if (two) openPair(files[0], files[1]);
    else asSet();
  }

  function close() {
    s.on = false;
    s.bLoaded = false;
    s.pendingA = false;
    stopStoreB();
    // A's store has the single store's budget again.
    if (s.kinds.a === 'store' && weft.store && weft.store.cacheBytes) { weft.store.setBudget(2 * storeBudget()); weft.store.cacheBytes = 0; }
    document.body.classList.remove('comparing');
    ui.runs.classList.remove('comparing');
    ui.stageB.hidden = true;
    ui.bar.hidden = true;
    ui.panel.hidden = true;
    stopWorker();
    aligned(false);
    if (weft.viewer) { try { weft.viewer.timeline_mark_region(-1); } catch { /* not a timeline */ } }
  }

  function failB(message) {
    app.status.showError(message);
    say('');
    close();
  }

  // --- The bar: which is A and B, the alignment and the rank mapping -----------------------------------------
  const controls = {
    align: el('select', { id: 'compare-align', title: 'Where each run\'s time starts' },
      el('option', { value: 'start', textContent: 'at each run\'s start' }),
      el('option', { value: 'region', textContent: 'at a region\'s instance…' })),
    region: el('input', { id: 'compare-region', type: 'text', placeholder: 'region name', size: 14, hidden: true }),
    instance: el('input', { id: 'compare-instance', type: 'number', min: 1, value: 1, title: 'instance (from 1)', hidden: true }),
    ranks: el('select', { id: 'compare-ranks', title: 'How the locations of A are paired with those of B' },
      ...['index', 'name', 'proportional'].map((v) => el('option', { value: v, textContent: `ranks by ${v}` }))),
    scope: el('select', { id: 'compare-scope', title: 'The table of the whole run, or of the window shown' },
      el('option', { value: 'whole', textContent: 'whole run' }), el('option', { value: 'window', textContent: 'visible window' })),
    status: el('span', { id: 'compare-status', className: 'muted' }),
    close: el('button', { type: 'button', textContent: '×', title: 'End the comparison (keep run A)' }),
  };
  controls.align.addEventListener('change', () => {
    const region = controls.align.value === 'region';
    controls.region.hidden = !region;
    controls.instance.hidden = !region;
    if (!region || controls.region.value.trim()) compute();
  });
  controls.region.addEventListener('change', () => compute());
  controls.instance.addEventListener('change', () => compute());
  controls.ranks.addEventListener('change', () => compute());
  controls.scope.addEventListener('change', () => compute());
  controls.close.addEventListener('click', () => close());

  const badge = (which, name) => el('span', { className: `run-badge run-${which}` },
    el('b', { textContent: which.toUpperCase() }), ` ${visibleText(name || '…')}`);
  function renderBar() {
    ui.bar.replaceChildren(badge('a', s.names.a), el('span', { textContent: ' vs ' }), badge('b', s.names.b),
      el('span', { className: 'spacer' }), el('label', {}, 'align ', controls.align), controls.region, controls.instance,
      controls.ranks, controls.scope, controls.status, controls.close);
    // The letter on each timeline too.
    for (const [stage, which] of [[app.ui.stage, 'a'], [ui.stageB, 'b']]) {
      let tag = stage.querySelector(':scope > .run-tag');
      if (!tag) { tag = el('div', { className: `run-tag run-${which}` }); stage.append(tag); }
      tag.replaceChildren(badge(which, s.names[which]));
    }
  }
  function say(text) { controls.status.textContent = text; }

  function alignText() {
    if (controls.align.value !== 'region') return 'start';
    const name = controls.region.value.trim();
    const n = Math.max(1, Math.floor(Number(controls.instance.value) || 1));
    return `region:${name}:${n}`;
  }
  const scopeWindow = () => controls.scope.value === 'window';

  // --- The comparison: each worker's side, paired in B's -----------------------------------------------------
  function askWindowSoon() {
    clearTimeout(s.windowTimer);
    s.windowTimer = setTimeout(() => {
      const a = range(weft.viewer);
      if (a && !same(a, s.lastWindow)) compute();
    }, WINDOW_SETTLE_MS);
  }

  async function compute() {
    if (!s.on || !s.aLoaded || !s.bLoaded) return;
    const asked = ++s.asked;
    const align = alignText();
    const ranks = controls.ranks.value;
    // The window from each run's origin: A's view, less A's origin (the same window of B by construction).
    let t0 = NaN, t1 = NaN;
    if (scopeWindow()) {
      const a = range(weft.viewer);
      s.lastWindow = a;
      if (a) { t0 = Math.max(0, a[0] - s.origins.a); t1 = Math.max(0, a[1] - s.origins.a); }
    }
    const args = { align, ranks, t0, t1 };
    s.args = args;
    say('comparing…');
    try {
      const [sa, sb] = await Promise.all([askRun('a', 'compare-side', { which: 'A', ...args }), askRun('b', 'compare-side', { which: 'B', ...args })]);
      const c = await pairSides(sa.text, sb.text, args);
      if (asked !== s.asked) return;
      s.sides = { a: JSON.parse(sa.text), b: JSON.parse(sb.text) };
      s.sideTexts = { a: sa.text, b: sb.text };
      s.comparison = c.result;
      const w = s.comparison.windows;
      const origins = w ? { a: w.a.origin_ns, b: w.b.origin_ns } : { a: 0, b: 0 };
      if (origins.a !== s.origins.a || origins.b !== s.origins.b) { s.origins = origins; s.last = null; }
      aligned(s.comparison.options.align.by === 'region');
      say('');
      renderPanel();
      if (s.marked) mark(s.marked);
    } catch (e) {
      if (asked !== s.asked) return;
      say('');
      ui.panel.replaceChildren(el('p', { className: 'error-text', textContent: `The comparison failed: ${e.message || e}` }));
    }
  }

  /** Both timelines' axes in aligned time (0 at each run's origin, each gutter saying where that lies in its
   *  run), or in each run's own time again. */
  function aligned(on) {
    for (const [v, o] of [[weft.viewer, s.origins.a], [s.viewer, s.origins.b]]) {
      try { if (v) v.set_time_origin(on ? o : NaN); } catch (e) { console.warn('set_time_origin:', e); }
    }
  }

  // --- The panel: the summary and the region table ----------------------------------------------------------
  const fmt = (ns) => (ns === null || ns === undefined ? '–' : weft.viewer.format_duration(ns));
  const signed = (ns) => (ns > 0 ? `+${fmt(ns)}` : ns < 0 ? `−${fmt(-ns)}` : fmt(0));
  const TABS = [['regions', 'Regions'], ['flame', 'Flame graph'], ['matrix', 'Messages'], ['moments', 'Moments'], ['waits', 'Waits and path']];
  const COLUMNS = ['region', 'A incl', 'B incl', 'Δ incl', 'ratio', 'A excl', 'B excl', 'Δ excl', 'A count', 'B count', 'A mean', 'B mean'];

  function renderPanel() {
    const c = s.comparison;
    const o = c.options;
    const aligned = o.align.by === 'region' ? `aligned at instance ${o.align.instance} of ${o.align.name}` : "aligned at each run's start";
    const scope = o.window ? `the visible window (${fmt(o.window.start_ns)} to ${fmt(o.window.end_ns)} from each origin)` : 'the whole run';
    const head = el('p', { className: 'compare-said' },
      el('b', { textContent: aligned }), ` · ${rankText(o.ranks)} · table of ${scope}`);
    const summary = el('p', { id: 'compare-summary', textContent: visibleText(c.summary) });
    const lacking = notComparedText(c);
    const table = el('table', { id: 'compare-table' });
    table.append(el('thead', {}, el('tr', {}, ...COLUMNS.map((h) => el('th', { textContent: h, className: h.startsWith('A ') ? 'run-a' : h.startsWith('B ') ? 'run-b' : '' })))));
    const body = el('tbody');
    for (const r of c.regions) {
      const mean = (ns, n) => (n > 0 ? fmt(ns / n) : '–');
      const cells = [visibleText(r.name), fmt(r.a_inclusive_ns), fmt(r.b_inclusive_ns), signed(r.delta_ns),
        r.ratio === null ? '–' : `${r.ratio.toFixed(3)}×`, fmt(r.a_exclusive_ns), fmt(r.b_exclusive_ns), signed(r.delta_exclusive_ns),
        String(r.a_count), String(r.b_count), mean(r.a_inclusive_ns, r.a_count), mean(r.b_inclusive_ns, r.b_count)];
      const tr = el('tr', { title: 'Mark this region in both timelines' }, ...cells.map((t) => el('td', { textContent: t })));
      tr.dataset.region = r.name;
      if (r.delta_ns > 0) tr.classList.add('slower');
      else if (r.delta_ns < 0) tr.classList.add('faster');
      if (s.marked === r.name) tr.classList.add('marked');
      tr.addEventListener('click', () => { mark(s.marked === r.name ? null : r.name); renderMarks(); });
      body.append(tr);
    }
    table.append(body);
    s.regionTable = table;
    s.tabBody = el('div', { className: 'scroll', id: 'compare-tab-body' });
    const tabs = el('div', { className: 'compare-tabs', role: 'tablist' }, ...TABS.map(([key, text]) => {
      const b = el('button', { type: 'button', textContent: text, role: 'tab' });
      b.dataset.tab = key;
      b.setAttribute('aria-selected', String(key === s.tab));
      b.addEventListener('click', () => showTab(key));
      return b;
    }));
    ui.panel.replaceChildren(head, ...(lacking ? [lacking] : []), summary, tabs, s.tabBody);
    showTab(s.tab);
  }

  /** How the locations pair, with each run's count (ITAC's rule said for the proportional mapping). */
  function rankText(ranks) {
    const n = (side) => (side ? side.location_order.length : 0);
    const [na, nb] = [n(s.sides && s.sides.a), n(s.sides && s.sides.b)];
    const rule = ranks === 'proportional' ? "A's i-th with B's ⌊i·|B|/|A|⌋-th" : ranks === 'name' ? 'by process and location name' : "A's i-th with B's i-th";
    return `locations paired by ${ranks} (${rule}; A has ${na}, B ${nb})`;
  }

  /** The parts one run does not keep, left out of both (a store's: store::read::compare), or null. */
  const PART_NAMES = { locations: 'locations and moments', location_time: "locations' time", comm_matrix: 'message matrix' };
  function notComparedText(c) {
    // One line a part and reason, with the runs that lack it.
    const by = new Map();
    for (const n of c.not_compared || []) {
      const k = `${PART_NAMES[n.part] || n.part}\u0000${n.why}`;
      by.set(k, [...(by.get(k) || []), n.run]);
    }
    const lines = [...by].map(([k, runs]) => { const [part, why] = k.split('\u0000'); return `${part} (${runs.join(' and ')}: ${why})`; });
    const store = s.kinds.a === 'store' || s.kinds.b === 'store';
    if (store) lines.push("alignment at a region's instance (a store's tiles keep no instance starts: aligned at the start)");
    if (!lines.length) return null;
    return el('p', { id: 'compare-not-compared', className: 'muted', textContent: `Not compared on stores: ${[...new Set(lines)].join('; ')}.` });
  }
  const lacks = (c, part) => (c.not_compared || []).find((n) => n.part === part);

  /** Show the panel's tab `key`: the region table, or a view of compare-views.js over the comparison. */
  function showTab(key) {
    s.tab = key;
    for (const b of ui.panel.querySelectorAll('.compare-tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === key));
    const c = s.comparison;
    const f = formats(weft.viewer);
    if (key === 'regions') s.tabBody.replaceChildren(s.regionTable);
    else if (key === 'matrix') {
      const unit = el('select', { id: 'compare-matrix-unit' }, el('option', { value: 'count', textContent: 'messages' }), el('option', { value: 'bytes', textContent: 'bytes' }));
      unit.value = s.matrixUnit;
      unit.addEventListener('change', () => { s.matrixUnit = unit.value; showTab('matrix'); });
      const none = lacks(c, 'comm_matrix');
      if (none) s.tabBody.replaceChildren(el('p', { id: 'compare-matrix-none', textContent: `Messages not compared: run ${none.run}: ${none.why}.` }));
      else s.tabBody.replaceChildren(el('label', {}, 'by ', unit), matrixView(c, s.matrixUnit));
    } else if (key === 'moments') {
      const none = lacks(c, 'locations');
      if (none) s.tabBody.replaceChildren(el('p', { id: 'compare-moments-none', textContent: `Moments not compared: run ${none.run}: ${none.why}.` }));
      else showMoments();
    }
    else if (key === 'waits') s.tabBody.replaceChildren(waitsView(c, f));
    else if (key === 'flame') showFlame();
  }

  /** The moments in the moment view's glyphs (drawn in B's worker from both sides, once per comparison),
   *  above the table of their figures. */
  async function showMoments() {
    const c = s.comparison;
    const f = formats(weft.viewer);
    const asked = s.asked;
    const table = momentsView(c, f);
    if (s.momentsPic && s.momentsPic.asked === asked) { s.tabBody.replaceChildren(s.momentsPic.view.element, table); return; }
    s.tabBody.replaceChildren(el('p', { className: 'muted', textContent: 'drawing the moments…' }), table);
    try {
      const width = Math.max(500, Math.floor(ui.panel.getBoundingClientRect().width - 40));
      const r = await askB('compare-moments', { a: s.sideTexts.a, b: s.sideTexts.b, width, ...s.args });
      if (asked !== s.asked) return;
      if (s.momentsPic) s.momentsPic.view.dispose();
      s.momentsPic = { asked, answer: r.result, view: momentsGlyphView(r.result, c, f) };
      if (s.tab === 'moments') s.tabBody.replaceChildren(s.momentsPic.view.element, table);
    } catch (e) {
      if (asked !== s.asked || s.tab !== 'moments') return;
      s.tabBody.replaceChildren(el('p', { className: 'error-text', textContent: `The moments could not be drawn: ${e.message || e}` }), table);
    }
  }

  /** The differential flame graph: A's call tree from A's worker, paired and drawn in B's (once per comparison). */
  async function showFlame() {
    const f = formats(weft.viewer);
    const asked = s.asked;
    if (s.flame && s.flame.asked === asked) { s.tabBody.replaceChildren(s.flame.view.element); return; }
    s.tabBody.replaceChildren(el('p', { className: 'muted', textContent: 'pairing the call trees…' }));
    const args = s.args;
    try {
      const ta = await askRun('a', 'compare-calltree', { which: 'A', ...args });
      const width = Math.max(400, Math.floor(ui.panel.getBoundingClientRect().width - 40));
      const r = await askRun('b', 'compare-flame', { a: ta.text, width, ...args });
      if (asked !== s.asked) return;
      if (s.flame) s.flame.view.dispose();
      s.flame = { asked, answer: r.result, view: flameView(r.result, f) };
      if (s.tab === 'flame') s.tabBody.replaceChildren(s.flame.view.element);
    } catch (e) {
      if (asked !== s.asked || s.tab !== 'flame') return;
      s.tabBody.replaceChildren(el('p', { className: 'error-text', textContent: `The call trees could not be compared: ${e.message || e}` }));
    }
  }

  function renderMarks() {
    for (const tr of ui.panel.querySelectorAll('tbody tr')) tr.classList.toggle('marked', tr.dataset.region === s.marked);
  }

  /** Mark the regions named `name` in both timelines (null: clear): each run's own region of that name. */
  function mark(name) {
    s.marked = name;
    const idOf = (side) => {
      const r = name && side && side.regions.find((x) => x.name === name);
      return r ? r.region : -1;
    };
    try { weft.viewer.timeline_mark_region(idOf(s.sides && s.sides.a)); } catch (e) { console.warn(e); }
    try { s.viewer.timeline_mark_region(idOf(s.sides && s.sides.b)); } catch (e) { console.warn(e); }
  }

  // --- The permalink ----------------------------------------------------------------------------------------
  /** The compare settings as link parameters (B must have come from a URL to be reopened by a link). */
  function link() {
    if (!s.on || !s.urlB) return null;
    return { compare: s.urlB, calign: alignText(), cranks: controls.ranks.value, cscope: controls.scope.value, ctab: s.tab };
  }
  weft.compareLink = link;

  /** The link's compare settings on the controls (unknown values ignored). */
  function fromLink(p) {
    const align = p.get('calign');
    if (align && align.startsWith('region:')) {
      const rest = align.slice('region:'.length);
      const m = /^(.*):(\d+)$/.exec(rest);
      controls.align.value = 'region';
      controls.region.value = m ? m[1] : rest;
      controls.instance.value = m ? m[2] : '1';
      controls.region.hidden = false;
      controls.instance.hidden = false;
    }
    if (['index', 'name', 'proportional'].includes(p.get('cranks'))) controls.ranks.value = p.get('cranks');
    if (['whole', 'window'].includes(p.get('cscope'))) controls.scope.value = p.get('cscope');
    if (TABS.some(([k]) => k === p.get('ctab'))) s.tab = p.get('ctab');
  }

  // --- Wiring -----------------------------------------------------------------------------------------------
  weft.hooks.loaded.push((msg) => onALoaded(msg, 'trace'));
  (weft.hooks.storeOpened ||= []).push((msg) => onALoaded(msg, 'store'));

  // "Compare with…": a file picker beside the file's name, offered once a trace is open.
  const input = el('input', { id: 'compare-input', type: 'file', hidden: true });
  const button = el('button', { id: 'compare-with', type: 'button', textContent: 'Compare with…', hidden: true,
    title: 'Open a second run below this one: coupled timelines and what changed (B minus A)' });
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const f = input.files && input.files[0];
    input.value = '';
    if (f) openB({ file: f });
  });
  // "Compare with a URL…": a trace's address, or a store's (a folder: ending in "/").
  const byUrl = el('button', { id: 'compare-url', type: 'button', textContent: 'Compare with a URL…', hidden: true,
    title: "Open a second run below this one from its address: a trace, or a store folder ending in /" });
  byUrl.addEventListener('click', () => {
    const u = window.prompt("Run B's address: a trace file, or a store folder (ending in /)");
    if (!u || !u.trim()) return;
    let url;
    try { url = new URL(u.trim(), location.href).href; } catch { app.status.showError(`${u}: not an address`); return; }
    // The page's policy reaches only the origins its address named (csp.js): another takes a fresh page.
    if (window.weftConnectAllowed && !window.weftConnectAllowed(url)) {
      app.status.showError(`${url}: another origin than this page's; open it as ?${s.kinds.a === 'store' ? 'store' : 'trace'}=…&compare=${url} instead`);
      return;
    }
    openB({ url });
  });
  $('file-name').after(button, byUrl, input);
  weft.hooks.loaded.push((msg) => { button.hidden = msg.kind !== 'trace'; byUrl.hidden = button.hidden; });
  weft.hooks.storeOpened.push(() => { button.hidden = false; byUrl.hidden = false; });

  // `?trace=A&compare=B`: B opens beside the A the page opens from its address, with the permalink's
  // compare settings (`calign`, `cranks`, `cscope`, `ctab`; permalink.js writes them from `link()`).
  const url = pageUrlParam(location, 'compare');
  if (url && (pageUrlParam(location, 'trace') || storeUrlOf(location))) {
    if (storeUrlOf(location)) s.kinds.a = 'store';
    s.pendingA = true;
    const params = new URLSearchParams(location.search);
    for (const [k, v] of new URLSearchParams(location.hash.slice(1))) if (!params.has(k)) params.set(k, v);
    openB({ url }, params);
  }

  return { openB, openPair, openTwo, close, state: s };
}
