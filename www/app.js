// The page: picks the wasm build (WebGPU, or the WebGL2 fallback only when no WebGPU adapter exists),
// wires input to the Viewer, runs files through the worker, and fills the DOM panels. No trace logic here.
// Trace-derived text is only ever assigned with textContent. Hosting features (URL opening, permalinks,
// themes, offline, shortcuts, recent files) live in hosting.js and its modules, hooked in at a few places.
import { initHosting } from './hosting.js';
import { nameOfUrl } from './open-url.js';

import { GrainPanel } from './grain-panel.js';
import { AggregatePanel } from './aggregate-panel.js';
import { LegendPanel } from './legend.js';
import { GraphmlDownload } from './graphml.js';
import { ProfilePanel } from './profile-panel.js';
import { CountersPanel } from './counters-panel.js';
import { RowsPanel } from './rows-panel.js';
import { CommPanel } from './comm-matrix.js';
import { particlesView } from './particles.js';
import { showWarnings } from './warnings-panel.js';
import { visibleText } from './text.js';
import { initStore, looksLikeStore, storeUrlOf } from './store.js';
import { initSidePanels } from './side-panels.js';

const $ = (id) => document.getElementById(id);
const PROTOCOL = 1;
const CHUNK = 4 << 20;

const ui = {
  stage: $('stage'), backend: $('backend'), fileName: $('file-name'), summary: $('summary'),
  progress: $('progress'), fill: $('progress-fill'), progressText: $('progress-text'),
  error: $('error'), errorText: $('error-text'), tooltip: $('tooltip'), dropHint: $('drop-hint'),
};

const weft = { viewer: null, backend: null, loads: 0, errors: [], lastSummary: null, state: 'starting', source: null, hooks: { loaded: [] } };
window.weft = weft;

function setState(s) {
  weft.state = s;
  document.body.dataset.state = s;
}

function showError(message) {
  weft.errors.push(message);
  ui.errorText.textContent = visibleText(message);
  ui.error.hidden = false;
}
$('error-close').addEventListener('click', () => { ui.error.hidden = true; });

async function hasWebGpuAdapter() {
  if (!('gpu' in navigator)) return false;
  try { return !!(await navigator.gpu.requestAdapter()); } catch { return false; }
}

function freshCanvas() {
  const old = $('gpu');
  const c = document.createElement('canvas');
  c.id = 'gpu';
  old.replaceWith(c);
  return c;
}

async function createViewer() {
  const forced = new URLSearchParams(location.search).get('backend');
  const tryBuild = async (dir) => {
    const mod = await import(`./${dir}/weft.js`);
    await mod.default();
    const canvas = freshCanvas();
    const viewer = await mod.Viewer.create(canvas, $('labels'));
    return { mod, viewer, canvas };
  };
  if (forced !== 'webgl' && await hasWebGpuAdapter()) {
    try { return await tryBuild('pkg'); } catch (e) { console.warn('WebGPU failed, falling back to WebGL2:', e); }
  }
  return await tryBuild('pkg-webgl');
}

// ---- worker ----
let worker = null;
let workerEntry = null;
let pending = null;

function startWorker() {
  // From a blob: URL, so the worker inherits the page's policies, connect-src narrowed by csp.js included.
  workerEntry ||= URL.createObjectURL(new Blob([`import ${JSON.stringify(new URL('./worker.js', import.meta.url).href)};`],
    { type: 'text/javascript' }));
  worker = new Worker(workerEntry, { type: 'module' });
  worker.onmessage = (e) => onWorkerMessage(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    failLoad(`The reader crashed: ${e.message || 'unknown error'}. It has been restarted; you can open another file.`);
    restartWorker();
  };
}

function restartWorker() {
  if (worker) worker.terminate();
  startWorker();
}

