// Measurement (not a test) of a store of many locations on the page (issue #17, BENCHMARKS.md "Session 34"):
//   node tests/browser/bench/bench-store-ranks.mjs STORE_DIR
// STORE_DIR must lie under the repository (a symlink under tests/out will do). Opens `?store=URL/` in headless
// Chromium (WebGPU on SwiftShader), then prints, for each phase (after the first view: the store's opening
// itself, before the script's observer, is not timed; the timeline zoomed three wheel
// steps; each other tab opened, Utilization & moments zoomed the same way), the main thread's long tasks with the
// `Viewer` calls inside them and every call of 5 ms or more (each method of the wasm Viewer wrapped and timed, as
// longtask.test.mjs does), and writes a screenshot of each tab to tests/out/bench-store-ranks-*.png. Asserts nothing.
import path from 'node:path';
import { startServer, openPage, repoRoot, screenshot } from '../lib/harness.mjs';
const rel = path.relative(repoRoot, path.resolve(process.argv[2]));
const { server, url } = await startServer({});
const t0 = Date.now();
const { browser, page, problems } = await openPage('webgpu', `${url}?store=${url}${rel}/`);
const observe = () => page.evaluate(() => {
  const w = window; w.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push({ start: e.startTime, ms: e.duration }); })
    .observe({ type: "longtask", buffered: true }); w.__t0 = performance.now();
  w.__calls = [];
  const proto = Object.getPrototypeOf(w.weft.viewer);
  for (const name of Object.getOwnPropertyNames(proto)) {
    const f = proto[name];
    if (name === 'constructor' || typeof f !== 'function') continue;
    proto[name] = function (...a) { const t = performance.now(); try { return f.apply(this, a); } finally { const ms = performance.now() - t; if (ms >= 5) w.__calls.push({ name, start: t, ms }); } };
  }
});
const report = async (label) => {
  const r = await page.evaluate(() => { const out = { long: window.__long.filter((e) => e.start >= (window.__t0 || 0)).map((e) => ({ ...e, calls: window.__calls.filter((c) => c.start >= e.start - 1 && c.start + c.ms <= e.start + e.ms + 1).map((c) => `${c.name} ${Math.round(c.ms)}`) })), calls: window.__calls.map((c) => `${c.name} ${Math.round(c.ms)}`) }; window.__long = []; window.__calls = []; return out; });
  console.log(`${label}: long tasks ${r.long.map((e) => `${Math.round(e.ms)} ms [${e.calls.join(', ')}]`).join('; ') || 'none'}; calls>=5ms: ${r.calls.join(', ')}`);
};
const settle = async () => {
  await page.waitForFunction(() => { const s = window.weft.store; return s && s.answers >= 1 && s.asked === s.answered; }, null, { timeout: 300_000 });
  await page.waitForTimeout(800);
};
try {
  await observe();
  await settle();
  console.log(`first view after ${Date.now() - t0} ms (incl. browser start)`);
  await report('open');
  await screenshot(page, 'bench-store-ranks-timeline');
  const views = await page.evaluate(() => window.weft.viewer.views());
  console.log('views', views.join(','));
  for (const v of views) {
    await page.click(`button[data-view="${v}"]`);
    await page.waitForFunction((v) => window.weft.viewer.view() === v, v, { timeout: 120_000 });
    await page.waitForTimeout(1500);
    await report(`tab ${v}`);
    await screenshot(page, `bench-store-ranks-${v}`);
    if (v !== 'particles') {
      await page.mouse.move(640, 360);
      for (let i = 0; i < 3; i++) { await page.mouse.wheel(0, -300); await page.waitForTimeout(400); }
      await page.waitForTimeout(1500);
      await report(`  zoomed ${v}`);
    }
  }
  console.log('problems', problems);
} finally { await browser.close(); server.close(); }
