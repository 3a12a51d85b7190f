// The call-tree panel and its flame graph on a store (issue #55): a generated OTF2 run indexed here (`weft
// index`, store format 8: call-path tiles per pyramid level, block and tile) is opened from its URL; the store
// worker answers the panel from the call-path tiles and the level-0 tiles of a range's edges (fetched through
// its check and cache), and every node of its tree equals `weft calltree STORE --json`: the whole run, a
// window (zoomed in), a location filter, bottom up and per location. A click on a node marks its path's
// intervals in the exact records drawn (the worker finds them in the window's level-0 tiles within its cache's
// budget; over the budget the panel says so and marks nothing); a store before format 8 is refused by name.
// The flame graph of the whole run draws the
// tree (its boxes in colour). The worker's time for each tree is logged (`weft.store.calltreeTimes`; the
// whole run's of the largest store tested is in BENCHMARKS.md). STORE_CALLTREE_EVENTS=N changes the run's
// size (default 2 M events asked). Screenshots: tests/out/calltree-store-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { outDir, repoRoot, viewState, stageOrigin, screenshot, weftArgs } from '../lib/harness.mjs';
import { openStore, frames, settled } from '../lib/store-page.mjs';

const EVENTS = Number(process.env.STORE_CALLTREE_EVENTS || 2_000_000);
const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 512 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));

/** Ask the panel again (`act`) and wait for the worker's tree; the summary. */
async function computed(page, act = () => page.click('#calltree-run')) {
  const before = await page.evaluate(() => window.weft.calltrees || 0);
  await act();
  await page.waitForFunction((n) => (window.weft.calltrees || 0) > n, before, { timeout: 300_000 });
  await frames(page);
  return page.evaluate(() => window.weft.viewer.calltree_summary());
}

/** Every node of the tree shown (all opened), keyed by its path: [count, inclusive, exclusive]. */
async function pageNodes(page) {
  await page.click('#calltree-open-all');
  const rows = await page.evaluate(() => window.weft.viewer.calltree_rows());
  assert.equal(rows.more, 0, 'every row listed');
  const byPath = new Map();
  const stack = [];
  for (const r of rows.rows) {
    stack.length = r.depth;
    stack.push(r.name);
    r.path = stack.join(' / ');
    byPath.set(r.path, [r.count, r.inclusive_ns, r.exclusive_ns]);
  }
  return { byPath, total: rows.total_ns, rows: rows.rows };
}

const cliNodes = (json) => new Map(json.nodes.map((n) => [n.path.join(' / '), [n.count, n.inclusive_ns, n.exclusive_ns]]));

/** The tree shown equals the CLI's of the store over the same window (`whole`: no --window) and `args`. */
async function sameAsCli(page, store, args, what, whole = false) {
  const s = await page.evaluate(() => window.weft.viewer.calltree_summary());
  const cli = weftJson('calltree', store, ...(whole ? [] : ['--window', `${s.window[0]}:${s.window[1]}`]), ...args);
  const got = await pageNodes(page);
  assert.equal(got.total, cli.total_ns, `${what}: the roots' inclusive times`);
  assert.deepEqual([...got.byPath.entries()].sort(), [...cliNodes(cli).entries()].sort(), `${what}: every node as weft calltree STORE --json`);
  const t = await page.evaluate(() => window.weft.store.calltreeTimes.at(-1));
  console.log(`# ${what}: ${cli.nodes.length} nodes; the store worker answered in ${t.ms.toFixed(1)} ms (${t.tiles} tiles fetched, ${t.bytes} bytes, in ${t.fetchMs.toFixed(1)} ms; the tree ${t.answerMs.toFixed(1)} ms)`);
  return { s, cli, got };
}