function onWorkerMessage(msg) {
  if (!msg || msg.v !== PROTOCOL) { failLoad('The reader answered in an unknown protocol version.'); return; }
  if (!pending || msg.id !== pending.id) return;
  switch (msg.type) {
    case 'progress': {
      // A download of unknown size (no Content-Length) shows the bytes so far and the rate, without a total.
      const pct = msg.total > 0 ? Math.min(100, (100 * msg.done) / msg.total) : 0;
      ui.fill.style.width = `${pct.toFixed(1)}%`;
      const total = msg.total > 0 ? ` / ${formatBytes(msg.total)}` : '';
      const rate = msg.rate > 0 ? ` · ${formatBytes(msg.rate)}/s` : '';
      ui.progressText.textContent = `${msg.phase} ${formatBytes(msg.done)}${total}${rate}`;
      break;
    }
    case 'loaded':
      showLoaded(msg);
      break;
    case 'relaid': {
      // The worker's answer to an option it applies: a new layout, or the moments of another busy definition.
      const moments = msg.kind === 'moments';
      try {
        if (moments) weft.viewer.receive_moments(new Uint8Array(msg.model));
        else weft.viewer.relayout_execgraph(new Uint8Array(msg.model));
      } catch (e) { failLoad(String(e)); return; }
      if (!moments) {
        weft.lastSummary = JSON.parse(msg.summary);
        ui.summary.textContent = summaryText('execgraph', weft.lastSummary);
      }
      pending = null;
      weft.relayouts = (weft.relayouts || 0) + 1;
      setState('ready');
      if (moments) renderViewOptions(weft.viewer.view());
      break;
    }
    case 'compared':
      try { weft.viewer.compare_with(msg.name, new Uint8Array(msg.model)); } catch (e) { failLoad(`${msg.name}: ${e}`); return; }
      pending = null;
      setState('ready');
      weft.aggregatePanel.render();
      break;
    case 'error':
      failLoad(msg.message);
      if (msg.fatal) restartWorker();
      break;
  }
}

// A tick for the browser between load steps, so no main-thread task decodes and builds a whole input.
const yieldToBrowser = () => (globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise((r) => setTimeout(r, 0)));
let loadGeneration = 0;
const RECEIVE_PART = 4 << 20;

// Show what the worker loaded: the viewer decodes it and builds its views in steps (Viewer::load_step),
// yielding between them; `weft.loadSteps` keeps each step's main-thread time of the last load.
async function showLoaded(msg) {
  const generation = ++loadGeneration;
  const mine = pending;
  const steps = [];
  try {
    if (msg.kind === 'execgraph') weft.viewer.load_execgraph(new Uint8Array(msg.model));
    else {
      // The worker's buffers, copied into the viewer a part at a time.
      const buffers = [msg.model, msg.kind === 'grains' ? msg.aggregation : msg.moments].filter(Boolean);
      for (const buffer of buffers) {
        weft.viewer.receive(buffer.byteLength);
        for (let at = 0; at < buffer.byteLength; at += RECEIVE_PART) {
          await yieldToBrowser();
          if (generation !== loadGeneration) return;
          const t = performance.now();
          weft.viewer.receive_part(new Uint8Array(buffer, at, Math.min(RECEIVE_PART, buffer.byteLength - at)));
          steps.push({ step: 'receive', ms: performance.now() - t });
        }
      }
      weft.viewer.begin_load_received(msg.kind === 'grains' ? 'grains' : 'trace');
      for (;;) {
        await yieldToBrowser();
        if (generation !== loadGeneration) return;
        const step = weft.viewer.load_step_name();
        const t = performance.now();
        const more = weft.viewer.load_step();
        steps.push({ step, ms: performance.now() - t });
        if (!more) break;
      }
    }
  } catch (e) {
    if (generation === loadGeneration) failLoad(`${msg.name}: ${e}`);
    return;
  }
  // The tabs, legend and options below read the new views: a task of their own, not one with the last step
  // (a 131,072-grain profile's last step, its aggregated view, takes 30 ms; with them the task took 62).
  await yieldToBrowser();
  if (generation !== loadGeneration) return;
  weft.loadSteps = steps;
  const s = JSON.parse(msg.summary);
  // The file's other views (an OTF2 trace with threads or tasks) stay offered while switching among them.
  weft.fileViews = msg.views || (mine && mine.fileView ? weft.fileViews : null);
  weft.lastSummary = s;
  weft.lastKind = msg.kind;
  hideTooltip();
  ui.fileName.textContent = visibleText(msg.name);
  ui.summary.textContent = summaryText(msg.kind, s);
  showWarnings(s);
  ui.error.hidden = true;
  weft.source = (mine && mine.source) || null;
  if (pending === mine) pending = null;
  renderViewTabs();
  for (const hook of weft.hooks.loaded) hook(msg);
  ui.progress.hidden = true;
  weft.loads += 1;
  setState('ready');
  // The header and tabs just changed: size the view now, so the first frame of what was loaded is drawn
  // once at its final size rather than again when the ResizeObserver reports the change.
  resize();
}

