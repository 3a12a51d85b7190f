// Stores on the page (issue #17): `?store=URL/` (also `#store=`, the embed script's data-weft-store), or a
// dropped folder / Open folder... holding a weft store's manifest.json. A worker of its own (store-worker.js)
// holds the store and its tile cache; each frame the viewer says whether the view asks for another viewport
// or, playing Particles, the next playback range (Viewer.store_request), which goes to the worker; its answer
// is handed to the viewer. A badge shows the
// tiles in flight. `weft.store` keeps timings and the worker's cache figures for tests and benchmarks.
// Comparing (compare.js): `ask` puts the comparison's questions to the worker, `setBudget` sets its cache's
// budget, and the store shown as run B is this same client given B's viewer and stage in `app`'s place.
// No trace logic here.

import { pageUrlParam } from './open-url.js';
import { yieldToBrowser } from './loading.js';

/** The store URL the page was opened with (`?store=` or `#store=`). */
export const storeUrlOf = (loc) => pageUrlParam(loc, 'store');

/** Whether dropped entries ({path, file}) are a store: a manifest.json at the folder's top. */
export function looksLikeStore(entries) {
  return entries.some((e) => /^([^/]+\/)?manifest\.json$/.test(e.path))
    && entries.some((e) => /(^|\/)[escmp]\/.*\.wt$/.test(e.path));
}

// Times as ms since the epoch, comparable with the store worker's.
const now = () => performance.timeOrigin + performance.now();
// Answers whose steps' times `weft.store.zoomLog` keeps (the latest), and the `weft.zoom.*` measures kept.
const LOG_ANSWERS = 256;

/** One answer's steps, in ms, from the worker's times and the page's: `post` (the ask posted to the worker),
 *  `queue` (waiting while the worker answers an older ask), `plan` (the plan, and gathering what the cache
 *  holds), `fetch` (the tiles not cached: fetched, checked, decoded, gathered), `answer` (the answer finished
 *  and encoded), `transfer` (posted to the page receiving it), `apply` (the page's tasks making it drawable,
 *  and the time between them), `draw` (applied to the end of the frame that first draws it), `present` (to
 *  the next animation frame: the frame rasterised and shown), and `total` (asked to drawn). Each is also a
 *  `performance.measure` named `weft.zoom.STEP` (DevTools' timings track). */
const SPANS = {
  post: ['asked', 'received'], queue: ['received', 'started'], plan: ['started', 'planned'], fetch: ['planned', 'fetched'],
  answer: ['fetched', 'answered'], transfer: ['answered', 'arrived'], apply: ['arrived', 'applied'], draw: ['applied', 'drawn'],
  present: ['drawn', 'presented'], total: ['asked', 'drawn'],
};
function stepsOf(t) {
  return Object.fromEntries(Object.entries(SPANS).map(([k, [a, b]]) => [k, +(t[b] - t[a]).toFixed(2)]));
}

