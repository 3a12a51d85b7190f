// Two stores compared on the page (issue #54, www/compare.js with store.js and store-worker.js): two Chrome
// traces whose difference is known by construction (4 threads run 200 iterations of `compute` (1 ms) then
// `exchange` (50 µs) inside `main`; in run B thread 2's compute takes 2 ms) are indexed into stores here and
// opened as `?store=A/&compare=B/`: each in a store worker of its own, A above B; zooming A moves B and B
// moves A; the region table, span and summary are `weft diff --json` of the two traces (whole run, and the
// visible window from each store's call-path tiles); what a store does not keep is said; the rank mapping is
// said; the flame graph's paths are `weft diff --calltree`'s; each store's cache has half the one store's
// budget. Then a store against a trace (`?store=A/&compare=b.json`), a store given to "Compare with a URL…"
// and a trace file given to "Compare with…" beside the store shown give the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, screenshot, repoRoot, weftArgs, outDir } from '../lib/harness.mjs';

// 200 iterations: 1,604 intervals, several windows of 256 (the index's smallest tile) over two blocks.
const THREADS = 4, ITERATIONS = 200, SLOW = 2;

function chromeRun(slowMs) {
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
  return JSON.stringify({ traceEvents: events });
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
const ranges = (page) => page.evaluate(() => {
  const a = window.weft.viewer.view_brief(), b = window.weft.compare.viewer.view_brief();
  return { a: [a.t0_ns, a.t1_ns], b: [b.t0_ns, b.t1_ns], span: [a.span_ns, b.span_ns] };
});
const near = (x, y, what) => assert.ok(Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x)), `${what}: ${x} vs ${y}`);
const weftJson = (...args) => JSON.parse(execFileSync(...weftArgs(...args), { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 }));
const compared = (page, names) => page.waitForFunction(([a, b]) => {
  const s = window.weft.compare;
  return s && s.on && s.comparison && s.names.a === a && s.names.b === b;
}, names, { timeout: 60_000 });

