// Measurement (not a test) of a store's zoom and pan answers on the page (issue #58, BENCHMARKS.md "Session 38:
// zoom latency"):
//   node tests/browser/bench/bench-zoom.mjs [STORE_DIR] [--pages DIR,DIR...] [--rounds N] [--pans N]
// STORE_DIR: a store under the repository (default: the generated 15 M-event store of store.test.mjs,
// tests/out/store-gen-20000000/store, generated and indexed when missing). --pages: page builds to compare in
// the same run, alternated round by round: `.` is this checkout's index.html and www/, another DIR one copied
// there (e.g. an older commit's index.html and www/ with its pkg*, served from tests/out/). Each round opens
// `?store=URL/` in a fresh headless Chromium (WebGPU on SwiftShader), then goes twice over one path: the zoom
// from the whole run to one interval about the middle (4x a step, until a few exact steps), back out to the
// whole run, and N pans (10 % of the width, right then left) at the path's first exact window. The first time
// over fetches tiles ("first"), the second finds every tile cached ("cached").
// Before each move the GPU process is let go idle, 2 s at most (SwiftShader rasterises frames on the CPU, and
// the next animation frame waits for it; a page that redraws every frame never idles). Prints a JSON line per step (`phase: "step"`): its kind, the window, `held`
// (drawn from the answer the page held: nothing asked), `changeToDrawnMs` (the view changed to the end of the
// animation frame that first draws the answer, measured the same way for any page build), `readyMs` (to the
// answer applied and its frame built and issued: without the wait for SwiftShader to rasterise the frame drawn
// at the change, the held answer stretched), `changeToRasteredMs`
// (to the GPU process idle again: that frame rasterised), `frame` (its scene's build and draw, Viewer.stats), and,
// where the page logs them (`weft.store.zoomLog`), the answer's steps (www/store.js `SPANS`: post, queue, plan,
// fetch, answer, transfer, apply, draw, present); then per page and pass (`phase: "summary"`) the p50, p95 and
// max of each.
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, repoRoot } from '../lib/harness.mjs';
import { generatedStore } from '../lib/store-gen.mjs';
import { zoomStep, percentile as pct } from '../lib/zoom.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : dflt;
};
const pages = flag('--pages', '.').split(',');
const ROUNDS = Number(flag('--rounds', 1));
const PANS = Number(flag('--pans', 20));
const store = path.resolve(args[0] || generatedStore().store);
const rel = path.relative(repoRoot, store);
const served = (p) => {
  const r = path.relative(repoRoot, path.resolve(repoRoot, p));
  if (r.startsWith('..')) throw new Error(`${p} is not under ${repoRoot}: link it there`);
  return r ? `${r}/` : '';
};
if (rel.startsWith('..')) throw new Error(`${store} is not under ${repoRoot}: link it there`);
const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
const out = (phase, o) => console.log(JSON.stringify({ phase, ...o }));
const note = (what) => console.error(`# ${new Date().toISOString()} ${what}`);
const TIMEOUT = 120_000;

async function round(server, url, page0, r) {
  const pageUrl = `${url}${served(page0)}index.html?store=${url}${rel}/`;
  const { browser, page, problems } = await openPage('webgpu', pageUrl);
  const results = [];
  try {
    await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: TIMEOUT });
    const span = manifest.span_ns;
    const mid = span / 2;
    const measure = async (pass, kind, move, windowNs) => {
      const res = await zoomStep(page, move);
      const e = res.entry;
      const row = { page: page0, round: r, pass, kind, windowNs: Math.round(windowNs), shown: res.shown, held: res.held, changeToDrawnMs: res.changeToDrawnMs, readyMs: res.readyMs, changeToRasteredMs: res.changeToRasteredMs, frame: res.frame,
        ...(e ? { id: e.id, fetchedTiles: e.fetchedTiles, plannedTiles: e.plannedTiles, prefetchedTiles: e.prefetchedTiles, answerKB: Math.round(e.answerBytes / 1024), applyTaskMs: e.applyTaskMs, applyTasks: e.applyTasks, applyStages: e.applyStages, inside: e.inside, steps: e.steps } : {}) };
      results.push(row);
      out('step', row);
      return res;
    };
    // The first time over: 4x a step about the middle until four exact steps (or a window of 1 us), each
    // step's tiles fetched; that path is then gone over again with every tile cached.
    const moves = [];
    let firstExact = null;
    for (let w = span / 4, exact = 0; w > 1000 && exact < 4; w /= 4) {
      const move = ['zoom in', { op: 'range', a: mid - w / 2, b: mid + w / 2 }, w];
      moves.push(move);
      if ((await measure('first', ...move)).shown === 'exact') {
        exact += 1;
        firstExact ??= [mid - w / 2, mid + w / 2];
      }
    }
    const rest = moves.slice(0, -1).reverse().map(([, m, w]) => ['zoom out', m, w]);
    rest.push(['zoom out', { op: 'fit' }, span]);
    // Pans at the path's first exact window (its largest exact answers), left then right.
    const at = firstExact || [mid - span / 8, mid + span / 8];
    rest.push(['pan', { op: 'range', a: at[0], b: at[1] }, at[1] - at[0]]);
    for (let k = 0; k < PANS; k++) rest.push(['pan', { op: 'pan', frac: k < PANS / 2 ? 0.1 : -0.1 }, at[1] - at[0]]);
    for (const move of rest) await measure('first', ...move);
    await zoomStep(page, { op: 'fit' });
    for (const move of [...moves, ...rest]) await measure('cached', ...move);
    if (problems.length) out('problems', { page: page0, problems });
  } finally {
    await browser.close();
  }
  return results;
}

const { server, url } = await startServer();
const all = [];
try {
  note(`store ${rel}: ${manifest.counts.event_records} event records, pages ${pages.join(', ')}`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of pages) {
      note(`round ${r + 1}, page ${p}`);
      all.push(...await round(server, url, p, r));
    }
  }
} finally {
  server.close();
}
for (const p of pages) {
  for (const pass of ['first', 'cached']) {
    const rows = all.filter((x) => x.page === p && x.pass === pass);
    const of = (f) => { const xs = rows.map(f); return { p50: pct(xs, 50), p95: pct(xs, 95), max: pct(xs, 100) }; };
    const keys = rows.find((x) => x.steps) ? Object.keys(rows.find((x) => x.steps).steps) : [];
    out('summary', {
      page: p, pass, answers: rows.length, events: manifest.counts.event_records, changeToDrawnMs: of((x) => x.changeToDrawnMs),
      readyMs: of((x) => x.readyMs), changeToRasteredMs: of((x) => x.changeToRasteredMs), heldShare: +(rows.filter((x) => x.held).length / Math.max(1, rows.length)).toFixed(2),
      // Tiles the asked moves' plans named, and of those the ones fetched then (the rest were cached: decoded
      // by an earlier move or fetched ahead in idle time).
      tilesPlanned: rows.reduce((n, x) => n + (x.plannedTiles || 0), 0), tilesFetched: rows.reduce((n, x) => n + (x.fetchedTiles || 0), 0),
      steps: Object.fromEntries(keys.map((k) => [k, of((x) => x.steps && x.steps[k])])),
      // p95 of changeToDrawnMs and of readyMs by kind of move.
      byKind: Object.fromEntries(['zoom in', 'zoom out', 'pan'].map((k) => [k, [pct(rows.filter((x) => x.kind === k).map((x) => x.changeToDrawnMs), 95),
        pct(rows.filter((x) => x.kind === k).map((x) => x.readyMs), 95)]])),
    });
  }
}
