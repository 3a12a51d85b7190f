// Measurement (not a test) of comparing two stores on the page (issue #54, BENCHMARKS.md "Session 41: comparing
// two stores"):
//   node tests/browser/bench/bench-compare-stores.mjs STORE_A STORE_B [RUNS]
// STORE_A and STORE_B must lie under the repository (the harness serves it; a symlink to a store elsewhere
// will do). In headless Chromium (WebGPU on SwiftShader), RUNS times (default 2) each, a fresh browser each time:
//   one: `?store=A/` alone, time from navigation to its first view drawn;
//   two: `?store=A/&compare=B/`, time from navigation to both drawn (each store's first view), and to the
//        comparison's table shown (each store's side from its tiles, paired);
// and after each, once settled (SETTLE_MS, default 8 s), the tab's memory (the renderer's VmRSS and VmHWM, lib/bench.mjs) and each store worker's
// decoded-tile cache (used and budget) and wasm memory. Prints one JSON line per run and the best.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../lib/harness.mjs';
import { withPage, tabMemory } from '../lib/bench.mjs';

const [aArg, bArg, runsArg] = process.argv.slice(2);
if (!aArg || !bArg) {
  console.error('usage: node bench-compare-stores.mjs STORE_A STORE_B [RUNS]');
  process.exit(2);
}
const RUNS = Number(runsArg || 2);
const SETTLE_MS = Number(process.env.SETTLE_MS || 8000);
const served = (p) => {
  const rel = path.relative(repoRoot, path.resolve(p));
  if (rel.startsWith('..')) { console.error(`${path.resolve(p)} is not under ${repoRoot}: link it there`); process.exit(2); }
  return rel;
};
const [relA, relB] = [served(aArg), served(bArg)];
const manifest = JSON.parse(fs.readFileSync(path.join(path.resolve(aArg), 'manifest.json'), 'utf8'));

/** A store client's figures (store.js): when its first view was drawn (ms from navigation) and its cache. */
const figures = (s) => s && s.last && ({
  drawnMs: Math.round(s.timings.start + s.timings.firstDrawn),
  cacheUsedMB: +(s.last.cacheUsed / 2 ** 20).toFixed(1), cacheBudgetMB: s.last.cacheBudget / 2 ** 20,
  workerWasmMB: Math.round(s.last.wasmBytes / 2 ** 20),
});

async function once(two) {
  const address = (url) => `${url}?store=${url}${relA}/${two ? `&compare=${url}${relB}/` : ''}`;
  return withPage(address, async ({ page, problems }) => {
    await page.waitForFunction((two) => {
      const w = window.weft;
      const drawn = (s) => s && s.timings && s.timings.firstDrawn > 0;
      return w.state === 'error' || (drawn(w.store) && (!two || drawn(w.compare.storeB)));
    }, two, { timeout: 600_000 });
    const out = { two };
    if (two) {
      await page.waitForFunction(() => window.weft.compare.comparison || window.weft.state === 'error', null, { timeout: 600_000 });
      out.tableMs = Math.round(await page.evaluate(() => performance.now()));
    }
    // The tiles in flight and the idle prefetch (StoreSession.prefetch) settle, then the memory is read.
    await page.waitForTimeout(SETTLE_MS);
    const f = await page.evaluate(() => ({ a: window.weft.store, b: window.weft.compare.storeB }));
    out.a = figures(f.a);
    if (two) out.b = figures(f.b);
    out.drawnMs = Math.max(out.a.drawnMs, two ? out.b.drawnMs : 0);
    return { ...out, ...tabMemory(), problems };
  });
}

const results = { one: [], two: [] };
for (let r = 0; r < RUNS; r++) {
  for (const two of [false, true]) {
    const x = await once(two);
    results[two ? 'two' : 'one'].push(x);
    console.log(JSON.stringify({ run: r, ...x }));
  }
}
const best = (xs, key) => Math.min(...xs.map((x) => x[key]).filter(Number.isFinite));
const one = { drawn: best(results.one, 'drawnMs'), hwm: best(results.one, 'tabHwmMB'), rss: best(results.one, 'tabRssMB') };
const two = { drawn: best(results.two, 'drawnMs'), table: best(results.two, 'tableMs'), hwm: best(results.two, 'tabHwmMB'), rss: best(results.two, 'tabRssMB') };
console.log(JSON.stringify({ stores: [relA, relB], events: manifest.counts.event_records, tiles: manifest.tiles.length, one, two,
  drawnRatio: +(two.drawn / one.drawn).toFixed(2), hwmRatio: +(two.hwm / one.hwm).toFixed(2), rssRatio: +(two.rss / one.rss).toFixed(2) }));