test('two stores compared: each in its worker, coupled timelines, weft diff of their traces', { timeout: 600_000 }, async (t) => {
  const dir = path.join(outDir, 'compare-stores');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const a = path.join(dir, 'a.json'), b = path.join(dir, 'b.json');
  fs.writeFileSync(a, chromeRun(() => 1));
  fs.writeFileSync(b, chromeRun((k) => (k === SLOW ? 2 : 1)));
  const sa = path.join(dir, 'store-a'), sb = path.join(dir, 'store-b');
  // Small tiles and blocks: several windows, pyramid levels and blocks, so a window's call tree is read from
  // pyramid tiles and its edges' level-0 tiles.
  for (const [trace, store] of [[a, sa], [b, sb]]) {
    execFileSync(...weftArgs('index', trace, '-o', store, '--tile-intervals', '256', '--block', '2'), { cwd: repoRoot, stdio: 'pipe' });
    const m = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
    assert.ok(m.tiling.windows >= 4 && m.tiling.blocks === 2 && m.levels.length >= 2, `tiled finely: ${JSON.stringify(m.tiling)}`);
  }
  const cli = weftJson('diff', a, b, '--json', '--calltree');
  const { server, url } = await startServer();
  t.after(() => server.close());
  const rel = (p) => `/${path.relative(repoRoot, p)}`;
  const { browser, page, problems } = await openPage('webgpu', `${url}?store=${rel(sa)}/&compare=${rel(sb)}/`);
  t.after(() => browser.close());

  await compared(page, ['store-a', 'store-b']);
  await frames(page);
  const kinds = await page.evaluate(() => ({ ...window.weft.compare.kinds, storeB: !!window.weft.compare.storeB }));
  assert.deepEqual(kinds, { a: 'store', b: 'store', storeB: true }, 'each run a store in a worker of its own');
  assert.match(await page.textContent('#compare-bar'), /A store-a vs B store-b/);
  // The rank mapping and what stores do not keep, said on screen.
  assert.match(await page.textContent('#compare-panel .compare-said'), /aligned at each run's start · locations paired by index \(A's i-th with B's i-th; A has 4, B 4\)/);
  const lacking = await page.textContent('#compare-not-compared');
  assert.match(lacking, /message matrix \(A and B: a store keeps no message matrix/);
  assert.match(lacking, /alignment at a region's instance/);
  assert.equal(await page.evaluate(() => document.querySelector('#compare-align option[value=region]').disabled), true);

  // The table, span and summary: weft diff of the two traces (the stores' region profiles from their tiles).
  let c = await page.evaluate(() => window.weft.compare.comparison);
  assert.deepEqual(c.regions, cli.regions, 'the stores pair the regions weft diff pairs of their traces');
  assert.deepEqual(c.span_ns, cli.span_ns);
  const busy = (rows) => rows.map((l) => l.delta.busy_ns);
  assert.deepEqual(busy(c.locations), busy(cli.locations), "each location's busy change");
  const compute = c.regions.find((x) => x.name === 'compute');
  assert.equal(compute.delta_ns, ITERATIONS * 1_000_000, 'by construction: each iteration 1 ms slower on one thread');
  assert.equal(c.regions[0].name, 'compute');
  const summary = await page.textContent('#compare-summary');
  assert.match(summary, /changed most: compute \+200\.000 ms/, summary);
  const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => tr.children[0].textContent));
  assert.deepEqual(rows, cli.regions.map((x) => x.name));

  // One time axis: zoom A, B follows; zoom B, A follows.
  let r = await ranges(page);
  near(r.b[0], r.a[0], 'start'); near(r.b[1], r.a[1], 'end');
  await page.evaluate(() => window.weft.viewer.zoom(500, 4, 100));
  await frames(page);
  r = await ranges(page);
  assert.ok(r.a[1] - r.a[0] < r.span[0] / 2, `A zoomed in: ${r.a}`);
  near(r.b[0], r.a[0], 'start after A zoomed'); near(r.b[1], r.a[1], 'end after A zoomed');
  await page.evaluate(() => window.weft.compare.viewer.zoom(300, 0.5, 100));
  await frames(page);
  const out = await ranges(page);
  assert.ok(out.b[1] - out.b[0] > r.b[1] - r.b[0], `B zoomed out: ${out.b}`);
  near(out.a[0], out.b[0], 'start after B zoomed'); near(out.a[1], out.b[1], 'end after B zoomed');
  // Both drawn from their tiles (each store worker answered the view asked).
  await page.waitForFunction(() => window.weft.store.answers > 0 && window.weft.compare.storeB.answers > 0, null, { timeout: 60_000 });
  await screenshot(page, 'compare-stores');

  // Each store's decoded-tile cache: half the single store's 256 MB.
  const budgets = await page.evaluate(() => [window.weft.store.last.cacheBudget, window.weft.compare.storeB.last.cacheBudget]);
  assert.deepEqual(budgets, [128 << 20, 128 << 20]);

  // The visible window's table: from each store's call-path tiles and their edges, weft diff --window's.
  await page.selectOption('#compare-scope', 'window');
  await page.waitForFunction(() => window.weft.compare.comparison.options.window);
  const w = await page.evaluate(() => window.weft.compare.comparison.options.window);
  const windowed = weftJson('diff', a, b, '--json', '--window', `${w.start_ns}:${w.end_ns}`);
  c = await page.evaluate(() => window.weft.compare.comparison);
  assert.deepEqual(c.regions, windowed.regions, `the window ${JSON.stringify(w)}`);
  assert.match(c.summary, /compute/, c.summary);
  assert.match(await page.textContent('#compare-not-compared'), /locations and moments \(A and B: a store keeps each location's moments for the whole run, not a window's\)/);
  await page.click('.compare-tabs button[data-tab=moments]');
  assert.match(await page.textContent('#compare-moments-none'), /Moments not compared/);
  // Indexed without --waits: the waits tab says why it has none.
  await page.click('.compare-tabs button[data-tab=waits]');
  assert.match(await page.textContent('#compare-waits-none'), /index it with --waits/);

  // The flame graph from the stores' call-path tiles: weft diff --calltree's paths.
  await page.selectOption('#compare-scope', 'whole');
  await page.waitForFunction(() => !window.weft.compare.comparison.options.window);
  await page.click('.compare-tabs button[data-tab=flame]');
  await page.waitForFunction(() => window.weft.compare.flame && window.weft.compare.flame.asked === window.weft.compare.asked, null, { timeout: 60_000 });
  const flame = await page.evaluate(() => window.weft.compare.flame.answer);
  assert.deepEqual(flame.paths, cli.calltree.paths);
  assert.deepEqual(flame.total_ns, cli.calltree.total_ns);
  await page.click('.compare-tabs button[data-tab=matrix]');
  assert.match(await page.textContent('#compare-matrix-none'), /Messages not compared/);
  await page.click('.compare-tabs button[data-tab=regions]');
  await frames(page);
  await screenshot(page, 'compare-stores-flame');

  // A store against a trace: the same table.
  await page.goto(`${url}?store=${rel(sa)}/&compare=${rel(b)}`);
  await compared(page, ['store-a', 'b.json']);
  const mixed = await page.evaluate(() => ({ c: window.weft.compare.comparison, kinds: window.weft.compare.kinds }));
  assert.deepEqual(mixed.kinds, { a: 'store', b: 'trace' });
  assert.deepEqual(mixed.c.regions, cli.regions);
  assert.match(await page.textContent('#compare-summary'), /compute \+200\.000 ms/);
  await frames(page);
  await screenshot(page, 'compare-store-trace');

  // "Compare with a URL…" on the store shown: a store's address (a folder), then "Compare with…" a trace
  // file chosen (a store against a dropped trace): each the same table.
  page.once('dialog', (d) => d.accept(`${rel(sb)}/`));
  await page.click('#compare-url');
  await compared(page, ['store-a', 'store-b']);
  assert.deepEqual(await page.evaluate(() => window.weft.compare.kinds), { a: 'store', b: 'store' });
  assert.deepEqual(await page.evaluate(() => window.weft.compare.comparison.regions), cli.regions);
  await page.setInputFiles('#compare-input', b);
  await compared(page, ['store-a', 'b.json']);
  assert.deepEqual(await page.evaluate(() => ({ kinds: window.weft.compare.kinds, storeB: window.weft.compare.storeB })), { kinds: { a: 'store', b: 'trace' }, storeB: null });
  assert.deepEqual(await page.evaluate(() => window.weft.compare.comparison.regions), cli.regions);
  // Ended: A's store has the single store's budget again.
  await page.click('#compare-bar button[title^="End the comparison"]');
  assert.equal(await page.evaluate(() => window.weft.compare.on), false);
  assert.equal(await page.evaluate(() => window.weft.store.cacheBytes), 0);
  assert.deepEqual(problems, []);
  fs.rmSync(dir, { recursive: true, force: true });
});
