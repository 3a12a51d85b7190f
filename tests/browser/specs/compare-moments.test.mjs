// The compare panel's moments tab in the moment view's glyphs, and the shared axis in aligned time (issue #54),
// on Chrome runs whose difference is known by construction: 4 threads of 5 iterations of
// [compute > kernel, exchange], where in run B thread 2's kernel takes twice as long. The picture (drawn by
// scene::moments_diff in B's worker) has a row per pair of threads; B's bar is red only on thread 2's row
// (pixels looked at where the answer's row is), and the hover names thread 2's change of m0 (+5 ms). Aligned at
// kernel's 2nd instance, both timelines' axes read aligned time: each Viewer holds its run's origin (the
// comparison's `windows`), its exported scene says where 0 lies in its own time and labels time before it
// negative; back at the start, both read their own time. Screenshots: tests/out/compare-moments-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, screenshot, repoRoot, outDir } from '../lib/harness.mjs';
import { decodePng } from '../lib/png.mjs';

const THREADS = 4, ITERATIONS = 5, SLOW = 2;

/** `kernelMs(t)`: thread t's kernel in ms (compute's own time is 0.2 ms, exchange 50 µs). */
function chromeRun(kernelMs) {
  const events = [];
  for (let t = 0; t < THREADS; t++) {
    const k = kernelMs(t) * 1000, own = 200, x = 50, it = own + k + x;
    events.push({ name: 'main', ph: 'X', pid: 1, tid: t, ts: 0, dur: ITERATIONS * it });
    for (let i = 0; i < ITERATIONS; i++) {
      const at = i * it;
      events.push({ name: 'compute', ph: 'X', pid: 1, tid: t, ts: at, dur: own + k });
      events.push({ name: 'kernel', ph: 'X', pid: 1, tid: t, ts: at + own, dur: k });
      events.push({ name: 'exchange', ph: 'X', pid: 1, tid: t, ts: at + own + k, dur: x });
    }
  }
  return JSON.stringify({ traceEvents: events });
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
const compared = (page, names) => page.waitForFunction(([a, b]) => {
  const s = window.weft.compare;
  return s && s.on && s.comparison && s.names.a === a && s.names.b === b;
}, names, { timeout: 60_000 });

test('compare moments: glyphs of A and B with the change coloured, and the axis in aligned time', { timeout: 600_000 }, async () => {
  const dir = path.join(outDir, 'compare-moments');
  fs.mkdirSync(dir, { recursive: true });
  const a = path.join(dir, 'a.json'), b = path.join(dir, 'b.json');
  fs.writeFileSync(a, chromeRun(() => 1));
  fs.writeFileSync(b, chromeRun((t) => (t === SLOW ? 2 : 1)));
  const { server, url } = await startServer();
  const rel = (p) => `/${path.relative(repoRoot, p)}`;
  const { browser, page, problems } = await openPage('webgpu', `${url}?trace=${rel(a)}&compare=${rel(b)}&ctab=moments`, { width: 1280, height: 1000 });
  try {
    await compared(page, ['a.json', 'b.json']);
    await page.waitForFunction(() => { const i = document.getElementById('compare-moments-img'); return i && i.complete && i.naturalWidth > 0; }, null, { timeout: 60_000 });
    await frames(page);
    const answer = await page.evaluate(() => window.weft.compare.momentsPic.answer);
    assert.deepEqual(answer.rows.map((r) => [r.first, r.count]), [[0, 1], [1, 1], [2, 1], [3, 1]], 'a row per pair of threads');
    assert.ok(answer.t0_ns <= 0 && answer.t1_ns > 0, 'the axis shows aligned 0');
    // The table of figures stays below the picture.
    assert.equal(await page.$$eval('#compare-moments tbody tr', (trs) => trs.length), THREADS);

    // Pixels: B's half of each row (its lower half) has red only on thread 2's row.
    await page.locator('#compare-moments-img').scrollIntoViewIfNeeded();
    const img = await page.locator('#compare-moments-img').boundingBox();
    const shot = decodePng(await page.screenshot({ clip: { x: Math.floor(img.x), y: Math.floor(img.y), width: Math.floor(img.width), height: Math.floor(img.height) } }));
    const sx = img.width / answer.width, sy = img.height / answer.height;
    const redIn = (row) => {
      let n = 0;
      for (const f of [0.62, 0.75, 0.88]) {
        const y = Math.round((row.y + row.h * f) * sy);
        for (let x = Math.round(170 * sx); x < shot.width - 2; x += 1) {
          const [r, g, bl] = shot.pixel(x, y);
          if (r > 180 && g < 90 && bl < 90) n += 1;
        }
      }
      return n;
    };
    const reds = answer.rows.map(redIn);
    assert.ok(reds[SLOW] > 5, `thread ${SLOW}'s B bar has red: ${reds}`);
    for (const [k, n] of reds.entries()) if (k !== SLOW) assert.equal(n, 0, `no red on row ${k}: ${reds}`);
    await screenshot(page, 'compare-moments-glyphs');

    // Hover over thread 2's row: its name and the change of m0, +5 ms.
    const row = answer.rows[SLOW];
    await page.mouse.move(img.x + img.width * 0.6, img.y + (row.y + row.h / 2) * sy);
    await page.waitForSelector('#compare-moments-tip:not([hidden])');
    const tip = await page.textContent('#compare-moments-tip');
    const five = await page.evaluate(() => window.weft.viewer.format_duration(5_000_000));
    assert.ok(tip.includes(`m0 +${five}`), tip);
    assert.ok(tip.includes('A  m0') && tip.includes('B  m0'), tip);

    // Aligned at kernel's 2nd instance: both axes in aligned time, each saying where its 0 lies.
    await page.selectOption('#compare-align', 'region');
    await page.fill('#compare-region', 'kernel');
    await page.fill('#compare-instance', '2');
    await page.dispatchEvent('#compare-instance', 'change');
    await page.waitForFunction(() => window.weft.compare.comparison.options.align.by === 'region');
    await frames(page);
    const w = await page.evaluate(() => window.weft.compare.comparison.windows);
    // By construction: the 2nd kernel starts at 1.45 ms (1.25 ms iterations, then compute's 0.2 ms) on every
    // thread of A and on B's threads but thread 2 (2.45 ms): the earliest, 1.45 ms, in both.
    assert.equal(w.a.origin_ns, 1_450_000);
    assert.equal(w.b.origin_ns, 1_450_000);
    const origins = await page.evaluate(() => [window.weft.viewer.view_brief().time_origin_ns, window.weft.compare.viewer.view_brief().time_origin_ns]);
    assert.deepEqual(origins, [w.a.origin_ns, w.b.origin_ns]);
    await page.evaluate(() => window.weft.viewer.fit());
    await frames(page);
    const svgA = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.match(svgA, /aligned: 0 at 1\.4\d* ms/, 'the gutter says where A\'s 0 lies');
    assert.match(svgA, />-[\d.]+ ms</, 'time before the origin is negative');
    const svgB = await page.evaluate(() => window.weft.compare.viewer.export_svg());
    assert.match(svgB, /aligned: 0 at 1\.4\d* ms/);
    await screenshot(page, 'compare-moments-aligned');
    // Back at each run's start: their own time again.
    await page.selectOption('#compare-align', 'start');
    await page.waitForFunction(() => window.weft.compare.comparison.options.align.by === 'start');
    await frames(page);
    assert.equal(await page.evaluate(() => window.weft.viewer.view_brief().time_origin_ns), null);
    assert.doesNotMatch(await page.evaluate(() => window.weft.viewer.export_svg()), /aligned: 0 at/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