function indexedStore() {
  const dir = path.join(outDir, `calltree-store-gen-${EVENTS}`);
  const store = path.join(outDir, `calltree-store-${EVENTS}`);
  if (!fs.existsSync(path.join(dir, 'traces.otf2'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    weft('generate', 'otf2', '-o', dir, '--ranks', '8', '--threads-per-rank', '2', '--events', String(EVENTS));
  }
  // Small tiles and blocks: many windows and pyramid levels, several blocks of rows.
  weft('index', dir, '-o', store, '--block', '4', '--tile-intervals', '8192', '--force');
  return store;
}

test('a store\'s call tree on the page equals weft calltree STORE, marks a path, draws the flame graph', { timeout: 900_000 }, async (t) => {
  const store = indexedStore();
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  assert.ok(manifest.version >= 8 && manifest.tiles.some((e) => e.path.startsWith('t/')), 'call-path tiles in the store');
  const { page, problems } = await openStore(t, store, { width: 1500, height: 950 });
  // Every store file the page fetches.
  const fetched = [];
  const rel = path.relative(repoRoot, store);
  page.on('request', (r) => { const u = r.url(); if (u.includes(rel)) fetched.push(u.slice(u.indexOf(rel) + rel.length + 1)); });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
  await settled(page, 120_000);
  const span = manifest.span_ns;

  // The whole run (the visible window when fitted is the whole run: the same tree).
  await page.click('#calltree-toggle');
  await page.waitForSelector('#calltree-panel:not([hidden])');
  let s = await computed(page, () => page.selectOption('#calltree-scope', 'whole'));
  assert.deepEqual(s.window, [0, span]);
  const whole = await sameAsCli(page, store, [], 'the whole run', true);
  assert.ok(whole.cli.nodes.length > 3, 'a tree with paths');
  assert.ok(fetched.some((f) => f.startsWith('t/')), `call-path tiles fetched (${fetched.filter((f) => f.startsWith('t/')).length})`);
  await screenshot(page, 'calltree-store-panel');

  // A window: zoomed into a middle stretch (its edges inside windows: level-0 tiles there), the visible window.
  await page.selectOption('#calltree-scope', 'window');
  await page.evaluate((sp) => window.weft.viewer.set_time_range(sp * 0.31, sp * 0.64), span);
  await settled(page, 120_000);
  s = await computed(page);
  assert.ok(s.window[0] > 0 && s.window[1] < span, `the visible window asked (${s.window})`);
  await sameAsCli(page, store, [], 'a third of the run');

  // A location filter.
  await page.fill('#calltree-locations', '*Rank 1 /*');
  s = await computed(page, () => page.dispatchEvent('#calltree-locations', 'change'));
  assert.ok(s.locations && s.locations.length > 0 && s.locations.length < manifest.locations.process.length, 'a location filter');
  await sameAsCli(page, store, ['--locations', s.locations.join(',')], `locations ${s.locations}`);
  await page.fill('#calltree-locations', '');
  await computed(page, () => page.dispatchEvent('#calltree-locations', 'change'));

  // Bottom up.
  s = await computed(page, () => page.selectOption('#calltree-direction', 'bottom'));
  assert.equal(s.inverted, true);
  await sameAsCli(page, store, ['--inverted'], 'bottom up');
  await screenshot(page, 'calltree-store-inverted');
  await computed(page, () => page.selectOption('#calltree-direction', 'top'));

  // Per location: each location's tree as the CLI's.
  s = await computed(page, () => page.selectOption('#calltree-merge', 'per'));
  const perCli = weftJson('calltree', store, '--window', `${s.window[0]}:${s.window[1]}`, '--per-location');
  assert.deepEqual(s.trees.map((x) => [x.location, x.total_ns]), perCli.locations.map((l) => [l.location, l.total_ns]), 'a tree per location');
  s = await computed(page, () => page.selectOption('#calltree-merge', 'merged'));

  // A click on an MPI node of a narrow window: its intervals found in the window's level-0 tiles, marked in
  // the exact records drawn (as many as its count).
  const c = span * 0.5;
  await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [c - span / 400, c + span / 400]);
  await page.waitForFunction(() => window.weft.viewer.view_state().store.shown === 'exact', null, { timeout: 120_000 });
  await settled(page, 120_000);
  s = await computed(page);
  await sameAsCli(page, store, [], 'a narrow window');
  const rows = (await pageNodes(page)).rows;
  const mpi = rows.filter((r) => /^MPI_/.test(r.name) && r.count > 0).sort((a, b) => b.count - a.count)[0];
  assert.ok(mpi, 'an MPI node in the narrow window');
  const marks = await page.evaluate(() => window.weft.calltreeMarks || 0);
  await page.click(`#calltree-table tbody tr[data-node="${mpi.node}"]`);
  await page.waitForFunction((n) => (window.weft.calltreeMarks || 0) > n, marks, { timeout: 120_000 });
  await frames(page, 3);
  let vs = await viewState(page);
  assert.equal(vs.store.call_path_keys, mpi.count, `${mpi.name}'s ${mpi.count} intervals found`);
  // Marked in the exact records drawn: those of the rows the slice holds (the rows on screen), as many as the
  // CLI's count of the path over those locations.
  const [a, b] = vs.store.covered.locations;
  const onRows = cliNodes(weftJson('calltree', store, '--window', `${s.window[0]}:${s.window[1]}`, '--locations', `${a}-${b - 1}`)).get(mpi.path);
  assert.ok(onRows && onRows[0] > 0, `the path has intervals on the rows shown (${a}..${b})`);
  assert.equal(vs.call_path, onRows[0], `${mpi.name}'s ${onRows[0]} intervals on locations ${a}..${b} marked in the exact records drawn`);
  assert.match(await page.$eval('#calltree-marked', (e) => e.textContent), new RegExp(`^${mpi.count.toLocaleString('en-US')} interval`));
  await screenshot(page, 'calltree-store-marks');
  await page.click('#calltree-clear');
  await frames(page);
  vs = await viewState(page);
  assert.equal(vs.store.call_path_keys, null, 'marks cleared');

  // The flame graph of the whole run: its own tab, boxes drawn where the layout puts them.
  s = await computed(page, () => page.selectOption('#calltree-scope', 'whole'));
  await page.click('#calltree-flame');
  await page.waitForFunction(() => window.weft.viewer.view() === 'flamegraph');
  await frames(page, 3);
  const fs0 = await viewState(page);
  const o = await stageOrigin(page);
  assert.equal(fs0.total_ns, s.total_ns);
  const yOf = (st, level) => (st.icicle ? st.header_px + level * st.level_px - st.scroll_px : st.height - (level + 1) * st.level_px + st.scroll_px);
  const shot = await screenshot(page, 'calltree-store-flame');
  const isBackground = ([r, g, b]) => r > 245 && g > 245 && b > 245;
  const wide = fs0.boxes.filter((b) => b.merged === 1 && b.x1 - b.x0 > 12).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0)).slice(0, 6);
  assert.ok(wide.length >= 1, 'boxes wide enough to see');
  for (const b of wide) {
    const px = shot.pixel(Math.round(o.x + b.x0 + 4), Math.round(o.y + yOf(fs0, b.level) + fs0.level_px / 2 + 3));
    assert.ok(!isBackground(px), `node ${b.node} drawn at level ${b.level} (${px})`);
  }
  await page.click('#calltree-timeline');
  await page.waitForFunction(() => window.weft.viewer.view() === 'timeline');
  await settled(page, 120_000);

  assert.deepEqual(problems, []);
});