function summaryText(kind, s) {
  if (kind === 'grains') {
    const flagged = Object.values(s.problems).reduce((a, b) => Math.max(a, b), 0);
    return `${s.grains.toLocaleString()} grains · ${s.nodes.toLocaleString()} nodes · critical path ${weft.viewer.format_number(s.critical_path_length, s.parallelism.unit)}` +
      (flagged ? ` · up to ${flagged.toLocaleString()} problem grains per metric` : '');
  }
  if (kind === 'execgraph') {
    return `${s.threads.toLocaleString()} threads · ${s.nodes.toLocaleString()} nodes · ${s.crossings.toLocaleString()} crossings` +
      (s.parents_not_bipartite ? ` (${s.parents_not_bipartite} parents need max-cut)` : '');
  }
  return `${s.processes} processes · ${s.locations} locations · ${s.intervals.toLocaleString()} intervals` +
    (s.messages + s.flows ? ` · ${(s.messages + s.flows).toLocaleString()} messages/flows` : '');
}

function failLoad(message) {
  pending = null;
  ui.progress.hidden = true;
  showError(message);
  setState(weft.loads > 0 ? 'ready' : 'error');
}

let nextId = 1;
// `extra` (tests only): `fault`, a failure to induce inside the session reading the file.
function openFile(file, extra = {}) {
  if (!file) return;
  if (pending) cancelLoad(false);
  pending = { id: nextId++, name: file.name };
  ui.error.hidden = true;
  ui.progress.hidden = false;
  ui.fill.style.width = '0%';
  ui.progressText.textContent = `reading ${visibleText(file.name)}`;
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'open', file, chunk: CHUNK, ...extra });
}

const SAMPLES = {
  timeline: 'sample: MPI + threads',
  fib: 'sample: Fibonacci fork/join (729 threads)',
  rsa: 'sample: RSA workers (13 threads)',
  mergesort: 'sample: merge sort (1,024 threads)',
  grains: 'sample: grain graph of fib(30), cutoff 8',
  particles: 'sample: MPI patterns (64 ranks)',
};

// A folder or several files (e.g. an OTF2 archive: X.otf2, X.def, X/*.evt), each with its relative path.
function openSet(name, entries) {
  if (!entries.length) { showError(`${name}: the folder is empty`); return; }
  if (entries.length === 1) { openFile(entries[0].file); return; }
  if (looksLikeStore(entries)) { if (pending) cancelLoad(false); weft.store.openFolder(name, entries); return; }
  if (pending) cancelLoad(false);
  pending = { id: nextId++, name };
  ui.error.hidden = true;
  ui.progress.hidden = false;
  ui.fill.style.width = '0%';
  ui.progressText.textContent = `reading ${visibleText(name)}`;
  setState('loading');
  postSet(pending.id, name, entries);
}

