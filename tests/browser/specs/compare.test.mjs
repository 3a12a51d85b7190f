// Two runs compared on the page (issue #54, www/compare.js), on Chrome traces whose difference is known by
// construction: 4 threads run `iterations` of `compute` (1 ms) then `exchange` (50 µs) inside `main`; in run B
// thread 2's compute takes 2 ms. Opened as `?trace=A&compare=B`: both timelines drawn, A above B; a zoom of
// either moves the other to the same window; the summary names compute; the region table is `weft diff --json`'s
// (same rows, same order, same numbers), aligned at a region's instance and of the visible window too; a row's
// click marks the region in both timelines. Then two such traces
// dropped together open as a comparison (each read alone: one process each), while two per-rank Kineto files of
// one run (distinct `distributedInfo.rank`) dropped together still open as one run of two ranks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, screenshot, repoRoot, weftArgs, outDir } from '../lib/harness.mjs';

const THREADS = 4, ITERATIONS = 5, SLOW = 2;

/** A Chrome trace of the program above; `slowMs(t)`: thread t's compute in ms; `extra`: top-level keys. */
function chromeRun(slowMs, extra = {}) {
  const events = [];
  for (let t = 0; t < THREADS; t++) {
    const c = slowMs(t) * 1000, x = 50;
    events.push({ name: 'main', ph: 'X', pid: 1, tid: t, ts: 0, dur: ITERATIONS * (c + x) });
    for (let k = 0; k < ITERATIONS; k++) {
      const at = k * (c + x);
      events.push({ name: 'compute', ph: 'X', pid: 1, tid: t, ts: at, dur: c });
      events.push({ name: 'exchange', ph: 'X', pid: 1, tid: t, ts: at + c, dur: x });
    }
  }
  return JSON.stringify({ ...extra, traceEvents: events });
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
const ranges = (page) => page.evaluate(() => {
  const a = window.weft.viewer.view_brief(), b = window.weft.compare.viewer.view_brief();
  return { a: [a.t0_ns, a.t1_ns], b: [b.t0_ns, b.t1_ns], span: [a.span_ns, b.span_ns] };
});
const compared = (page, names) => page.waitForFunction(([a, b]) => {
  const s = window.weft.compare;
  return s && s.on && s.comparison && s.names.a === a && s.names.b === b;
}, names, { timeout: 60_000 });
const near = (x, y, what) => assert.ok(Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x)), `${what}: ${x} vs ${y}`);

/** Drop `files` ([name, text]) together on the page, as a person dropping two files does. */
async function dropFiles(page, files) {
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const [name, text] of files) dt.items.add(new File([text], name));
    const target = document.getElementById('stage');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

