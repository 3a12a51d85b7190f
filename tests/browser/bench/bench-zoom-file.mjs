// Measurement (not a test) of zooming and panning a whole file on the page (issue #58 "whole files too",
// BENCHMARKS.md "Session 41: whole files (#58)"):
//   node bench/bench-zoom-file.mjs [FILE] [--events N] [--pans N] [--rounds N] [--pages DIR,DIR]
// FILE: a trace the page opens whole (default tests/out/flat-x-<N/1e6>m.json, the 64-rank flat-X Chrome trace of
// lib/bigtrace.mjs with about N events, 30,000,000 unless --events says, written when missing: ~2 GB, within
// the page's stream budget of 32 M events). Each round opens the page in a fresh headless Chromium (WebGPU on
// SwiftShader), sets FILE on its file input (the load timed, with the page's log of its steps), then goes
// over one path: from the whole run 4x a step about the middle until a window of about one interval (the
// file's mean interval on its busiest rank), back out the same steps to the whole run, and N pans (10 % of the
// width, right then left) at the window of the path's middle step. A whole file's model is held by the page:
// an answer is the page's own work (no worker, no transfer): the frame's scene built (the rows' layout over
// the model) and issued; then SwiftShader rasterises it. One JSON line a move (lib/zoom.mjs fileZoomStep:
// sceneMs, drawMs, readyMs, changeToDrawnMs, changeToRasteredMs), then p50/p95/max per page.
// --pages: page builds compared in the same run, alternated round by round (as bench-zoom.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, openPage, waitReady, repoRoot, outDir } from '../lib/harness.mjs';
import { writeBigChromeTrace } from '../lib/bigtrace.mjs';
import { fileZoomStep, percentile as pct, contention } from '../lib/zoom.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => { const at = args.indexOf(name); return at >= 0 ? args.splice(at, 2)[1] : dflt; };
const pages = flag('--pages', '.').split(',');
const ROUNDS = Number(flag('--rounds', 1));
const PANS = Number(flag('--pans', 20));
const EVENTS = Number(flag('--events', 30_000_000));
// lib/bigtrace.mjs writes about 69 bytes an event in 100 MB, 70.4 in 2 GB (its timestamps grow longer).
const BYTES_PER_EVENT = 70.4;
let file = args[0] && path.resolve(args[0]);
if (!file) {
  file = path.join(outDir, `flat-x-${EVENTS / 1e6}m.json`);
  if (!fs.existsSync(file)) console.error(`# writing ${file}:`, JSON.stringify(await writeBigChromeTrace(file, EVENTS * BYTES_PER_EVENT)));
}
const out = (phase, o) => console.log(JSON.stringify({ phase, ...o }));
const load = () => os.loadavg().map((x) => +x.toFixed(2));

async function round(url, page0, r) {
  const { browser, page, problems } = await openPage('webgpu', `${url}${page0 === '.' ? '' : `${page0.replace(/\/?$/, '/')}`}`);
  const rows = [];
  try {
    const loads = await page.evaluate(() => window.weft.loads);
    const t0 = Date.now();
    await page.setInputFiles('#file-input', file);
    await waitReady(page, loads + 1, 1_800_000);
    const opened = Date.now() - t0;
    const info = await page.evaluate(() => ({ state: window.weft.state, errors: window.weft.errors, summary: window.weft.lastSummary, vs: window.weft.viewer.view_state(), log: window.weft.openLog }));
    if (info.state !== 'ready') throw new Error(`not loaded: ${JSON.stringify(info.errors)}`);
    const s = info.summary;
    out('load', { page: page0, round: r, file: path.relative(repoRoot, file), bytes: fs.statSync(file).size, intervals: s.intervals, locations: s.locations, openedMs: opened, loadavg: load(),
      worker: info.log && info.log.worker, pageMs: info.log && info.log.ready - info.log.received });
    const t0ns = info.vs.t0_ns;
    const span = info.vs.t1_ns - info.vs.t0_ns;
    const mid = t0ns + span / 2;
    // About one interval: the span over the intervals of the busiest rank (the path stops there).
    const oneInterval = span / (s.intervals / s.locations);
    const measure = async (kind, move) => {
      const res = await fileZoomStep(page, move);
      const row = { page: page0, round: r, kind, ...res };
      rows.push(row);
      out('step', row);
    };
    const c0 = contention();
    const moves = [];
    for (let w = span / 4; w >= oneInterval; w /= 4) moves.push({ op: 'range', a: mid - w / 2, b: mid + w / 2 });
    await measure('fit', { op: 'fit' });
    for (const m of moves) await measure('zoom in', m);
    for (const m of moves.slice(0, -1).reverse()) await measure('zoom out', m);
    await measure('zoom out', { op: 'fit' });
    await measure('zoom in', moves[Math.floor(moves.length / 2)]);
    for (let k = 0; k < PANS; k++) await measure('pan', { op: 'pan', frac: k % 2 ? -0.1 : 0.1 });
    const c1 = contention();
    if (problems.length) throw new Error(problems.join('; '));
    const timed = rows.filter((x) => x.kind !== 'fit');
    const stat = (key) => ({ p50: pct(timed.map((x) => x[key]), 50), p95: pct(timed.map((x) => x[key]), 95), max: pct(timed.map((x) => x[key]), 100) });
    out('summary', { page: page0, round: r, moves: timed.length, zoomSteps: moves.length, intervals: s.intervals, contention: [+c0.toFixed(1), +c1.toFixed(1)], loadavg: load(),
      sceneMs: stat('sceneMs'), drawMs: stat('drawMs'), readyMs: stat('readyMs'), changeToDrawnMs: stat('changeToDrawnMs'), changeToRasteredMs: stat('changeToRasteredMs') });
  } finally {
    await browser.close();
  }
}

const { server, url } = await startServer();
try {
  for (let r = 0; r < ROUNDS; r++) for (const p of r % 2 ? [...pages].reverse() : pages) await round(url, p, r);
} finally {
  server.close();
}
