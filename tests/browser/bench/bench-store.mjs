// Measurement (not a test) of a store opened on the page (issue #17, BENCHMARKS.md "A billion events"):
//   [BENCH_STEPS=N] [PARTICLE_SECONDS=S] [PARTICLE_STEP_NS=NS] node tests/browser/bench/bench-store.mjs STORE_DIR [CACHE_MB] [--whole TRACE]
// STORE_DIR (and TRACE) must lie under the repository (the harness serves it; a symlink to a store elsewhere
// will do). With --whole, the trace the store was indexed from (a file, or a .tar of an OTF2 archive) is then
// opened whole from its URL (`?trace=`) in a fresh browser, over the same zoom path: the side by side of
// BENCHMARKS.md "Opened whole vs from its store".
// Opens `?store=URL/` in headless Chromium (WebGPU on SwiftShader) and prints, one JSON line per phase:
// URL to first drawn view (from navigation and from the store's open), the zoom path from the whole run to one
// interval (each step's answer time, tiles and bytes fetched, the worker's wasm memory, the longest task
// applying the answer and in how many tasks), the worst `Viewer.frame` zooming and panning back over the same
// path with tiles cached (its scene's build and draw times) and the longest task applying an answer meanwhile,
// the particles alive each second of playback at the default speed, and the tab's memory: the store worker's wasm memory, the page's wasm memory and JS heap, and the resident
// memory (VmRSS, VmHWM) of the renderer and GPU processes this script's Chromium started. Unlike store.test.mjs it copies nothing (its fault
// cases copy the store twice, too much for a store of several GB) and asserts nothing.
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, repoRoot, viewState } from '../lib/harness.mjs';
import { chromiumMemory } from '../lib/bench.mjs';

const args = process.argv.slice(2);
const wholeAt = args.indexOf('--whole');
const wholeArg = wholeAt >= 0 ? args.splice(wholeAt, 2)[1] : null;
const [storeArg, cacheArg] = args;
const CACHE_MB = Number(cacheArg || 256);
if (!storeArg || (wholeAt >= 0 && !wholeArg)) {
  console.error('usage: node bench-store.mjs STORE_DIR [CACHE_MB] [--whole TRACE]');
  process.exit(2);
}
const served = (p) => {
  const rel = path.relative(repoRoot, path.resolve(p));
  if (rel.startsWith('..')) {
    console.error(`${path.resolve(p)} is not under ${repoRoot}: link it there`);
    process.exit(2);
  }
  return rel;
};
const store = path.resolve(storeArg);
const rel = served(store);
const wholeRel = wholeArg ? served(wholeArg) : null;
const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
const STEP_TIMEOUT = 600_000;
const out = (phase, o) => console.log(JSON.stringify({ phase, ...o }));
const note = (what) => console.error(`# ${new Date().toISOString()} ${what}`);

const frames = (page, n = 2) => page.evaluate((n) => new Promise((r) => {
  let k = 0;
  const step = () => (++k >= n ? r() : requestAnimationFrame(step));
  requestAnimationFrame(step);
}), n);

// The page's own wasm memory (its module's exports: init returns the instance it made), in MB.
const pageWasmMB = (page) => page.evaluate(async () => {
  const m = await import(new URL('www/pkg/weft.js', location.href).href);
  return Math.round((await m.default()).memory.buffer.byteLength / 2 ** 20);
});

