// The page's start-up: picks the wasm build (WebGPU, or the WebGL2 fallback only when no WebGPU adapter
// exists), makes the page's state and hands it to the modules below, builds the panels, and runs the frame
// loop. No trace logic here, and no state of its own: what changes while the page runs lives in the objects
// made by `createState` (`weft`, also window.weft for tests and benchmarks; `load` and `switching`, the
// pending request and the generations that drop stale steps), passed to whatever needs them.
//   status.js    the page's state, the error line, the progress line
//   reader.js    the reader worker: requests (file, folder, URL, sample, relayout, compare) and its answers
//   loading.js   a loaded file into the Viewer in steps, the summary line
//   files.js     file and folder inputs, drop, the samples menu
//   views.js     the view tabs and switching
//   controls.js  the view's options and the panels' toggles in the header
//   export.js    SVG and PNG export, downloads
//   pointer.js   wheel, drag and keys on the view, the hover tooltip
//   compare.js   a second run (B) below the first, coupled, and what changed
// Hosting features (URL opening, permalinks, themes, offline, shortcuts, recent files) live in hosting.js and
// its modules, stores in store.js; numbers are written by the Viewer (format.js).
import { initHosting } from './hosting.js';
import { initStore, storeUrlOf } from './store.js';
import { initSidePanels } from './side-panels.js';
import { GrainPanel } from './grain-panel.js';
import { AggregatePanel } from './aggregate-panel.js';
import { LegendPanel } from './legend.js';
import { GraphmlDownload } from './graphml.js';
import { ProfilePanel } from './profile-panel.js';
import { CountersPanel } from './counters-panel.js';
import { RowsPanel } from './rows-panel.js';
import { CommPanel } from './comm-matrix.js';
import { DiagnosisPanel } from './diagnosis-panel.js';
import { CallTreePanel } from './calltree-panel.js';
import { IoPanel } from './io-panel.js';
import { ParticlesPanel } from './particles.js';
import { NotesPanel } from './notes.js';
import { HistogramPanel } from './histogram-panel.js';
import { ClustersPanel } from './clusters-panel.js';
import { createStatus } from './status.js';
import { createReader } from './reader.js';
import { createLoading } from './loading.js';
import { initFiles } from './files.js';
import { createViews } from './views.js';
import { createControls, optionControls } from './controls.js';
import { createExport, download } from './export.js';
import { createPointer } from './pointer.js';
import { createCompare } from './compare.js';

const $ = (id) => document.getElementById(id);

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

/** The page's state and handles, made once at start-up. */
function createState() {
  const ui = {
    stage: $('stage'), backend: $('backend'), fileName: $('file-name'), summary: $('summary'),
    progress: $('progress'), fill: $('progress-fill'), progressText: $('progress-text'),
    error: $('error'), errorText: $('error-text'), tooltip: $('tooltip'), dropHint: $('drop-hint'),
  };
  const weft = { viewer: null, backend: null, loads: 0, errors: [], lastSummary: null, state: 'starting', source: null, hooks: { loaded: [] } };
  // `load.pending`: the request the reader worker answers now ({id, name, source?, fileView?}); `generation`
  // counts loads, `switching.generation` view switches: a newer one drops the steps of an older one.
  // `sized`: the stage's size last given to the Viewer.
  return { ui, weft, load: { pending: null, nextId: 1, generation: 0 }, switching: { generation: 0 }, sized: { size: '' } };
}