// A folder's files go to the worker one per message, yielding to the browser every few milliseconds: cloning
// a File into a message costs the main thread 0.4 ms quiet, 3 ms on a loaded machine (the 67 files of a
// 32-rank OTF2 archive took one 27-55 ms task; a 1,000-rank archive would freeze the page for 0.4-3 s). The
// worker gathers the parts ('open-set-part') and reads the set at 'open-set'.
const SET_SLICE_MS = 8;
async function postSet(id, name, entries) {
  const to = worker;
  let t0 = performance.now();
  for (const entry of entries) {
    if (performance.now() - t0 > SET_SLICE_MS) {
      await yieldToBrowser();
      // Another file opened meanwhile (the worker drops the parts), or the worker restarted.
      if (!pending || pending.id !== id || worker !== to) return;
      t0 = performance.now();
    }
    to.postMessage({ v: PROTOCOL, id, type: 'open-set-part', name, entries: [entry] });
  }
  to.postMessage({ v: PROTOCOL, id, type: 'open-set', name, entries: [] });
}

// Every file under a dropped directory entry, with paths relative to it (readEntries returns batches).
async function filesUnder(entry, prefix = '') {
  if (entry.isFile) return [{ path: prefix + entry.name, file: await new Promise((ok, err) => entry.file(ok, err)) }];
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((ok, err) => reader.readEntries(ok, err));
    if (!batch.length) break;
    for (const child of batch) out.push(...await filesUnder(child, `${prefix}${entry.name}/`));
  }
  return out;
}

// A trace from a URL: the worker downloads it with progress (open-url.js). The page's policy lets it reach
// only the origins its address named (csp.js); for another, the page reopens with this URL as its address.
function openUrl(url, { direct = false } = {}) {
  if (!direct && window.weftConnectAllowed && !window.weftConnectAllowed(url)) {
    const next = new URL(location.href);
    next.searchParams.delete('trace');
    const hash = new URLSearchParams(location.hash.slice(1));
    hash.set('trace', url);
    next.hash = hash.toString();
    history.replaceState(null, '', next.href);
    location.reload();
    return;
  }
  if (pending) cancelLoad(false);
  const name = nameOfUrl(url);
  pending = { id: nextId++, name, source: { trace: url } };
  ui.error.hidden = true;
  ui.progress.hidden = false;
  ui.fill.style.width = '0%';
  ui.progressText.textContent = `downloading ${visibleText(name)}`;
  setState('loading');
  // `weft.limits` (tests only): a lower byte budget (`bytes`) and stall timeout (`stallMs`) for the download.
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'fetch', url, limits: { ...weft.limits } });
}

function openSample(name = 'timeline') {
  if (pending) cancelLoad(false);
  pending = { id: nextId++, name, source: { sample: name } };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'sample', name, title: SAMPLES[name] });
}

// For the security test: the worker's own fetch must be refused by the policy it inherited.
weft.openUrlDirect = (url) => openUrl(url, { direct: true });

// For the fault-recovery tests: crash the reader worker the way a bug would ('panic' or 'oom'); given a File,
// inside the session that reads it (as a reader running out of memory on a large file does).
weft.induceFault = (kind, file) => {
  if (file) { openFile(file, { fault: kind }); return; }
  pending = { id: nextId++, name: `fault ${kind}` };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'fault', kind, name: `fault ${kind}` });
};

/** Ask the worker to apply a changed option (the schema says `applies: worker`): lay the shown graph out again, or
 *  compute the moments of another busy definition; the view shows what it has until the answer ('relaid'). */
function relayout(key, value) {
  pending = { id: nextId++, name: 'relayout' };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'relayout', name: ui.fileName.textContent, key, value });
}

// A second grain profile beside the aggregated view: the worker reads it (the page's wasm holds no reader).
function compareWith(file) {
  if (pending) return; // the worker holds the file shown: a restart would lose what it answers
  pending = { id: nextId++, name: file.name };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'compare', file, chunk: CHUNK });
}