async function settled(page, problems = []) {
  await frames(page, 2);
  const t = Date.now();
  for (;;) {
    const s = await page.evaluate(() => {
      const s = window.weft.store;
      return { asked: s.asked, answered: s.answered, last: !!s.last, inFlight: window.weft.viewer.view_state().store.in_flight,
        errors: window.weft.errors.slice(-2) };
    });
    if (s.last && s.asked === s.answered && s.inFlight === 0) break;
    if (Date.now() - t > STEP_TIMEOUT) throw new Error(`not settled: ${JSON.stringify(s)}`);
    if ((Date.now() - t) % 10_000 < 100) note(`waiting: ${JSON.stringify(s)} ${problems.join('; ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await frames(page, 2);
}

const { server, url } = await startServer();
const t0 = Date.now();
const path0 = [];
note('opening the page');
const { browser, page, problems } = await openPage('webgpu', `${url}?store_cache_mb=${CACHE_MB}&store=${url}${rel}/`);
try {
  note('page loaded');
  await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: STEP_TIMEOUT });
  note('first answer');
  await settled(page, problems);
  note('settled');
  const open = await page.evaluate(() => ({ ...window.weft.store.timings, last: window.weft.store.last }));
  out('open', {
    store: rel, events: manifest.counts.event_records, intervals: manifest.counts.intervals, tiles: manifest.tiles.length,
    locations: manifest.locations.process.length, tiling: manifest.tiling, levels: manifest.levels.length, cacheMB: CACHE_MB,
    manifestMs: Math.round(open.manifest), firstDrawnMs: Math.round(open.firstDrawn),
    // performance.now() counts from the navigation: the page's own load, then the store's open.
    navigationToFirstDrawnMs: Math.round(open.start + open.firstDrawn), scriptWallMs: Date.now() - t0,
    level: open.last.level, kind: open.last.kind, fetchedTiles: open.last.fetchedTiles, fetchedMB: +(open.last.fetchedBytes / 2 ** 20).toFixed(1),
    wasmMB: Math.round(open.last.wasmBytes / 2 ** 20), memory: chromiumMemory(),
  });

  // The zoom path of store.test.mjs: about the middle, 4x a step, until the exact intervals show and the
  // window is down to a few intervals (at most BENCH_STEPS steps).
  const mid = manifest.span_ns / 2;
  let w = manifest.span_ns;
  let exactSteps = 0;
  const maxSteps = Number(process.env.BENCH_STEPS || 64);
  while (w > 1000 && exactSteps < 4 && path0.length < maxSteps) {
    w /= 4;
    path0.push([mid - w / 2, mid + w / 2]);
    const t = Date.now();
    await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [mid - w / 2, mid + w / 2]);
    await settled(page, problems);
    const st = await viewState(page);
    const last = await page.evaluate(() => window.weft.store.last);
    if (st.store.shown === 'exact') exactSteps += 1;
    out('zoom', {
      windowNs: Math.round(w), shown: st.store.shown, answerMs: Date.now() - t, fetchedTiles: last.fetchedTiles,
      fetchedMB: +(last.fetchedBytes / 2 ** 20).toFixed(1), cacheMB: +(last.cacheUsed / 2 ** 20).toFixed(1), cacheTiles: last.cacheTiles,
      wasmMB: Math.round(last.wasmBytes / 2 ** 20), errors: last.errors.length, answerMB: +(last.bytes / 2 ** 20).toFixed(1),
      applyMs: +last.applyMs.toFixed(1), applySteps: last.applySteps, pageWasmMB: await pageWasmMB(page), tab: chromiumMemory().tab,
    });
  }

  // Back out, then the same path again with pans: the worst Viewer.frame over tiles cached (the worker's
  // answers arrive between frames; what the page does per frame is what is timed).
  await page.evaluate(() => window.weft.viewer.fit());
  await settled(page, problems);
  await page.evaluate(() => { window.weft.store.worstApply = null; });
  const worst = await page.evaluate(async (path0) => {
    const v = window.weft.viewer;
    let worst = 0;
    let worstStats = null;
    const gaps = [];
    let last = performance.now();
    const frame = () => new Promise((r) => requestAnimationFrame(() => { const t = performance.now(); gaps.push(t - last); last = t; r(); }));
    const timed = (move, step, pan) => {
      const t = performance.now();
      move();
      v.frame();
      const ms = performance.now() - t;
      if (ms > worst) { worst = ms; worstStats = { ...v.stats(), step, pan, shown: window.weft.store.last && window.weft.store.last.t1 - window.weft.store.last.t0 }; }
    };
    for (const [s, [a, b]] of path0.entries()) {
      timed(() => v.set_time_range(a, b), s, 0);
      await frame();
      for (let k = 0; k < 4; k++) {
        timed(() => v.pan(40), s, k + 1);
        await frame();
      }
    }
    return { worstFrameMs: worst, worstStats, worstGapMs: Math.max(...gaps) };
  }, path0);
  await settled(page, problems);
  const last = await page.evaluate(() => window.weft.store.last);
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
  out('cached', {
    worstFrameMs: +worst.worstFrameMs.toFixed(1), worstRafGapMs: +worst.worstGapMs.toFixed(1),
    // The worst frame's split (Viewer.stats: the scene built, then drawn) and the longest answer applied
    // (Viewer.store_answer: decoding the answer and building what draws it) while the frames were timed.
    worstFrame: worst.worstStats && { buildMs: +worst.worstStats.build_ms.toFixed(1), drawMs: +worst.worstStats.draw_ms.toFixed(1),
      rects: worst.worstStats.rects, lines: worst.worstStats.lines, labels: worst.worstStats.labels,
      pathStep: worst.worstStats.step, pan: worst.worstStats.pan, answeredNs: worst.worstStats.shown },
    worstApply: await page.evaluate(() => window.weft.store.worstApply),
    cacheMB: +(last.cacheUsed / 2 ** 20).toFixed(1), cacheBudgetMB: last.cacheBudget / 2 ** 20, cacheTiles: last.cacheTiles,
    workerWasmMB: Math.round(last.wasmBytes / 2 ** 20), pageWasmMB: await pageWasmMB(page), pageJsHeapMB: Math.round(heap / 2 ** 20), memory: chromiumMemory(),
    problems,
  });

  // Particles: the store's playback at its default speed for PARTICLE_SECONDS, the particles alive each
  // second and the long tasks (over 50 ms) meanwhile.
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(Math.round(e.duration)); }).observe({ type: 'longtask' });
  });
  await page.click('#views button[data-view="particles"]');
  await frames(page, 2);
  // PARTICLE_STEP_NS: another step (e.g. the whole run in 20 s, the default before the live budget).
  if (process.env.PARTICLE_STEP_NS) await page.evaluate((v) => window.weft.viewer.configure('step_ns', v), process.env.PARTICLE_STEP_NS);
  await page.click('button:has-text("Play")'); // the page's button: it starts the frame loop that ticks playback
  const alive = [];
  for (let s = 0; s < Number(process.env.PARTICLE_SECONDS || 8); s++) {
    await new Promise((r) => setTimeout(r, 1000));
    alive.push(await page.evaluate(() => window.weft.viewer.view_state().particles));
  }
  const ps = await page.evaluate(() => ({ st: window.weft.viewer.view_state(), long: window.__longTasks,
    last: window.weft.store.last, heap: performance.memory ? performance.memory.usedJSHeapSize : 0 }));
  out('particles', {
    speed: ps.st.speed, step_ns: ps.st.step_ns, tNs: ps.st.t_ns, aliveEachSecond: alive, longTasksMs: ps.long,
    // Where the tab's memory is while particles play: the worker's cache and wasm memory (the last answer's
    // figures), the page's wasm memory and JS heap, the last particle slice's bytes.
    cacheMB: ps.last && +(ps.last.cacheUsed / 2 ** 20).toFixed(1), cacheTiles: ps.last && ps.last.cacheTiles,
    sliceMB: ps.last && +(ps.last.bytes / 2 ** 20).toFixed(1), workerWasmMB: ps.last && Math.round(ps.last.wasmBytes / 2 ** 20),
    pageWasmMB: await pageWasmMB(page), pageJsHeapMB: Math.round(ps.heap / 2 ** 20),
    memory: chromiumMemory(), problems,
  });
} finally {
  await browser.close();
  if (!wholeRel) server.close();
}

// The same trace opened whole: download, read in the worker, decode on the page, first view drawn; then the
// same zoom path's frames (all of it in memory, so nothing to wait for between steps), and the tab's memory.
if (wholeRel) {
  const t1 = Date.now();
  note(`opening ${wholeRel} whole`);
  const whole = await openPage('webgpu', `${url}?trace=${url}${wholeRel}`);
  try {
    await whole.page.waitForFunction(() => window.weft.loads >= 1 || window.weft.state === 'error', null, { timeout: STEP_TIMEOUT });
    await frames(whole.page, 2);
    const opened = await whole.page.evaluate(() => ({ shownMs: performance.now(), state: window.weft.state, summary: window.weft.lastSummary,
      heap: performance.memory ? performance.memory.usedJSHeapSize : 0 }));
    if (opened.state === 'error') throw new Error(`${wholeRel} did not open: ${JSON.stringify(whole.problems)}`);
    out('whole-open', {
      trace: wholeRel, bytes: fs.statSync(path.join(repoRoot, wholeRel)).size, intervals: opened.summary.intervals,
      navigationToFirstDrawnMs: Math.round(opened.shownMs), scriptWallMs: Date.now() - t1,
      pageJsHeapMB: Math.round(opened.heap / 2 ** 20), memory: chromiumMemory(),
    });
    const worst = await whole.page.evaluate(async (path0) => {
      const v = window.weft.viewer;
      let worst = 0;
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      for (const [a, b] of path0) {
        for (let k = 0; k < 5; k++) {
          const t = performance.now();
          if (k === 0) v.set_time_range(a, b); else v.pan(40);
          v.frame();
          worst = Math.max(worst, performance.now() - t);
          await frame();
        }
      }
      return worst;
    }, path0);
    out('whole-zoom', { steps: path0.length, worstFrameMs: +worst.toFixed(1), memory: chromiumMemory(), problems: whole.problems });
  } finally {
    await whole.browser.close();
    server.close();
  }
}
