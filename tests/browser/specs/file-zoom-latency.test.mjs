// A whole file's zoom and pan answers are drawn promptly (issue #58 "whole files too"): a 64-rank Chrome trace of
// 2 M events (lib/bigtrace.mjs, ~140 MB) is opened whole, then its view goes from the whole run 4x a step about
// the middle down to about one interval, back out to the whole run, and 8 pans at the path's middle window; each
// move is timed from the change to the end of the animation frame that drew it (lib/zoom.mjs `fileZoomStep`
// `changeToDrawnMs`: the page holds the model, so its frame is the answer; the GPU process is let go idle
// before each move, and SwiftShader's rasterising after is printed, not bounded). A timed test for gross regressions only, as
// specs/zoom-latency.test.mjs is for stores: it fails when the moves' p95 is over 4x the 200 ms budget, times the
// machine's contention (lib/zoom.mjs `contention`, the worse of before and after the moves). WEFT_TIMING=loose
// prints a failure of that bound instead. The figures for 30 M events live in BENCHMARKS.md ("Session 41: whole
// files (#58)", bench/bench-zoom-file.mjs). Always checked: each move draws the window asked, every rank's row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, outDir, screenshot } from '../lib/harness.mjs';
import { writeBigChromeTrace } from '../lib/bigtrace.mjs';
import { fileZoomStep, percentile, contention } from '../lib/zoom.mjs';

const BUDGET_MS = 200;
const LIMIT_MS = 4 * BUDGET_MS;
const EVENTS = Number(process.env.FILE_ZOOM_EVENTS || 2_000_000);
// PAGE_DIR (a folder under the repository with another build's index.html and www/): run on that page.
const PAGE_DIR = process.env.PAGE_DIR || '';

test('a whole file zoom or pan answer is drawn within 4x the 200 ms budget (p95)', { timeout: 600_000 }, async () => {
  const file = path.join(outDir, `file-zoom-${EVENTS}.json`);
  // About 69 bytes an event (lib/bigtrace.mjs).
  const written = await writeBigChromeTrace(file, EVENTS * 69.15);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', PAGE_DIR ? `${url}${PAGE_DIR.replace(/\/?$/, '/')}` : url);
  try {
    const loads = await page.evaluate(() => window.weft.loads);
    await page.setInputFiles('#file-input', file);
    await waitReady(page, loads + 1, 300_000);
    const summary = await page.evaluate(() => window.weft.lastSummary);
    assert.equal(summary.intervals, written.events, 'every event became an interval');
    const whole = await page.evaluate(() => window.weft.viewer.view_state());
    const span = whole.t1_ns - whole.t0_ns;
    const mid = whole.t0_ns + span / 2;
    const oneInterval = span / (written.events / written.ranks);
    const moves = [];
    for (let w = span / 4; w >= oneInterval; w /= 4) moves.push({ op: 'range', a: mid - w / 2, b: mid + w / 2 });
    assert.ok(moves.length >= 6, `a path of ${moves.length} steps`);
    const path_ = [...moves, ...moves.slice(0, -1).reverse(), { op: 'fit' }, moves[Math.floor(moves.length / 2)]];
    for (let k = 0; k < 8; k++) path_.push({ op: 'pan', frac: k % 2 ? -0.1 : 0.1 });

    const before = contention();
    const timed = [];
    for (const [k, move] of path_.entries()) {
      const res = await fileZoomStep(page, move);
      timed.push({ k, move, ...res });
      // The window asked is the window drawn (a pan keeps the width), and a row per rank is drawn.
      if (move.op === 'range') assert.ok(Math.abs(res.windowNs - (move.b - move.a)) <= 1e-6 * span, `move ${k}: window ${res.windowNs} for ${move.b - move.a}`);
      if (move.op === 'fit') assert.ok(Math.abs(res.windowNs - span) <= 1e-6 * span, `move ${k}: fit shows ${res.windowNs} of ${span}`);
      assert.ok(res.rects > 0, `move ${k} drew its intervals: ${JSON.stringify(res)}`);
    }
    const factor = Math.max(before, contention());
    const ready = timed.map((x) => x.readyMs);
    // Bounded: to the end of the animation frame that drew the move (the page's own frame callback, then
    // this one), which holds the page's JS as well as the Viewer's frame; no frame before it is still being
    // rasterised (the GPU process was idle at the change).
    const drawn = timed.map((x) => x.changeToDrawnMs);
    const p95 = percentile(drawn, 95);
    const limit = LIMIT_MS * factor;
    console.log(`# ${timed.length} moves on ${written.events} events (${moves.length} zoom steps to ${Math.round(oneInterval)} ns): drawn p50 ${percentile(drawn, 50)} ms, ` +
      `p95 ${p95} ms, max ${percentile(drawn, 100)} ms; the Viewer's frame (ready) p95 ${percentile(ready, 95)} ms (scene p95 ${percentile(timed.map((x) => x.sceneMs), 95)} ms); ` +
      `rasterised p95 ${percentile(timed.map((x) => x.changeToRasteredMs), 95)} ms; contention ${factor.toFixed(1)}: bound ${Math.round(limit)} ms`);
    const why = `p95 ${p95} ms over ${Math.round(limit)} ms (${LIMIT_MS} ms x contention ${factor.toFixed(1)}); the slowest: ${JSON.stringify(timed.filter((x) => x.changeToDrawnMs > limit))}`;
    if (process.env.WEFT_TIMING === 'loose') { if (p95 > limit) console.log(`# loose timing: ${why}`); } else assert.ok(p95 <= limit, why);

    const rows = await page.evaluate(() => window.weft.viewer.view_state().rows.length);
    assert.ok(rows >= written.ranks, `a row per rank: ${rows}`);
    await screenshot(page, 'file-zoom-latency');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(file, { force: true });
  }
});