function cancelLoad(announce = true) {
  pending = null;
  restartWorker();
  ui.progress.hidden = true;
  if (announce) ui.summary.textContent = 'loading cancelled';
  setState(weft.loads > 0 ? 'ready' : 'idle');
}
$('cancel').addEventListener('click', () => cancelLoad());

function formatBytes(n) {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(0)} KB`;
  return `${n} B`;
}

// ---- input ----
function wireInput(canvas) {
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
      case 'escape': if (pending) cancelLoad(); break;
      case '1': case '2': case '3': {
        const views = v().views();
        const want = views[Number(e.key) - 1];
        if (want) switchViewStepped(want);
        break;
      }
      default: return;
    }
    e.preventDefault();
    hideTooltip();
  };
}

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

// ---- views ----
const VIEW_LABELS = { timeline: 'Timeline', moments: 'Utilization & moments', execgraph: 'Execution graph', grains: 'Grain graph', aggregate: 'Aggregated', particles: 'Particles' };

function renderViewTabs() {
  const nav = $('views');
  nav.replaceChildren();
  const views = weft.viewer.views();
  const current = weft.viewer.view();
  views.forEach((v, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.role = 'tab';
    b.dataset.view = v;
    b.textContent = VIEW_LABELS[v] || v;
    b.title = `${VIEW_LABELS[v] || v} (${i + 1})`;
    // A view with nothing to show says why on its tab (the Particles view of a trace without MPI calls).
    const note = weft.viewer.view_note(v);
    if (note) { b.title += `: ${note}`; b.dataset.note = note; b.classList.add('muted'); }
    b.setAttribute('aria-selected', String(v === current));
    b.addEventListener('click', () => switchViewStepped(v));
    nav.append(b);
  });
  // Views of the same file that the worker builds on demand (the timeline, threads or tasks of an OTF2 trace).
  for (const kind of weft.fileViews || []) {
    if (kind === weft.lastKind) continue;
    const b = document.createElement('button');
    b.type = 'button';
    b.role = 'tab';
    b.dataset.fileView = kind;
    b.textContent = FILE_VIEW_LABELS[kind] || kind;
    b.title = `${FILE_VIEW_LABELS[kind] || kind} of this file (built on demand)`;
    b.setAttribute('aria-selected', 'false');
    b.addEventListener('click', () => openFileView(kind));
    nav.append(b);
  }
  renderViewOptions(current);
}

const FILE_VIEW_LABELS = { trace: 'Timeline', execgraph: 'Execution graph (threads)', grains: 'Grain graph (tasks)' };

function openFileView(kind) {
  if (pending) return; // the worker holds the file's views: a restart would lose them
  const name = ui.fileName.textContent;
  pending = { id: nextId++, name, fileView: true };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'view', kind, name });
}

function switchView(v) {
  viewGeneration += 1;
  try { weft.viewer.set_view(v); } catch (e) { showError(String(e)); return; }
  hideTooltip();
  renderViewTabs();
}

// A tab or key switches views without one long main-thread task: a view that would take one to build (the
// particle index of a large trace, Viewer.begin_view) is built in steps, yielding between them as a load does;
// `weft.viewSteps` keeps each step's time. Another switch or a load meanwhile drops the build.
let viewGeneration = 0;
async function switchViewStepped(v) {
  const mine = ++viewGeneration;
  const load = loadGeneration;
  let stepped;
  try { stepped = weft.viewer.begin_view(v); } catch (e) { showError(String(e)); return; }
  if (stepped) {
    const steps = [];
    try {
      for (;;) {
        await yieldToBrowser();
        if (mine !== viewGeneration || load !== loadGeneration) return;
        const step = weft.viewer.load_step_name();
        const t = performance.now();
        const more = weft.viewer.load_step();
        steps.push({ step, ms: performance.now() - t });
        if (!more) break;
      }
    } catch (e) { showError(String(e)); return; }
    weft.viewSteps = steps;
  }
  hideTooltip();
  renderViewTabs();
}

function configure(key, value) {
  try { weft.viewer.configure(key, value); return true; } catch (e) { showError(String(e)); return false; }
}

/** Set a view option from its control; an option the worker applies (a layout) goes to the worker too. */
function setOption(option, value) {
  // A store's views ask the store worker themselves (store.js): the reader worker holds no trace then.
  if (configure(option.key, value) && option.applies === 'worker' && !(weft.store && weft.store.open)) relayout(option.key, value);
  renderViewOptions(weft.viewer.view());
}

// The view's options as controls, rendered from the shown view's schema (Viewer.option_schema, one schema per
// view in src/views/options.rs): a select for a choice (with an input for its open entry, e.g. busy = pattern:GLOB),
// a checkbox for a bool, a number input, a text input; options the schema marks `control: false` (set by links
// and embeds only) get none. Each control's id is `VIEW-LINKKEY`; a change is one `configure` call. Nothing here
// knows a particular option.
function optionControls(box, schema, onChange) {
  if (!schema) return;
  for (const o of schema.options) {
    if (o.role !== 'option' || !o.control) continue;
    const k = o.kind;
    const id = `${schema.view}-${o.link}`;
    const wrap = document.createElement('label');
    wrap.title = o.help;
    wrap.dataset.option = o.key;
    const input = (type, value) => {
      const i = document.createElement('input');
      i.type = type;
      i.value = value;
      return i;
    };
    if (k.type === 'choice') {
      wrap.append(`${o.label} `);
      const sel = document.createElement('select');
      sel.id = id;
      const other = k.other;
      for (const c of [...k.choices, ...(other ? [other] : [])]) {
        const opt = document.createElement('option');
        opt.value = c.value;
        opt.textContent = c.label;
        sel.append(opt);
      }
      wrap.append(sel);
      const listed = k.choices.some((c) => c.value === o.value);
      sel.value = listed || !other ? o.value : other.value;
      if (other) {
        const typed = listed ? '' : o.value.slice(other.prefix.length, o.value.length - other.suffix.length);
        const text = input(other.number ? 'number' : 'text', typed);
        text.id = `${id}-text`;
        text.placeholder = other.placeholder;
        if (other.number) { text.min = '0'; text.style.width = '4em'; } else text.size = 16;
        const unit = document.createElement('span');
        unit.textContent = other.suffix;
        text.hidden = unit.hidden = sel.value !== other.value;
        const send = () => { if (text.value) onChange(o, `${other.prefix}${text.value}${other.suffix}`); };
        text.addEventListener('change', send);
        wrap.append(' ', text, unit);
        sel.addEventListener('change', () => {
          if (sel.value !== other.value) { onChange(o, sel.value); return; }
          text.hidden = unit.hidden = false;
          if (!text.value) text.value = other.default;
          if (text.value) send(); else text.focus();
        });
      } else {
        sel.addEventListener('change', () => onChange(o, sel.value));
      }
    } else if (k.type === 'bool') {
      const box = input('checkbox', 'on');
      box.id = id;
      box.checked = ['1', 'on', 'true'].includes(o.value);
      box.addEventListener('change', () => onChange(o, box.checked ? 'on' : 'off'));
      wrap.append(box, ` ${o.label}`);
    } else {
      const field = input(k.type === 'number' ? 'number' : 'text', o.value);
      field.id = id;
      if (k.type === 'number') {
        field.min = String(k.min);
        if (k.max !== null) field.max = String(k.max);
        field.step = String(k.step);
        field.style.width = '4em';
      } else {
        field.placeholder = k.placeholder;
        field.size = 14;
      }
      field.addEventListener('change', () => onChange(o, field.value));
      wrap.append(`${o.label} `, field);
    }
    box.append(wrap);
  }
}

function renderViewOptions(view) {
  const box = $('view-options');
  box.replaceChildren();
  if (weft.legend) weft.legend.update(view);
  if (weft.graphml) weft.graphml.update(view);
  if (weft.grainPanel) weft.grainPanel.update(view);
  if (weft.profilePanel) weft.profilePanel.update(view, box);
  if (weft.countersPanel) weft.countersPanel.update(view, box);
  if (weft.rowsPanel) weft.rowsPanel.update(view, box);

  if (weft.commPanel) weft.commPanel.update(view, box);
  if (particlesView(view, box, weft)) return;
  if (weft.aggregatePanel && weft.aggregatePanel.update(view, box)) return;
  optionControls(box, weft.viewer.option_schema(), setOption);
  if (view === 'moments') noBusyOffer(box, weft.viewer.view_brief());
}

// No shown location has busy time under the busy definition (e.g. every region is MPI): the pane says so,
// and this offers the one-click switch to "any region" beside the busy menu.
function noBusyOffer(box, st) {
  if (!st.no_busy || st.busy === 'any' || !st.any_finds_busy) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'busy-any';
  b.className = 'offer';
  b.textContent = 'No busy time: count any region as busy';
  b.title = 'This busy definition finds no busy time in the locations shown; switch busy to "any region".';
  b.addEventListener('click', () => { if (configure('busy', 'any')) relayout('busy', 'any'); renderViewOptions('moments'); });
  box.append(b);
}

// ---- export ----
function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function exportName(ext) {
  const base = (ui.fileName.textContent || 'weft').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/\.(json|gz|prv|csv|graphml|txt)$/i, '');
  return `${base}-${weft.viewer.view()}.${ext}`;
}

/** The view as PNG at `scale` x the screen's pixel ratio: redraw at that size, then compose GPU and labels. */
function exportPng(scale) {
  const r = ui.stage.getBoundingClientRect();
  const dpr = (window.devicePixelRatio || 1) * scale;
  const v = weft.viewer;
  v.resize(r.width, r.height, dpr);
  v.invalidate();
  v.frame();
  const out = document.createElement('canvas');
  out.width = Math.round(r.width * dpr);
  out.height = Math.round(r.height * dpr);
  const ctx = out.getContext('2d');
  ctx.drawImage(document.getElementById('gpu'), 0, 0, out.width, out.height);
  ctx.drawImage(document.getElementById('labels'), 0, 0, out.width, out.height);
  v.resize(r.width, r.height, window.devicePixelRatio || 1);
  out.toBlob((b) => { weft.lastExport = { name: exportName('png'), size: b.size, width: out.width, height: out.height }; download(b, weft.lastExport.name); }, 'image/png');
}

function exportSvg() {
  const svg = weft.viewer.export_svg();
  weft.lastExport = { name: exportName('svg'), size: svg.length };
  download(new Blob([svg], { type: 'image/svg+xml' }), weft.lastExport.name);
}

$('export').addEventListener('change', (e) => {
  const v = e.target.value;
  e.target.value = '';
  if (!weft.viewer) return;
  if (v === 'svg') exportSvg();
  else if (v === 'png1') exportPng(1);
  else if (v === 'png2') exportPng(2);
});

// ---- files ----
$('file-input').addEventListener('change', (e) => {
  const files = [...e.target.files];
  if (files.length > 1) openSet(`${files.length} files`, files.map((f) => ({ path: f.name, file: f })));
  else openFile(files[0]);
  e.target.value = '';
});
$('folder-input').addEventListener('change', (e) => {
  const files = [...e.target.files];
  const name = files.length ? files[0].webkitRelativePath.split('/')[0] : 'folder';
  e.target.value = '';
  // In a task of its own: the browser's file-chooser reply that fires this event already took ~30 ms.
  setTimeout(() => openSet(name, files.map((f) => ({ path: f.webkitRelativePath || f.name, file: f }))), 0);
});
$('fit').addEventListener('click', () => weft.viewer && weft.viewer.fit());
$('samples').addEventListener('change', (e) => { if (e.target.value) openSample(e.target.value); e.target.value = ''; });
let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; ui.dropHint.hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; ui.dropHint.hidden = true; } });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  ui.dropHint.hidden = true;
  const dt = e.dataTransfer;
  if (!dt) return;
  const entries = [...(dt.items || [])].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  if (entries.some((en) => en.isDirectory) || (dt.files && dt.files.length > 1)) {
    const name = entries.length === 1 ? entries[0].name : `${entries.length} items`;
    Promise.all(entries.map((en) => filesUnder(en))).then((lists) => openSet(name, lists.flat()))
      .catch((err) => showError(`${name}: cannot read the dropped folder (${err})`));
  } else if (dt.files && dt.files[0]) {
    openFile(dt.files[0]);
  }
});

// ---- start ----
// The stage's size last given to the viewer: a resize to the same size draws nothing again (a full frame of a
// large trace is costly to rasterize without a GPU: BENCHMARKS.md, "The engine in the worker").
let stageSize = '';
function resize() {
  const r = ui.stage.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const size = `${r.width}x${r.height}@${dpr}`;
  if (size === stageSize) return;
  stageSize = size;
  weft.viewer.resize(r.width, r.height, dpr);
}

function loop() {
  try { weft.viewer.frame(); } catch (e) { console.error('frame failed:', e); }
  requestAnimationFrame(loop);
}

async function main() {
  setState('starting');
  startWorker();
  let built;
  try {
    built = await createViewer();
  } catch (e) {
    ui.backend.textContent = 'no GPU';
    showError(`This browser can draw with neither WebGPU nor WebGL2: ${e}`);
    setState('error');
    return;
  }
  weft.viewer = built.viewer;
  weft.backend = built.viewer.backend();
  ui.backend.textContent = weft.backend;
  wireInput(built.canvas);
  weft.legend = new LegendPanel({ viewer: built.viewer, stage: ui.stage, dock: $('side'), onChange: () => renderViewOptions(built.viewer.view()) });
  weft.graphml = new GraphmlDownload({ weft, after: $('export'), name: () => exportName('graphml'), download, onError: showError });
  weft.grainPanel = new GrainPanel({ viewer: built.viewer, canvas: built.canvas, root: $('grain-panel'), help: $('help-grains'),
    onConfigure: (k, v) => { configure(k, v); renderViewOptions('grains'); }, onError: showError });
  weft.aggregatePanel = new AggregatePanel({ viewer: built.viewer, canvas: built.canvas, help: $('help'), onError: showError, onCompare: compareWith,
    onJump: (grain) => { viewGeneration += 1; try { built.viewer.show_grain(grain); } catch (e) { showError(String(e)); return; } hideTooltip(); renderViewTabs(); },
    renderOptions: (box) => optionControls(box, built.viewer.option_schema(), (o, v) => weft.aggregatePanel.configure(o.key, v)),
    onRender: () => weft.legend.update(built.viewer.view()) });
  weft.profilePanel = new ProfilePanel({ viewer: built.viewer, canvas: built.canvas, root: $('profile-panel'), onError: showError });
  weft.countersPanel = new CountersPanel({ viewer: built.viewer });
  weft.rowsPanel = new RowsPanel({ viewer: built.viewer, canvas: built.canvas, root: $('rows-panel'), onError: showError });

  weft.commPanel = new CommPanel({ viewer: built.viewer, canvas: built.canvas, root: $('comm-panel'), onError: showError });
  initSidePanels({ weft, stage: ui.stage });
  new ResizeObserver(resize).observe(ui.stage);
  resize();
  requestAnimationFrame(loop);
  initStore({ weft, ui, renderViewTabs, showError, setState });
  initHosting({ weft, ui, openSample, openUrl, switchView, configure, relayout, renderViewTabs, showError,
    storeUrl: storeUrlOf(location), openStore: (url) => weft.store.openUrl(url) });
}

main();
