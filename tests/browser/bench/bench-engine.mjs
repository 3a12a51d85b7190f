// Main-thread time the page spends on what the worker sends (issue 16), in the real page (headless chromium,
// WebGPU build): each `Viewer` call wrapped with performance.now() — loading (decode + first pane), and the
// first showing of each other view — plus the bytes that crossed, the scene build of a frame of the view, and
// a worker round trip of a frame-sized scene (the alternative to building scenes on the page). Views are
// opened as the page's tabs open them (`begin_view`, then `load_step` until done, yielding between: the
// particle index of a large trace is built in steps). Not a test;
// figures go in BENCHMARKS.md ("The engine in the worker").
//   node tests/browser/bench/bench-engine.mjs FILE...    (a folder for an OTF2 archive)
//   WEFT_PAGE_ROOT=/work/main node tests/browser/bench/bench-engine.mjs FILE...   (another checkout's page)
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady } from '../lib/harness.mjs';

const files = process.argv.slice(2);
if (!files.length || !files.every((f) => fs.existsSync(f))) {
  console.error('usage: bench-engine.mjs FILE...');
  process.exit(2);
}
const root = process.env.WEFT_PAGE_ROOT;
const { server, url } = await startServer(root ? { root } : {});
const { browser, page } = await openPage('webgpu', url);
// Calls of the stepped load summed into one line per name (the longest, how many, the total).
const summary = (calls) => {
  const out = [];
  for (const c of calls) {
    const same = (['receive_part', 'load_step'].includes(c.name) || c.name.startsWith('view_step')) && out.find((o) => o.name === c.name);
    if (same) { same.n += 1; same.total += c.ms; same.ms = Math.max(same.ms, c.ms); } else out.push({ ...c, n: 1, total: c.ms });
  }
  return out;
};
const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
try {
  await page.evaluate(() => {
    const v = window.weft.viewer;
    window.__calls = [];
    // `receive_part` and `load_step`: the stepped load (one task each, the page yields between them).
    for (const name of ['load', 'load_grains', 'receive_part', 'load_step', 'set_view']) {
      if (!v[name]) continue;
      const orig = v[name].bind(v);
      v[name] = (...args) => {
        const t0 = performance.now();
        try { return orig(...args); } finally {
          if (!window.__inView) window.__calls.push({ name, arg: typeof args[0] === 'string' ? args[0] : '', ms: performance.now() - t0 });
        }
      };
    }
    window.__bytes = [];
    window.weft.hooks.loaded.push((msg) => window.__bytes.push({
      model: msg.model.byteLength, aggregation: msg.aggregation ? msg.aggregation.byteLength : 0,
      moments: msg.moments ? msg.moments.byteLength : 0,
    }));
  });
  let loads = 1;
  for (const f of files) {
    await page.evaluate(() => { window.__calls.length = 0; });
    const t0 = Date.now();
    await page.setInputFiles(fs.statSync(f).isDirectory() ? '#folder-input' : '#file-input', f);
    await waitReady(page, ++loads, 600_000);
    const firstViewMs = Date.now() - t0;
    const scenes = {};
    for (const v of await page.evaluate(() => window.weft.viewer.views())) {
      // As a tab does: a view that would be one long task is built in steps (`begin_view`, then
      // `load_step`, one task each), as `switchViewStepped` in app.js runs it.
      await page.evaluate(async (v) => {
        const viewer = window.weft.viewer;
        if (!viewer.begin_view) { viewer.set_view(v); return; }
        window.__inView = true;
        const t0 = performance.now();
        let stepped = viewer.begin_view(v);
        window.__calls.push({ name: 'begin_view', arg: v, ms: performance.now() - t0 });
        while (stepped) {
          await new Promise((r) => setTimeout(r, 0));
          const t = performance.now();
          stepped = viewer.load_step();
          window.__calls.push({ name: `view_step ${v}`, arg: '', ms: performance.now() - t });
        }
        window.__inView = false;
      }, v);
      const ms = [];
      for (let i = 0; i < 5; i++) {
        await page.evaluate(() => window.weft.viewer.invalidate());
        await frame();
        ms.push(await page.evaluate(() => window.weft.viewer.stats().build_ms));
      }
      scenes[v] = ms.sort((a, b) => a - b)[2];
    }
    const r = await page.evaluate(() => ({ calls: window.__calls, bytes: window.__bytes[window.__bytes.length - 1] }));
    const round = (x) => Math.round(x * 10) / 10;
    console.log(JSON.stringify({
      file: path.basename(f), drop_to_first_view_ms: firstViewMs, bytes: r.bytes,
      main_thread_ms: summary(r.calls).map((c) => `${c.name}${c.arg ? ` ${c.arg}` : ''}: ${round(c.ms)}` +
        (c.n > 1 ? ` (longest of ${c.n}, ${round(c.total)} in all)` : '')),
      scene_build_median_ms: Object.fromEntries(Object.entries(scenes).map(([k, v]) => [k, round(v)])),
    }));
  }
  // A worker round trip carrying a scene of 5,000 rects and 2,000 lines (32-byte instances, transferred).
  const trip = await page.evaluate(async () => {
    const src = 'onmessage = (e) => { const b = new ArrayBuffer(e.data * 32); postMessage(b, [b]); };';
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const once = () => new Promise((res) => { const t0 = performance.now(); w.onmessage = () => res(performance.now() - t0); w.postMessage(7000); });
    const ms = [];
    for (let i = 0; i < 21; i++) ms.push(await once());
    w.terminate();
    return ms.sort((a, b) => a - b)[10];
  });
  console.log(JSON.stringify({ worker_round_trip_median_ms: Math.round(trip * 100) / 100 }));
} finally {
  await browser.close();
  server.close();
}