test('a store\'s path marks over a window whose level-0 tiles pass the cache budget: said, not marked', { timeout: 600_000 }, async (t) => {
  const store = path.join(outDir, `calltree-store-${EVENTS}`);
  if (!fs.existsSync(path.join(store, 'manifest.json'))) indexedStore();
  const { page, problems } = await openStore(t, store, { width: 1500, height: 950, query: 'store_cache_mb=1&' });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
  await settled(page, 120_000);
  await page.click('#calltree-toggle');
  await page.waitForSelector('#calltree-panel:not([hidden])');
  await computed(page, () => page.selectOption('#calltree-scope', 'whole'));
  await sameAsCli(page, store, [], 'the whole run (1 MB cache)', true);
  const rows = (await pageNodes(page)).rows;
  const node = rows.filter((r) => /^MPI_/.test(r.name)).sort((a, b) => b.count - a.count)[0];
  await page.click(`#calltree-table tbody tr[data-node="${node.node}"]`);
  await page.waitForFunction(() => /^Not marked/.test(document.getElementById('calltree-marked').textContent), null, { timeout: 120_000 });
  const said = await page.$eval('#calltree-marked', (e) => e.textContent);
  assert.match(said, /level-0 tiles of the window .* over the tile cache's budget of 1 MB/);
  assert.equal((await viewState(page)).store.call_path_keys, null, 'nothing marked');
  await page.$eval('#calltree-marked', (e) => e.scrollIntoView());
  await screenshot(page, 'calltree-store-over-budget');
  assert.deepEqual(problems, []);
});

test('a store before format 8 (no call-path tiles): the panel says why', { timeout: 600_000 }, async (t) => {
  const store = path.join(outDir, `calltree-store-${EVENTS}`);
  if (!fs.existsSync(path.join(store, 'manifest.json'))) indexedStore();
  // The same store's manifest as format 7 wrote it: no call-path tiles (its tiles' own headers still say 8,
  // so the views' tiles are refused by name; the panel's question is answered before any tile is read).
  const old = path.join(outDir, 'calltree-store-format7');
  fs.rmSync(old, { recursive: true, force: true });
  fs.cpSync(store, old, { recursive: true });
  const m = JSON.parse(fs.readFileSync(path.join(old, 'manifest.json'), 'utf8'));
  m.version = 7;
  m.tiles = m.tiles.filter((e) => !e.path.startsWith('t/'));
  fs.writeFileSync(path.join(old, 'manifest.json'), JSON.stringify(m));
  const { page } = await openStore(t, old, { width: 1500, height: 950 });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
  await page.click('#calltree-toggle');
  await page.waitForFunction(() => /call-path tiles/.test(document.getElementById('error-text').textContent), null, { timeout: 120_000 });
  const said = await page.$eval('#error-text', (e) => e.textContent);
  assert.match(said, /^Call tree: calltree-store-format7: this store is of format 7: it keeps no call-path tiles \(format 8 on\)/);
  await screenshot(page, 'calltree-store-format7');
});

// The worker's time for the whole run's tree of a larger store (BENCHMARKS.md, "Session 41: a store's call
// tree on the page"): CALLTREE_STORE_BENCH=a store folder under the repository (skipped otherwise). The panel's
// first ask, as it opens (the visible window: the whole run), fetches the tiles; those after find them cached;
// every tree is the CLI's. The log's `times` lists each ask's.
test('the whole run\'s call tree of a larger store, timed', { timeout: 900_000, skip: !process.env.CALLTREE_STORE_BENCH && 'set CALLTREE_STORE_BENCH=STORE to time it' }, async (t) => {
  const store = path.resolve(process.env.CALLTREE_STORE_BENCH);
  const { page, problems } = await openStore(t, store, { width: 1500, height: 950 });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 300_000 });
  await settled(page, 300_000);
  await page.click('#calltree-toggle');
  await page.waitForSelector('#calltree-panel:not([hidden])');
  const first = await page.evaluate(() => window.weft.store.calltreeTimes[0]);
  console.log(`# the panel's first ask (the whole run in view): ${JSON.stringify(first)}`);
  await computed(page, () => page.selectOption('#calltree-scope', 'whole'));
  await sameAsCli(page, store, [], 'the whole run, tiles cached', true);
  const span = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8')).span_ns;
  await page.selectOption('#calltree-scope', 'window');
  await page.evaluate((sp) => window.weft.viewer.set_time_range(sp * 0.31, sp * 0.64), span);
  await settled(page, 300_000);
  await computed(page);
  await sameAsCli(page, store, [], 'a third of the run (edges from level-0 tiles)');
  console.log(`# times ${JSON.stringify(await page.evaluate(() => window.weft.store.calltreeTimes))}`);
  assert.deepEqual(problems, []);
});
