// A store's zoom and pan answers are drawn promptly once their tiles are cached (issue #58): over the zoom path
// from the whole run to a few exact windows about the middle, back out, and pans at the first exact window, gone
// over twice (the second time every tile is cached), each move is timed from the change to its answer applied
// and the frame drawing it built and issued (lib/zoom.mjs `readyMs`; the GPU process is let go idle before each
// move, and the wait for SwiftShader to rasterise the frame drawn at the change, the held view stretched, is a
// GPU's cost, not the answer's: both are printed). A timed test for gross regressions only: it fails when the
// cached moves' p95 is over 4x the 200 ms budget, times the machine's contention (wall over CPU time of a
// busy loop, as specs/longtask.test.mjs measures it: 1 idle, about the runnable threads per core when loaded),
// the worse of before and after the moves. WEFT_TIMING=loose prints a failure of that bound instead. The
// figures themselves live in BENCHMARKS.md ("Session 38: zoom latency", bench/bench-zoom.mjs). Always checked:
// pans and zooms inside the exact answer held are drawn from it without asking the worker, exactly, with marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, repoRoot, screenshot } from '../lib/harness.mjs';
import { generatedStore } from '../lib/store-gen.mjs';
import { zoomStep, percentile, contention } from '../lib/zoom.mjs';

const BUDGET_MS = 200;
const LIMIT_MS = 4 * BUDGET_MS;

test('a cached zoom or pan answer is drawn within 4x the 200 ms budget (p95)', { timeout: 900_000 }, async () => {
  const { store } = generatedStore(Number(process.env.STORE_EVENTS || 20_000_000));
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, store)}/`);
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 120_000 });
    const span = manifest.span_ns;
    const mid = span / 2;
    const moves = [];
    // What each move drew the first time over (a view asked again is drawn from its answer held).
    const firstShown = [];
    let first = null;
    for (let w = span / 4, exact = 0; w > 1000 && exact < 3; w /= 4) {
      const move = { op: 'range', a: mid - w / 2, b: mid + w / 2 };
      moves.push(move);
      const res = await zoomStep(page, move);
      firstShown.push(res.shown);
      if (res.shown === 'exact') {
        exact += 1;
        first ??= move;
      }
    }
    assert.ok(first, 'zoomed in far enough, the exact intervals are drawn');
    const rest = [...moves.slice(0, -1).reverse(), { op: 'fit' }, first];
    for (let k = 0; k < 8; k++) rest.push({ op: 'pan', frac: k < 4 ? 0.2 : -0.2 });
    for (const move of rest) firstShown.push((await zoomStep(page, move)).shown);
    await zoomStep(page, { op: 'fit' });

    // Every tile cached now: the same moves again, timed.
    const before = contention();
    const timed = [];
    for (const [k, move] of [...moves, ...rest].entries()) {
      const res = await zoomStep(page, move);
      const fetched = res.entry ? res.entry.fetchedTiles : 0;
      timed.push({ move, ms: res.readyMs, drawnMs: res.changeToDrawnMs, held: res.held, shown: res.shown, fetched, steps: res.entry && res.entry.steps });
      // Drawn from the exact answer held, or from the summary grid answered before for this very view.
      if (res.held) assert.ok(res.shown === 'exact' || res.shown === firstShown[k], `move ${k}: ${res.shown}, first ${firstShown[k]}`);
    }
    const factor = Math.max(before, contention());
    const ms = timed.map((x) => x.ms);
    const drawn = timed.map((x) => x.drawnMs);
    const p95 = percentile(ms, 95);
    const limit = LIMIT_MS * factor;
    console.log(`# ${timed.length} cached moves on ${manifest.counts.event_records} events, ${timed.filter((x) => x.held).length} drawn from the answer held; ` +
      `ready p50 ${percentile(ms, 50)} ms, p95 ${p95} ms, max ${percentile(ms, 100)} ms; to the frame drawn (with SwiftShader's wait) p50 ${percentile(drawn, 50)} ms, ` +
      `p95 ${percentile(drawn, 95)} ms; contention ${factor.toFixed(1)}: bound ${Math.round(limit)} ms`);
    assert.ok(timed.every((x) => x.fetched === 0), `every tile cached: ${JSON.stringify(timed.filter((x) => x.fetched))}`);
    assert.ok(timed.some((x) => x.held), 'zooms and pans inside the exact answer held are drawn without asking the worker');
    const why = `p95 ${p95} ms over ${Math.round(limit)} ms (${LIMIT_MS} ms x contention ${factor.toFixed(1)}); the slowest: ${JSON.stringify(timed.filter((x) => x.ms > limit))}`;
    if (process.env.WEFT_TIMING === 'loose') { if (p95 > limit) console.log(`# loose timing: ${why}`); } else assert.ok(p95 <= limit, why);

    // Zoomed in inside the answer held: drawn from it, with marks (the screenshot is for a person to look at).
    const zoomed = await zoomStep(page, { op: 'range', a: mid - span / 512, b: mid + span / 512 });
    assert.ok(zoomed.held && zoomed.shown === 'exact', JSON.stringify(zoomed));
    const stats = await page.evaluate(() => window.weft.viewer.stats());
    assert.ok(stats.marks > 0, `the zoomed view draws marks: ${JSON.stringify(stats)}`);
    await screenshot(page, 'zoom-latency-held');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
