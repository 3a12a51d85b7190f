// The call-tree panel and its flame graph (issue #55) on a generated OTF2 run (`weft generate otf2`) and on the
// real 32-rank Score-P stencil from ../shared/traces (skipped, saying so, when absent), on WebGPU and WebGL2: the
// panel opens from the timeline's options and the worker's tree of the visible window equals `weft calltree
// --json --window` of the same window (every node's path, count, inclusive and exclusive time; the roots' sum);
// again zoomed into a sub-window, over a location filter, bottom up (`--inverted`) and per location
// (`--per-location`); the search marks the matching nodes (as many as the CLI's nodes of matching regions);
// the butterfly of a region equals `weft calltree --butterfly`; a click on a node marks its path's intervals in
// the timeline (as many as its count, the rest dimmed); the flame graph draws the tree (its boxes where the
// layout puts them, in colour, background elsewhere), zooms into a subtree on a click and back, hovers with the
// node's numbers, and turns into an icicle. Screenshots: tests/out/calltree-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, repoRoot, outDir, screenshot, weftArgs } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const STENCIL = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

function generated() {
  const dir = path.join(outDir, 'calltree-gen');
  fs.rmSync(dir, { recursive: true, force: true });
  weft('generate', 'otf2', '-o', dir, '--ranks', '8', '--events', '20000');
  return dir;
}

/** Ask the panel again (`act`: a click on Compute, or a change of its options) and wait for the worker's tree. */
async function computed(page, act = () => page.click('#calltree-run')) {
  const before = await page.evaluate(() => window.weft.calltrees || 0);
  await act();
  await page.waitForFunction((n) => (window.weft.calltrees || 0) > n, before, { timeout: 120_000 });
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
    byPath.set(stack.join(' / '), [r.count, r.inclusive_ns, r.exclusive_ns]);
  }
  // The rows in the DOM carry the same numbers.
  const dom = await page.$$eval('#calltree-table tbody tr[data-node]', (trs) => trs.map((t) => [Number(t.dataset.count), Number(t.dataset.inclusive), Number(t.dataset.exclusive)]));
  assert.deepEqual(dom, rows.rows.map((r) => [r.count, r.inclusive_ns, r.exclusive_ns]), 'the table shows the rows');
  return { byPath, total: rows.total_ns, rows: rows.rows };
}

function cliNodes(json) {
  return new Map(json.nodes.map((n) => [n.path.join(' / '), [n.count, n.inclusive_ns, n.exclusive_ns]]));
}

async function sameAsCli(page, dir, args, what) {
  const s = await page.evaluate(() => window.weft.viewer.calltree_summary());
  const cli = weftJson('calltree', dir, '--window', `${s.window[0]}:${s.window[1]}`, ...args);
  const got = await pageNodes(page);
  assert.equal(got.total, cli.total_ns, `${what}: the roots' inclusive times`);
  assert.deepEqual([...got.byPath.entries()].sort(), [...cliNodes(cli).entries()].sort(), `${what}: every node as weft calltree --json`);
  return { s, cli, got };
}

/** Mean brightness of the timeline's tracks in a screenshot. */
function brightness(shot, o, vs) {
  let sum = 0, n = 0;
  for (let y = vs.axis_px + 4; y < Math.min(vs.height, vs.overview.y) - 4; y += 5) {
    for (let x = vs.track_x0 + 4; x < vs.width - 4; x += 7) {
      const [r, g, b] = shot.pixel(Math.round(o.x + x), Math.round(o.y + y));
      sum += r + g + b; n++;
    }
  }
  return sum / Math.max(1, n);
}

