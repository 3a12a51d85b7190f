// The page: picks the wasm build (WebGPU, or the WebGL2 fallback only when no WebGPU adapter exists),
// wires input to the Viewer, runs files through the worker, and fills the DOM panels. No trace logic here.
// Trace-derived text is only ever assigned with textContent.

const $ = (id) => document.getElementById(id);
const PROTOCOL = 1;
const CHUNK = 4 << 20;

const ui = {
  stage: $('stage'), backend: $('backend'), fileName: $('file-name'), summary: $('summary'),
  progress: $('progress'), fill: $('progress-fill'), progressText: $('progress-text'),
  error: $('error'), errorText: $('error-text'), tooltip: $('tooltip'), dropHint: $('drop-hint'),
};

const weft = { viewer: null, backend: null, loads: 0, errors: [], lastSummary: null, state: 'starting' };
window.weft = weft;

function setState(s) {
  weft.state = s;
  document.body.dataset.state = s;
}

function showError(message) {
  weft.errors.push(message);
  ui.errorText.textContent = message;
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
let pending = null;

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
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
      const pct = msg.total > 0 ? Math.min(100, (100 * msg.done) / msg.total) : 0;
      ui.fill.style.width = `${pct.toFixed(1)}%`;
      ui.progressText.textContent = `${msg.phase} ${formatBytes(msg.done)} / ${formatBytes(msg.total)}`;
      break;
    }
    case 'loaded': {
      try {
        weft.viewer.load(new Uint8Array(msg.model));
      } catch (e) {
        failLoad(`${msg.name}: ${e}`);
        return;
      }
      const s = JSON.parse(msg.summary);
      weft.lastSummary = s;
      ui.fileName.textContent = msg.name;
      ui.summary.textContent = `${s.processes} processes · ${s.locations} locations · ${s.intervals.toLocaleString()} intervals` +
        (s.messages + s.flows ? ` · ${(s.messages + s.flows).toLocaleString()} messages/flows` : '') +
        (s.warnings ? ` · ${s.warnings} warnings` : '');
      ui.summary.title = s.warnings ? 'The reader repaired parts of this trace; run `weft info` for details.' : '';
      ui.error.hidden = true;
      pending = null;
      ui.progress.hidden = true;
      weft.loads += 1;
      setState('ready');
      break;
    }
    case 'error':
      failLoad(msg.message);
      if (msg.fatal) restartWorker();
      break;
  }
}

function failLoad(message) {
  pending = null;
  ui.progress.hidden = true;
  showError(message);
  setState(weft.loads > 0 ? 'ready' : 'error');
}

let nextId = 1;
function openFile(file) {
  if (!file) return;
  if (pending) cancelLoad(false);
  pending = { id: nextId++, name: file.name };
  ui.error.hidden = true;
  ui.progress.hidden = false;
  ui.fill.style.width = '0%';
  ui.progressText.textContent = `reading ${file.name}`;
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'open', file, chunk: CHUNK });
}

function openSample() {
  pending = { id: nextId++, name: 'sample' };
  setState('loading');
  worker.postMessage({ v: PROTOCOL, id: pending.id, type: 'sample' });
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
    if (e.shiftKey) v().scroll(dy || dx);
    else if (Math.abs(dx) > Math.abs(dy)) v().pan(dx);
    else v().zoom(x, Math.exp(-dy * 0.002));
    hideTooltip();
  }, { passive: false });
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
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
    const w = canvas.clientWidth;
    const cx = mouseX ?? (200 + (w - 200) / 2);
    switch (e.key.toLowerCase()) {
      case 'w': v().zoom(cx, 1.25); break;
      case 's': v().zoom(cx, 0.8); break;
      case 'a': v().pan(-w * 0.1); break;
      case 'd': v().pan(w * 0.1); break;
      case 'arrowup': v().scroll(-40); break;
      case 'arrowdown': v().scroll(40); break;
      case 'f': case '0': v().fit(); break;
      case 'escape': if (pending) cancelLoad(); break;
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
  name.textContent = info.region;
  t.append(name);
  const lines = [
    `${info.process} · ${info.location}`,
    `start ${info.start}   duration ${info.duration}`,
  ];
  if (info.category) lines.push(`category ${info.category}   depth ${info.depth}`);
  for (const l of lines) { const d = document.createElement('div'); d.textContent = l; t.append(d); }
  t.hidden = false;
  const stage = ui.stage.getBoundingClientRect();
  const tw = t.offsetWidth, th = t.offsetHeight;
  t.style.left = `${Math.min(x + 14, stage.width - tw - 4)}px`;
  t.style.top = `${y + 18 + th > stage.height ? y - th - 10 : y + 18}px`;
}

// ---- files ----
$('file-input').addEventListener('change', (e) => { openFile(e.target.files[0]); e.target.value = ''; });
$('fit').addEventListener('click', () => weft.viewer && weft.viewer.fit());
let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; ui.dropHint.hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; ui.dropHint.hidden = true; } });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  ui.dropHint.hidden = true;
  const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
  if (f) openFile(f);
});

// ---- start ----
function resize() {
  const r = ui.stage.getBoundingClientRect();
  weft.viewer.resize(r.width, r.height, window.devicePixelRatio || 1);
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
  new ResizeObserver(resize).observe(ui.stage);
  resize();
  requestAnimationFrame(loop);
  openSample();
}

main();
