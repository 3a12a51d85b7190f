// Frames after the first draw of a large input (issue 16): rAF gaps over 50 ms after the load, main-thread long
// tasks, and each `Viewer::frame` that drew and each `resize`, relative to the moment the input was shown.
// Not a test; figures go in BENCHMARKS.md ("The engine in the worker").
//   node tests/browser/bench/bench-frame-gap.mjs FILE        (WEFT_PAGE_ROOT=DIR: another checkout's page)
import { startServer, openPage, waitReady } from '../lib/harness.mjs';
const file = process.argv[2];
const root = process.env.WEFT_PAGE_ROOT;
const { server, url } = await startServer(root ? { root } : {});
const { browser, page } = await openPage('webgpu', url);
await page.evaluate(() => {
  const w = window; w.__long = []; w.__frames = []; w.__loaded = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
  const tick = (t) => { w.__frames.push(t); requestAnimationFrame(tick); }; requestAnimationFrame(tick);
  w.weft.hooks.loaded.push(() => w.__loaded.push(performance.now()));
  w.__draws = []; w.__resizes = [];
  const v = w.weft.viewer; const fr = v.frame.bind(v); v.frame = () => { const t = performance.now(); const d = fr(); if (d) w.__draws.push([t, performance.now() - t]); return d; };
  const rs = v.resize.bind(v); v.resize = (...a) => { w.__resizes.push([performance.now(), ...a]); return rs(...a); };
  const iv = v.invalidate.bind(v); v.invalidate = () => { w.__resizes.push([performance.now(), 'invalidate']); return iv(); };
});
const t0 = await page.evaluate(() => performance.now());
await page.setInputFiles('#file-input', file);
await waitReady(page, 2, 600000);
await new Promise((r) => setTimeout(r, 2000));
const r = await page.evaluate((t0) => {
  const L = window.__loaded[0]; const f = window.__frames.filter((t) => t >= L);
  const gaps = []; for (let i = 1; i < f.length; i++) if (f[i] - f[i - 1] > 50) gaps.push([Math.round(f[i - 1] - L), Math.round(f[i] - f[i - 1])]);
  return { loadedAt: Math.round(L - t0), gapsAfterLoad_atMs_lenMs: gaps, long: window.__long.filter(([s]) => s >= t0).map(([s, d]) => [s - Math.round(L), d]), stats: window.weft.viewer.stats(), draws: window.__draws.filter(([t]) => t >= L).map(([t, d]) => [Math.round(t - L), Math.round(d)]), resizes: window.__resizes.filter(([t]) => t >= L - 10).map(([t, ...a]) => [Math.round(t - L), ...a]) };
}, t0);
console.log(JSON.stringify(r));
await browser.close(); server.close();