test('two runs compared: coupled timelines, the region diff of weft diff, two dropped traces', { timeout: 600_000 }, async () => {
  const dir = path.join(outDir, 'compare-runs');
  fs.mkdirSync(dir, { recursive: true });
  const a = path.join(dir, 'a.json'), b = path.join(dir, 'b.json');
  fs.writeFileSync(a, chromeRun(() => 1));
  fs.writeFileSync(b, chromeRun((t) => (t === SLOW ? 2 : 1)));
  const cli = JSON.parse(execFileSync(...weftArgs('diff', a, b, '--json'), { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 }));
  const { server, url } = await startServer();
  const rel = (p) => `/${path.relative(repoRoot, p)}`;
  const { browser, page, problems } = await openPage('webgpu', `${url}?trace=${rel(a)}&compare=${rel(b)}`);
  try {
    await compared(page, ['a.json', 'b.json']);
    await frames(page);
    // Which is which, said on screen.
    assert.match(await page.textContent('#compare-bar'), /A a\.json vs B b\.json/);
    assert.match(await page.textContent('#stage .run-tag'), /A a\.json/);
    assert.match(await page.textContent('#stage-b .run-tag'), /B b\.json/);
    assert.match(await page.textContent('#compare-panel .compare-said'), /aligned at each run's start · locations paired by index/);

    // One time axis: B shows A's window; B's run is longer, so A's fit leaves B's end out of view.
    let r = await ranges(page);
    near(r.b[0], r.a[0], 'start'); near(r.b[1], r.a[1], 'end');
    assert.ok(r.span[1] > r.span[0], `B is the longer run: ${r.span}`);

    // Zoom A (as its wheel does): B follows to the same window.
    await page.evaluate(() => window.weft.viewer.zoom(500, 4, 100));
    await frames(page);
    r = await ranges(page);
    assert.ok(r.a[1] - r.a[0] < r.span[0] / 2, `A zoomed in: ${r.a}`);
    near(r.b[0], r.a[0], 'start after A zoomed'); near(r.b[1], r.a[1], 'end after A zoomed');

    // Wheel over B (zoom out) and drag B (pan): A follows.
    const box = await page.locator('#stage-b').boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    await page.mouse.wheel(0, 300);
    await frames(page);
    const zoomedOut = await ranges(page);
    assert.ok(zoomedOut.b[1] - zoomedOut.b[0] > r.b[1] - r.b[0], `B zoomed out: ${zoomedOut.b} from ${r.b}`);
    near(zoomedOut.a[0], zoomedOut.b[0], 'start after B zoomed'); near(zoomedOut.a[1], zoomedOut.b[1], 'end after B zoomed');
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await frames(page);
    r = await ranges(page);
    assert.ok(r.b[0] > zoomedOut.b[0], `B panned later: ${r.b} from ${zoomedOut.b}`);
    near(r.a[0], r.b[0], 'start after B panned'); near(r.a[1], r.b[1], 'end after B panned');

    // The summary and the table are weft diff's.
    const c = await page.evaluate(() => window.weft.compare.comparison);
    assert.deepEqual(c.regions, cli.regions, 'the page pairs the same regions as weft diff --json');
    assert.equal(c.summary, cli.summary);
    assert.deepEqual(c.span_ns, cli.span_ns);
    const summary = await page.textContent('#compare-summary');
    assert.equal(summary, cli.summary);
    assert.match(summary, /changed most: compute \+5\.000 ms/, summary);
    const compute = cli.regions.find((x) => x.name === 'compute');
    assert.equal(compute.delta_ns, ITERATIONS * 1_000_000, 'by construction: 5 iterations 1 ms slower on one thread');
    const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(rows.map((x) => x[0]), cli.regions.map((x) => x.name), 'rows in weft diff order (by |delta|)');
    const fmt = (ns) => page.evaluate((ns) => window.weft.viewer.format_duration(ns), ns);
    for (const [k, reg] of cli.regions.entries()) {
      assert.deepEqual(rows[k].slice(1, 4), [await fmt(reg.a_inclusive_ns), await fmt(reg.b_inclusive_ns),
        reg.delta_ns > 0 ? `+${await fmt(reg.delta_ns)}` : await fmt(Math.abs(reg.delta_ns))], reg.name);
      assert.deepEqual(rows[k].slice(8, 10), [String(reg.a_count), String(reg.b_count)], reg.name);
    }

    // A click on compute marks it in both timelines (each run's own region of that name).
    await page.click('#compare-table tbody tr[data-region="compute"]');
    await frames(page);
    const marked = await page.evaluate(() => {
      const s = window.weft.compare;
      const id = (side) => side.regions.find((x) => x.name === 'compute').region;
      return { a: window.weft.viewer.view_brief().marked_region, b: s.viewer.view_brief().marked_region,
        wantA: id(s.sides.a), wantB: id(s.sides.b) };
    });
    assert.equal(marked.a, marked.wantA);
    assert.equal(marked.b, marked.wantB);
    await page.evaluate(() => { window.weft.viewer.fit(); });
    await frames(page);
    await screenshot(page, 'compare-two-runs');

    // Aligned at compute's 2nd instance: the origins move, said on screen, and the table is weft diff's then too.
    await page.selectOption('#compare-align', 'region');
    await page.fill('#compare-region', 'compute');
    await page.fill('#compare-instance', '2');
    await page.dispatchEvent('#compare-instance', 'change');
    await page.waitForFunction(() => window.weft.compare.comparison.options.align.by === 'region');
    const aligned = JSON.parse(execFileSync(...weftArgs('diff', a, b, '--json', '--align', 'region:compute:2'), { cwd: repoRoot, encoding: 'utf8' }));
    const c2 = await page.evaluate(() => window.weft.compare.comparison);
    assert.deepEqual(c2.regions, aligned.regions);
    assert.deepEqual(c2.windows, aligned.windows);
    assert.match(await page.textContent('#compare-panel .compare-said'), /aligned at instance 2 of compute/);
    await frames(page);
    r = await ranges(page);
    near(r.b[0] - c2.windows.b.origin_ns, r.a[0] - c2.windows.a.origin_ns, 'one axis after the alignment');

    // The table of the visible window: zoom A in, and the table is weft diff --window's over that window.
    await page.evaluate(() => window.weft.viewer.zoom(600, 3, 100));
    await frames(page);
    await page.selectOption('#compare-scope', 'window');
    await page.waitForFunction(() => window.weft.compare.comparison.options.window);
    const w = await page.evaluate(() => window.weft.compare.comparison.options.window);
    r = await ranges(page);
    assert.ok(Math.abs(w.start_ns - Math.max(0, r.a[0] - c2.windows.a.origin_ns)) <= 1 && w.end_ns - w.start_ns < r.span[0] / 2, `the window shown: ${JSON.stringify(w)}`);
    const windowed = JSON.parse(execFileSync(...weftArgs('diff', a, b, '--json', '--align', 'region:compute:2', '--window', `${w.start_ns}:${w.end_ns}`),
      { cwd: repoRoot, encoding: 'utf8' }));
    const c3 = await page.evaluate(() => window.weft.compare.comparison);
    assert.deepEqual(c3.regions, windowed.regions);
    assert.equal(c3.summary, windowed.summary);
    assert.match(await page.textContent('#compare-panel .compare-said'), /table of the visible window/);
    await screenshot(page, 'compare-window');

    // Two unrelated Chrome traces dropped together: a comparison, each read alone.
    const loads = await page.evaluate(() => window.weft.loads);
    await dropFiles(page, [['c.json', chromeRun(() => 1)], ['d.json', chromeRun((t) => (t === SLOW ? 2 : 1))]]);
    await compared(page, ['c.json', 'd.json']);
    await waitReady(page, loads + 1);
    assert.equal(await page.evaluate(() => window.weft.lastSummary.processes), 1, 'A alone, not merged with B as a rank');
    assert.match(await page.textContent('#compare-summary'), /compute \+5\.000 ms/);
    await frames(page);
    await screenshot(page, 'compare-dropped');

    // Per-rank files of one run (ranks 0 and 1) dropped together: one run of two ranks, no comparison.
    const rank = (n) => chromeRun(() => 1, { distributedInfo: { rank: n, world_size: 2 } });
    await dropFiles(page, [['rank0.json', rank(0)], ['rank1.json', rank(1)]]);
    await waitReady(page, loads + 2);
    const one = await page.evaluate(() => ({ on: window.weft.compare.on, processes: window.weft.lastSummary.processes,
      hidden: document.getElementById('stage-b').hidden }));
    assert.deepEqual(one, { on: false, processes: 2, hidden: true });

    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