export function initStore(app) {
  const { weft, ui } = app;
  let worker = null;
  let badge = null;
  // Counts answers: a newer one drops the steps of an older one.
  let answerGeneration = 0;
  const state = weft.store = { open: false, answers: 0, timings: {}, last: null, worstApply: null, zoomLog: [], openUrl, openFolder, looksLikeStore,
    askCompare: ask, setBudget, stop: () => stop(), cacheBytes: 0 };
  // The comparison's questions waiting for the worker's answer, by id.
  const asked = new Map();
  let askIds = 0;
  let measured = 0;
  const scales = new Map();
  // The timeline's exact answer being made drawable (its steps under way), and the second part of its ask
  // (the window with its margin: store-worker.js `answer`) waiting for it to be drawn.
  let building = false;
  let widening = null;

  // An answer drawn: its steps logged (the latest LOG_ANSWERS) and marked on the page's timeline.
  function logAnswer(entry) {
    state.zoomLog.push(entry);
    if (state.zoomLog.length > LOG_ANSWERS) state.zoomLog.shift();
    if (++measured % LOG_ANSWERS === 0) for (const k of Object.keys(entry.steps)) performance.clearMeasures(`weft.zoom.${k}`);
    const t = entry.times;
    for (const [k, [a, b]] of Object.entries(SPANS)) {
      if (k !== 'total' && t[a] && t[b] && t[b] >= t[a]) {
        performance.measure(`weft.zoom.${k}`, { start: t[a] - performance.timeOrigin, end: t[b] - performance.timeOrigin, detail: { id: entry.id } });
      }
    }
  }

  function showBadge(n) {
    if (!badge) {
      badge = document.createElement('div');
      badge.id = 'store-status';
      Object.assign(badge.style, { position: 'absolute', right: '10px', bottom: '10px', padding: '2px 8px',
        background: 'rgba(32,36,42,0.8)', color: '#fff', font: '12px system-ui, sans-serif', borderRadius: '4px',
        pointerEvents: 'none' });
      ui.stage.append(badge);
    }
    badge.hidden = n === 0;
    badge.textContent = `${n} tile${n === 1 ? '' : 's'} in flight`;
  }

  const calls = { next: 1, open: new Map() };

  function stop() {
    if (worker) worker.terminate();
    worker = null;
    for (const q of asked.values()) q.reject(new Error('the store was closed'));
    asked.clear();
    state.open = false;
    if (waitsAsked) waitsAsked.reject(new Error('the store was closed'));
    for (const q of calls.open.values()) q.reject(new Error('the store was closed'));
    calls.open.clear();
    waitsAsked = null;
    state.waits = null;
    if (badge) badge.hidden = true;
  }
  // Another input loaded through the reader worker replaces the store.
  weft.hooks.loaded.push(() => stop());

  function start(msg, name) {
    stop();
    const entry = URL.createObjectURL(new Blob([`import ${JSON.stringify(new URL('./store-worker.js', import.meta.url).href)};`],
      { type: 'text/javascript' }));
    worker = new Worker(entry, { type: 'module' });
    worker.onmessage = (e) => onMessage(e.data);
    worker.onerror = (e) => { e.preventDefault(); app.showError(`${name}: the store worker failed (${e.message || 'unknown error'})`); };
    state.timings = { start: performance.now() };
    state.answers = 0;
    state.name = name;
    ui.error.hidden = true;
    ui.progress.hidden = false;
    ui.fill.style.width = '0%';
    ui.progressText.textContent = `opening store ${name}`;
    app.setState('loading');
    // `store_cache_mb` in the address (tests, benchmarks): a smaller decoded-tile cache than the 256 MB default.
    const mb = Number(new URLSearchParams(location.search).get('store_cache_mb'));
    worker.postMessage({ ...msg, type: 'open', name, cacheBytes: state.cacheBytes || (mb > 0 ? mb * (1 << 20) : 0) });
  }

  /** A comparison's question (`what`: side, calltree, flame, pair; store-worker.js `compareAnswer`): a promise
   *  of `{text, tiles, fetched}`. */
  function ask(what, args = {}) {
    if (!worker || !state.open) return Promise.reject(new Error('no store is open'));
    const id = ++askIds;
    return new Promise((resolve, reject) => {
      asked.set(id, { resolve, reject });
      worker.postMessage({ type: 'compare', id, what, ...args });
    });
  }

  /** The decoded-tile cache's budget, in bytes (kept for the store opened next too). */
  function setBudget(bytes) {
    state.cacheBytes = bytes;
    if (worker) worker.postMessage({ type: 'budget', bytes });
  }

  // The Diagnosis panel's question to the store worker, answered once per store.
  let waitsAsked = null;
  /** The whole run's wait states the store keeps (`weft index --waits`), for the Diagnosis panel: a promise of
   *  the worker's overview (`store::read::waits::WaitOverview`, or `{missing}` where it keeps none). */
  state.askWaits = () => {
    if (!worker || !state.open) return Promise.reject(new Error('no store is open'));
    if (!state.waits) {
      state.waits = new Promise((resolve, reject) => { waitsAsked = { resolve, reject }; });
      worker.postMessage({ type: 'waits' });
    }
    return state.waits;
  };

  // The call-tree panel's questions to the store worker ('calltree', 'calltree-path'), by id; the worker's
  // time for each answer kept in `state.calltreeTimes` (the latest last; benchmarks read them).
  state.calltreeTimes = [];
  /** Ask the store worker `what` with `args` (as reader.js `ask` asks the reader): a promise of its answer. */
  state.ask = (what, args = {}) => {
    if (!worker || !state.open) return Promise.reject(new Error('no store is open'));
    const id = calls.next++;
    return new Promise((resolve, reject) => {
      calls.open.set(id, { resolve, reject });
      worker.postMessage({ ...args, type: 'ask', what, id });
    });
  };

  // The store the page's address names (`?store=`): its link's notes are put back once it is open.
  let fromAddress = null;
  function openUrl(url) {
    const name = new URL(url).pathname.split('/').filter(Boolean).pop() || new URL(url).host;
    const named = storeUrlOf(location);
    fromAddress = named && new URL(named, location.href).href === new URL(url, location.href).href ? url : null;
    start({ url }, name);
  }

  function openFolder(name, entries) {
    fromAddress = null;
    start({ entries }, name);
  }

  function poll() {
    if (!worker || !state.open) return;
    const vp = weft.viewer.store_request();
    if (vp) {
      state.asked = (state.asked || 0) + 1;
      state.lastAsk = performance.now();
      // The scale of each view asked, which its exact answer is drawn down to (Viewer.store_exact_begin).
      scales.set(state.asked, (vp.t1 - vp.t0) / Math.max(1, vp.width));
      if (scales.size > 64) scales.delete(scales.keys().next().value);
      if (vp.ask != null) state.timelineAsk = vp.ask;
      worker.postMessage({ type: 'view', vp: { ...vp, id: state.asked, asked: now() } });
    }
    requestAnimationFrame(poll);
  }

  function onMessage(msg) {
    if (!msg || !msg.store) return;
    if (msg.type === 'opened') {
      try {
        weft.viewer.load_store(new Uint8Array(msg.skeleton), new Uint32Array(msg.lanes), new Uint8Array(msg.particles), new Float64Array(msg.particleGeometry));
      } catch (e) { app.showError(`${msg.name}: ${e}`); stop(); return; }
      const s = JSON.parse(msg.summary);
      state.summary = s;
      // The worker's Diagnosis lists, made at open (a failure there is asked again by the panel).
      state.waits = msg.waits ? Promise.resolve(JSON.parse(msg.waits)) : null;
      state.timings.manifest = performance.now() - state.timings.start;
      weft.lastSummary = s;
      weft.lastKind = 'store';
      weft.fileViews = null;
      ui.fileName.textContent = msg.name;
      ui.summary.textContent = `store · ${app.summaryText('trace', s)}`;
      ui.progress.hidden = true;
      state.open = true;
      app.renderViewTabs();
      app.setState('ready');
      weft.loads += 1;
      for (const f of weft.hooks.storeOpened || []) f(msg);
      // The notes the link carries (permalink.js writes a store's notes as a trace's), on the store it names.
      if (fromAddress && weft.notesPanel) weft.notesPanel.fromLink(new URLSearchParams(location.hash.slice(1)).get('notes') || '');
      fromAddress = null;
      requestAnimationFrame(poll);
    } else if (msg.type === 'progress') {
      weft.viewer.store_in_flight(msg.inFlight);
      showBadge(msg.inFlight);
    } else if (msg.type === 'answer') {
      const times = { ...msg.times, arrived: now() };
      const t = performance.now();
      // An exact answer's intervals come as column buffers beside the rest of its slice (msg.bytes).
      const buffers = [msg.bytes, ...(msg.runs ? [msg.runs] : []), ...(msg.columns || [])];
      const bytes = buffers.reduce((n, b) => n + b.byteLength, 0);
      // The buffers (up to ~30 MB) are released once the viewer holds its copy, not when the garbage
      // collector comes round: several of them waiting for it held the tab over its memory goal
      // (BENCHMARKS.md, "Store format 2": the page).
      const release = (b) => { if (b.transfer) b.transfer(0); };
      // Only the timeline's next answer replaces an exact answer being built (another view's answer is for
      // another pane: counting it left the timeline's answer half built, and the timeline never asked again).
      const timeline = msg.kind === 'grid' || msg.kind === 'exact';
      // An answer the timeline no longer wants (its view was drawn since from the exact answer it holds) is
      // dropped: it would replace what covers the view with what covers a view left (StorePane::wants).
      if (timeline && msg.ask != null && !weft.viewer.store_wants(msg.ask)) {
        // (Counted once an ask: its second part follows its first.)
        if (!msg.widens) state.dropped = (state.dropped || 0) + 1;
        buffers.forEach(release);
        if (!msg.widens) {
          weft.viewer.store_in_flight(0);
          showBadge(0);
        }
        return;
      }
      if (msg.widens) {
        // The second part of the timeline's ask: only the last ask's, and applied once the first is drawn
        // (a newer answer begun would drop the first part being built).
        if (msg.ask !== state.timelineAsk) { buffers.forEach(release); return; }
        if (building) {
          if (widening) [widening.bytes, widening.runs, ...(widening.columns || [])].forEach(release);
          widening = msg;
          return;
        }
      } else if (timeline) {
        // A newer ask's answer: what was being built is dropped, and a second part waiting with it.
        building = false;
        if (widening) [widening.bytes, widening.runs, ...(widening.columns || [])].forEach(release);
        widening = null;
      }
      const generation = timeline ? ++answerGeneration : answerGeneration;
      const steps = msg.kind === 'exact';
      try {
        // The counter tracks' figures first: an exact slice takes their scale as it is drawn.
        if (msg.counters && msg.counters.byteLength) weft.viewer.store_counters(new Uint8Array(msg.counters));
        // The Diagnosis panel's marks for this view (waiting per bin, the critical path), when asked.
        if (msg.diagnosis && msg.diagnosis.byteLength) weft.viewer.store_diagnosis(new Uint8Array(msg.diagnosis));
        if (msg.kind === 'particles') weft.viewer.store_particles_answer(new Uint8Array(msg.bytes), msg.t0, msg.t1, msg.fade, msg.errors);
        else if (steps) {
          weft.viewer.store_exact_begin(new Uint8Array(msg.bytes), new Uint32Array(msg.runs), msg.intervals, msg.t0, msg.t1, msg.loc0, msg.loc1, msg.errors, scales.get(msg.id) || 0);
          if (msg.ask != null) weft.viewer.store_exact_ask(msg.ask);
          release(msg.bytes);
          release(msg.runs);
        }
        else weft.viewer.store_answer(msg.kind, new Uint8Array(msg.bytes), msg.t0, msg.t1, msg.loc0, msg.loc1, msg.errors, msg.level, msg.ask ?? undefined);
      } catch (e) { app.showError(`${state.name}: ${e}`); return; }
      if (!msg.widens) {
        weft.viewer.store_in_flight(0);
        showBadge(0);
      }
      const task = { ms: performance.now() - t, steps: 1, worstStep: 0, taskMs: performance.now() - t, stages: { begin: performance.now() - t } };
      const applied = () => {
        state.answers += 1;
        // The viewport this answers (views asked while the worker was busy are answered by the latest only).
        state.answered = msg.id;
        state.last = { kind: msg.kind, level: msg.level, t0: msg.t0, t1: msg.t1, errors: msg.errors, fetchedTiles: msg.fetchedTiles,
          fetchedBytes: msg.fetchedBytes, fade: msg.fade, bytes, cacheUsed: msg.cacheUsed, cacheBudget: msg.cacheBudget, cacheTiles: msg.cacheTiles,
          wasmBytes: msg.wasmBytes, applyMs: task.ms, applySteps: task.steps, sinceAsk: performance.now() - (state.lastAsk || t) };
        // The longest main-thread task applying an answer (benchmarks reset it to null).
        if (!state.worstApply || task.ms > state.worstApply.ms) state.worstApply = { ms: task.ms, kind: msg.kind, bytes, step: task.worstStep, steps: task.steps };
        // Drawn by the page's frame loop in the next animation frame: its callback was asked for before this
        // one, so this one runs after the frame that draws the answer.
        times.applied = now();
        const tasks = { applyTaskMs: +task.taskMs.toFixed(2), applyTasks: task.steps, answerBytes: bytes,
          applyStages: Object.fromEntries(Object.entries(task.stages).map(([k, v]) => [k, +v.toFixed(2)])), inside: msg.inside };
        requestAnimationFrame(() => {
          times.drawn = now();
          requestAnimationFrame(() => {
            times.presented = now();
            logAnswer({ id: msg.id, kind: msg.kind, level: msg.level, fetchedTiles: msg.fetchedTiles, plannedTiles: msg.plannedTiles,
              prefetchedTiles: msg.prefetchedTiles, times, steps: stepsOf(times), ...tasks });
          });
        });
        if (state.answers === 1) {
          // The first view is drawn in the next frame.
          requestAnimationFrame(() => requestAnimationFrame(() => { state.timings.firstDrawn = performance.now() - state.timings.start; }));
        }
      };
      if (!steps) { release(msg.bytes); applied(); return; }
      building = true;
      // The first part drawn (or dropped): the second part of the same ask, if it came meanwhile, is next.
      const next = (drawn) => {
        building = false;
        const w = widening;
        widening = null;
        if (w && drawn) onMessage(w);
        else if (w) [w.bytes, w.runs, ...(w.columns || [])].forEach(release);
      };
      // An exact slice's interval columns are copied in one a task (each as it is: Viewer.store_exact_column),
      // then it is made drawable a step at a time (Viewer.store_step), yielding to the browser between them; a
      // newer answer of the timeline replaces it (its own steps go on).
      (async () => {
        let column = 0;
        let drawn = false;
        for (;;) {
          await yieldToBrowser();
          // (A newer answer begun is building now.)
          if (generation !== answerGeneration || !worker) return;
          // Its view was left for one the exact answer held draws (the pane dropped what it was building).
          if (msg.ask != null && !weft.viewer.store_wants(msg.ask)) { state.dropped = (state.dropped || 0) + 1; next(false); return; }
          const s = performance.now();
          let done = false;
          // Each task's time by the step it took (columns, decode, layout, overview, lanes: StorePane::stage).
          const stage = column < msg.columns.length ? 'columns' : weft.viewer.store_stage();
          try {
            if (column < msg.columns.length) {
              weft.viewer.store_exact_column(column, new Uint8Array(msg.columns[column]));
              release(msg.columns[column]);
              column += 1;
            } else done = weft.viewer.store_step();
          } catch (e) { app.showError(`${state.name}: ${e}`); next(false); return; }
          const took = performance.now() - s;
          task.stages[stage] = (task.stages[stage] || 0) + took;
          task.taskMs += took;
          if (took > task.ms) { task.ms = took; task.worstStep = task.steps; }
          task.steps += 1;
          // Drawable once its steps reach the messages' lanes (indexed in the steps after it is drawn).
          if (!drawn && (done || weft.viewer.store_stage() === 'lanes')) {
            drawn = true;
            applied();
            next(true);
          }
          if (done) return;
        }
      })();
    } else if (msg.type === 'compare') {
      const q = asked.get(msg.id);
      if (!q) return;
      asked.delete(msg.id);
      if (msg.error) q.reject(new Error(msg.error)); else q.resolve(msg);
    } else if (msg.type === 'asked') {
      const q = calls.open.get(msg.id);
      if (!q) return;
      calls.open.delete(msg.id);
      if (msg.times) {
        state.calltreeTimes.push({ what: msg.what, ...msg.times });
        if (state.calltreeTimes.length > 64) state.calltreeTimes.shift();
      }
      if (msg.error) q.reject(new Error(msg.error)); else q.resolve(msg);
    } else if (msg.type === 'waits') {
      const asked = waitsAsked;
      waitsAsked = null;
      if (!asked) return;
      if (msg.error) { state.waits = null; asked.reject(new Error(msg.error)); } else asked.resolve(JSON.parse(msg.json));
    } else if (msg.type === 'error') {
      app.showError(msg.message);
      if (msg.fatal) { stop(); app.setState(weft.loads > 0 ? 'ready' : 'error'); ui.progress.hidden = true; }
    }
  }
  return state;
}