async function checkTrace(page, dir, name, backend, loads, full) {
  const beforeLoad = await page.evaluate(() => window.weft.calltrees || 0);
  await page.setInputFiles('#folder-input', dir);
  await waitReady(page, loads);
  assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'timeline');
  const open = await page.$eval('#calltree-toggle', (b) => b.getAttribute('aria-pressed'));
  if (open !== 'true') {
    await computed(page, () => page.click('#calltree-toggle'));
  } else {
    // The open panel asks for the new trace's tree by itself (of the scope left chosen), then of the window.
    await page.waitForFunction((n) => (window.weft.calltrees || 0) > n, beforeLoad, { timeout: 120_000 });
    await computed(page, () => page.selectOption('#calltree-scope', 'window'));
  }
  await page.waitForSelector('#calltree-panel:not([hidden])');

  // The visible window (fitted: the whole run) as the CLI's tree of that window.
  let { s, cli } = await sameAsCli(page, dir, [], `${name} visible window`);
  assert.ok(cli.nodes.length > 3, `${name}: a tree with paths`);
  await screenshot(page, `calltree-${name}-${backend}-panel`);

  // Zoomed into the middle third: the tree of that window.
  const span = (await viewState(page)).span_ns;
  await page.evaluate((sp) => window.weft.viewer.set_time_range(sp / 3, (2 * sp) / 3), span);
  await computed(page);
  ({ s } = await sameAsCli(page, dir, [], `${name} a third of the run`));
  assert.ok(s.window[0] > 0 && s.window[1] < span, `${name}: the visible window asked (${s.window})`);

  if (full) {
    // A location filter: the locations it matches (their indices for the CLI).
    await page.fill('#calltree-locations', '*Rank 1 /*');
    s = await computed(page, () => page.dispatchEvent('#calltree-locations', 'change'));
    assert.ok(s.locations && s.locations.length > 0, 'a location filter');
    await sameAsCli(page, dir, ['--locations', s.locations.join(',')], `${name} locations ${s.locations}`);
    await page.fill('#calltree-locations', '');
    await computed(page, () => page.dispatchEvent('#calltree-locations', 'change'));
  }

  // Bottom up.
  s = await computed(page, () => page.selectOption('#calltree-direction', 'bottom'));
  assert.equal(s.inverted, true);
  await sameAsCli(page, dir, ['--inverted'], `${name} bottom up`);
  await screenshot(page, `calltree-${name}-${backend}-inverted`);
  await computed(page, () => page.selectOption('#calltree-direction', 'top'));

  if (full) {
    // Per location: each location's tree as the CLI's.
    s = await computed(page, () => page.selectOption('#calltree-merge', 'per'));
    const perCli = weftJson('calltree', dir, '--window', `${s.window[0]}:${s.window[1]}`, '--per-location');
    assert.deepEqual(s.trees.map((t) => [t.location, t.total_ns]), perCli.locations.map((l) => [l.location, l.total_ns]), `${name}: a tree per location`);
    const last = s.trees.length - 1;
    await page.selectOption('#calltree-location', String(last));
    const got = await pageNodes(page);
    assert.deepEqual([...got.byPath.entries()].sort(), [...cliNodes(perCli.locations[last]).entries()].sort(), `${name}: location ${s.trees[last].location}'s tree`);
    s = await computed(page, () => page.selectOption('#calltree-merge', 'merged'));
  }

  // Search: the nodes of regions matching "mpi" are marked, as many as the CLI's.
  cli = weftJson('calltree', dir, '--window', `${s.window[0]}:${s.window[1]}`);
  await page.fill('#calltree-search', 'mpi');
  await page.dispatchEvent('#calltree-search', 'input');
  const want = cli.nodes.filter((n) => /mpi/i.test(n.path[n.path.length - 1])).length;
  assert.ok(want > 0, `${name}: MPI calls in the tree`);
  assert.equal(await page.$eval('#calltree-hits', (e) => e.textContent), `${want} node${want === 1 ? '' : 's'}`);
  assert.equal(await page.$$eval('#calltree-table tbody tr.match', (r) => r.length), want, `${name}: the matching rows marked`);
  await screenshot(page, `calltree-${name}-${backend}-search`);
  await page.fill('#calltree-search', '');
  await page.dispatchEvent('#calltree-search', 'input');

  // A click on the most expensive MPI node: its path's intervals marked in the timeline, the rest dimmed; its
  // region's butterfly as the CLI's.
  const rows = (await pageNodes(page)).rows;
  const mpi = rows.filter((r) => /^MPI_/.test(r.name)).sort((a, b) => b.inclusive_ns - a.inclusive_ns)[0];
  // The whole run in view: the window's tree may be one region that fills the middle third (the stencil's
  // MPI_Init), where no rest is left to dim.
  await page.evaluate(() => window.weft.viewer.fit());
  await frames(page);
  const ot = await stageOrigin(page);
  let vs = await viewState(page);
  const plain = brightness(await screenshot(page, `calltree-${name}-${backend}-unmarked`), ot, vs);
  const marks = await page.evaluate(() => window.weft.calltreeMarks || 0);
  await page.click(`#calltree-table tbody tr[data-node="${mpi.node}"]`);
  await page.waitForFunction((n) => (window.weft.calltreeMarks || 0) > n, marks, { timeout: 120_000 });
  await frames(page);
  vs = await viewState(page);
  assert.equal(vs.call_path, mpi.count, `${name}: ${mpi.name}'s ${mpi.count} intervals marked`);
  assert.match(await page.$eval('#calltree-marked', (e) => e.textContent), new RegExp(`^${mpi.count.toLocaleString('en-US')} interval`));
  const marked = brightness(await screenshot(page, `calltree-${name}-${backend}-marks`), ot, vs);
  assert.ok(marked > plain + 5, `${name}: the rest of the timeline dimmed under the marks (${plain.toFixed(0)} -> ${marked.toFixed(0)})`);
  const bf = await page.evaluate(() => window.weft.viewer.calltree_butterfly());
  assert.equal(bf.name, mpi.name);
  const bcli = weftJson('calltree', dir, '--window', `${s.window[0]}:${s.window[1]}`, '--butterfly', mpi.name);
  assert.deepEqual([bf.count, bf.inclusive_ns, bf.exclusive_ns], [bcli.count, bcli.inclusive_ns, bcli.exclusive_ns], `${name}: the butterfly's focus`);
  assert.deepEqual(bf.callers.map((e) => [e.name, e.count, e.inclusive_ns]), bcli.callers.map((e) => [e.name, e.count, e.inclusive_ns]), `${name}: callers`);
  assert.deepEqual(bf.callees.map((e) => [e.name, e.count, e.inclusive_ns]), bcli.callees.map((e) => [e.name, e.count, e.inclusive_ns]), `${name}: callees`);
  assert.equal(await page.$$eval('#calltree-butterfly-table tr.caller', (r) => r.length), bcli.callers.length);
  await page.$eval('#calltree-butterfly', (e) => e.scrollIntoView());
  await screenshot(page, `calltree-${name}-${backend}-butterfly`);
  await page.click('#calltree-clear');
  await frames(page);
  assert.equal((await viewState(page)).call_path, null, 'marks cleared');

  // The whole run's tree (as the CLI's), then its flame graph: its own tab, boxes drawn where the layout puts them.
  s = await computed(page, () => page.selectOption('#calltree-scope', 'whole'));
  assert.deepEqual(s.window, [0, span]);
  await sameAsCli(page, dir, [], `${name} the whole run`);
  await page.click('#calltree-flame');
  await page.waitForFunction(() => window.weft.viewer.view() === 'flamegraph');
  await frames(page);
  let fs0 = await viewState(page);
  // The header is lower without the timeline's options: the stage moves.
  const o = await stageOrigin(page);
  assert.equal(fs0.icicle, false);
  assert.equal(fs0.total_ns, (await page.evaluate(() => window.weft.viewer.calltree_summary())).total_ns);
  assert.ok(await page.$('#views button[data-view="flamegraph"][aria-selected="true"]'), 'a Flame graph tab');
  const yOf = (st, level) => (st.icicle ? st.header_px + level * st.level_px - st.scroll_px : st.height - (level + 1) * st.level_px + st.scroll_px);
  let shot = await screenshot(page, `calltree-${name}-${backend}-flame`);
  const isBackground = ([r, g, b]) => r > 245 && g > 245 && b > 245;
  const wide = fs0.boxes.filter((b) => b.merged === 1 && b.x1 - b.x0 > 12).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0)).slice(0, 6);
  assert.ok(wide.length >= 1, `${name}: boxes wide enough to see`);
  for (const b of wide) {
    const px = shot.pixel(Math.round(o.x + b.x0 + 4), Math.round(o.y + yOf(fs0, b.level) + fs0.level_px / 2 + 3));
    assert.ok(!isBackground(px), `${name}: node ${b.node} drawn at level ${b.level} (${px} at ${b.x0 + 4}, ${yOf(fs0, b.level)} of ${fs0.width}x${fs0.height} from ${o.x}, ${o.y})`);
  }
  // Above the deepest level (the flame grows up): background.
  const top = yOf(fs0, fs0.levels) - 6;
  if (top > fs0.header_px + 4) assert.ok(isBackground(shot.pixel(Math.round(o.x + fs0.width / 2), Math.round(o.y + top))), `${name}: nothing above the flame`);
  // Hover: the node's numbers (of the widest node at level 1: the real stencil's loop is 0.3 % of its run).
  const child = fs0.boxes.filter((b) => b.level === 1 && b.merged === 1).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0))[0]
    || fs0.boxes.filter((b) => b.level === 0 && b.merged === 1).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0))[1];
  const childLevel = child.level;
  const cx = (child.x0 + child.x1) / 2, cy = yOf(fs0, childLevel) + fs0.level_px / 2;
  const wholeRows = (await pageNodes(page)).rows;
  const hover = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [cx, cy]);
  const childRow = wholeRows.find((r) => r.node === child.node);
  assert.deepEqual([hover.detail.count, hover.detail.inclusive_ns, hover.detail.exclusive_ns], [childRow.count, childRow.inclusive_ns, childRow.exclusive_ns], `${name}: hover gives the node's numbers`);
  // A click zooms into the subtree: it takes the width; a click on it again goes back.
  await page.mouse.click(o.x + cx, o.y + cy);
  await frames(page);
  let fs1 = await viewState(page);
  assert.equal(fs1.focus, child.node, `${name}: zoomed into node ${child.node}`);
  const focusBox = fs1.boxes.find((b) => b.node === child.node);
  assert.deepEqual([focusBox.x0, Math.round(focusBox.x1)], [0, Math.round(fs1.width)], `${name}: the zoomed node takes the width`);
  shot = await screenshot(page, `calltree-${name}-${backend}-flame-zoomed`);
  assert.ok(!isBackground(shot.pixel(Math.round(o.x + fs1.width - 10), Math.round(o.y + yOf(fs1, focusBox.level) + fs1.level_px / 2 + 3))), `${name}: the zoomed node drawn across`);
  await page.mouse.click(o.x + fs1.width / 2, o.y + yOf(fs1, focusBox.level) + fs1.level_px / 2);
  await frames(page);
  // Back up one level: to the parent, or to the whole tree from a root (or from a one-root tree's child).
  const at = wholeRows.findIndex((r) => r.node === child.node);
  const parent = wholeRows.slice(0, at).reverse().find((r) => r.depth === childRow.depth - 1);
  const roots = wholeRows.filter((r) => r.depth === 0).length;
  const back = !parent || (parent.depth === 0 && roots === 1) ? null : parent.node;
  assert.equal((await viewState(page)).focus, back, `${name}: a click on the zoomed root goes back up`);
  if (back !== null) {
    await page.keyboard.press('f');
    await frames(page);
    assert.equal((await viewState(page)).focus, null, `${name}: F shows the whole tree`);
  }

  // The icicle: roots at the top.
  await page.click('#calltree-icicle');
  await page.waitForFunction(() => window.weft.viewer.view_state().icicle === true);
  await frames(page);
  const ic = await viewState(page);
  shot = await screenshot(page, `calltree-${name}-${backend}-icicle`);
  const root = ic.boxes.find((b) => b.level === 0 && b.merged === 1);
  assert.ok(!isBackground(shot.pixel(Math.round(o.x + root.x0 + 4), Math.round(o.y + ic.header_px + ic.level_px / 2 + 3))), `${name}: the icicle's root at the top`);
  await page.click('#calltree-timeline');
  await page.waitForFunction(() => window.weft.viewer.view() === 'timeline');
}

for (const backend of ['webgpu', 'webgl']) {
  test(`the call-tree panel equals weft calltree, marks paths, and draws the flame graph (${backend})`, { timeout: 600_000 }, async () => {
    const dirs = [['generated', generated(), true]];
    if (fs.existsSync(STENCIL)) dirs.push(['stencil', STENCIL, backend === 'webgpu']);
    else console.log(`SKIPPED the real stencil trace: ${STENCIL} does not exist`);
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url, { width: 1500, height: 950 });
    try {
      let loads = 1;
      for (const [name, dir, full] of dirs) await checkTrace(page, dir, name, backend, ++loads, full);
      assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
}