/** The panels beside and over the view, each given the Viewer and what it calls back. */
function createPanels(app, viewer, canvas) {
  const { weft, ui, status, views, controls } = app;
  const render = () => controls.render(viewer.view());
  weft.legend = new LegendPanel({ viewer, stage: ui.stage, dock: $('side'), onChange: render });
  weft.graphml = new GraphmlDownload({ weft, after: $('export'), name: () => app.exporter.exportName('graphml'), download, onError: status.showError });
  weft.grainPanel = new GrainPanel({ viewer, canvas, root: $('grain-panel'), help: $('help-grains'),
    onConfigure: (k, v) => { controls.configure(k, v); controls.render('grains'); }, onError: status.showError });
  weft.aggregatePanel = new AggregatePanel({ viewer, canvas, help: $('help'), onError: status.showError, onCompare: (file) => app.reader.compareWith(file),
    onJump: (grain) => views.switchWith(() => viewer.show_grain(grain)),
    renderOptions: (box) => optionControls(box, viewer.option_schema(), (o, v) => weft.aggregatePanel.configure(o.key, v)),
    onRender: () => weft.legend.update(viewer.view()) });
  weft.profilePanel = new ProfilePanel({ viewer, canvas, root: $('profile-panel'), onError: status.showError });
  weft.countersPanel = new CountersPanel({ viewer });
  weft.rowsPanel = new RowsPanel({ viewer, canvas, root: $('rows-panel'), onError: status.showError });
  weft.commPanel = new CommPanel({ viewer, canvas, root: $('comm-panel'), onError: status.showError });
  weft.diagnosisPanel = new DiagnosisPanel({ viewer, canvas, root: $('diagnosis-panel'), ask: app.reader.ask, weft, onError: status.showError });
  // A store's call tree is the store worker's (from its call-path tiles), a trace's the reader's.
  const askCallTree = (what, args) => (weft.store && weft.store.open ? weft.store.ask(what, args) : app.reader.ask(what, args));
  weft.callTreePanel = new CallTreePanel({ viewer, canvas, root: $('calltree-panel'), ask: askCallTree, weft, switchWith: views.switchWith, onError: status.showError });
  weft.ioPanel = new IoPanel({ viewer, root: $('io-panel'), ask: app.reader.ask, weft, onError: status.showError });
  weft.particlesPanel = new ParticlesPanel({ viewer, stage: ui.stage });
  weft.notesPanel = new NotesPanel({ viewer, root: $('notes-panel'), fileName: () => ui.fileName.textContent, isNotesFile: app.isNotesFile,
    download, onChange: () => weft.permalink && weft.permalink.write(), onWarning: status.showError, onError: status.showError });
  // Issue #55: a region's durations (a profile row clicked opens its histogram) and the ranks grouped by behaviour.
  weft.histogramPanel = new HistogramPanel({ viewer, root: $('histogram-panel'), ask: app.reader.ask, weft, onError: status.showError });
  weft.profilePanel.onMark = (name) => weft.histogramPanel.fromProfile(name);
  weft.clustersPanel = new ClustersPanel({ viewer, stage: ui.stage, root: $('clusters-panel'), ask: app.reader.ask, weft,
    onRows: () => weft.permalink && weft.permalink.write(), onError: status.showError });
  app.takesDrop = (file) => weft.notesPanel.takesDrop(file, (f) => app.reader.openFile(f));
}

async function main() {
  const app = createState();
  const { weft, ui } = app;
  window.weft = weft;
  app.status = createStatus(app);
  app.loading = createLoading(app);
  app.reader = createReader(app);
  app.views = createViews(app);
  app.controls = createControls(app);
  app.exporter = createExport(app);
  app.pointer = createPointer(app);
  initFiles(app);

  // The stage's size last given to the viewer: a resize to the same size draws nothing again (a full frame of a
  // large trace is costly to rasterize without a GPU: BENCHMARKS.md, "The engine in the worker").
  app.resize = () => {
    const r = ui.stage.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const size = `${r.width}x${r.height}@${dpr}`;
    if (size === app.sized.size) return;
    app.sized.size = size;
    weft.viewer.resize(r.width, r.height, dpr);
  };
  const loop = () => {
    try {
      const drew = weft.viewer.frame();
      // The first frame drawn after a file's load (weft.openLog, reader.js): its scene built and drawn, and
      // the next frame's start (the frame shown).
      const log = weft.openLog;
      if (log && log.ready && !log.frame) {
        if (drew) { const s = weft.viewer.stats(); log.frame = { at: performance.timeOrigin + performance.now(), buildMs: s.build_ms, drawMs: s.draw_ms, rects: s.rects }; }
      } else if (log && log.frame && !log.shown) log.shown = performance.timeOrigin + performance.now();
    } catch (e) { console.error('frame failed:', e); }
    requestAnimationFrame(loop);
  };

  app.status.setState('starting');
  app.reader.start();
  let built;
  try {
    built = await createViewer();
  } catch (e) {
    ui.backend.textContent = 'no GPU';
    app.status.showError(`This browser can draw with neither WebGPU nor WebGL2: ${e}`);
    app.status.setState('error');
    return;
  }
  weft.viewer = built.viewer;
  weft.backend = built.viewer.backend();
  app.isNotesFile = built.mod.is_notes_file;
  ui.backend.textContent = weft.backend;
  app.pointer.wire(built.canvas);
  createPanels(app, built.viewer, built.canvas);
  initSidePanels({ weft, stage: ui.stage });
  app.compare = createCompare(app, built.mod);
  new ResizeObserver(app.resize).observe(ui.stage);
  app.resize();
  requestAnimationFrame(loop);
  const { status, reader, views, controls } = app;
  initStore({ weft, ui, renderViewTabs: views.renderTabs, showError: status.showError, setState: status.setState, summaryText: app.loading.summaryText });
  initHosting({ weft, ui, openSample: reader.openSample, openUrl: reader.openUrl, switchView: views.switchTo, configure: controls.configure,
    relayout: reader.relayout, renderViewTabs: views.renderTabs, showError: status.showError,
    storeUrl: storeUrlOf(location), openStore: (url) => weft.store.openUrl(url) });
}

main();
