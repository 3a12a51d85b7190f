// The compare panel's views of the difference (issue #54, www/compare-views.js) on pairs whose difference is
// known by construction. Chrome runs of 4 threads, each `main > iterations of [compute > kernel, exchange]`,
// where in run B thread 2's kernel takes twice as long: the differential flame graph's paths are
// `weft diff --calltree --json`'s and its hover names kernel's change; the moments tab names thread 2 alone; the
// waits tab puts kernel first on the critical path; B's timeline has a hover of its own; the permalink reopens
// both runs with the alignment and the tab. Then Paraver runs of 4 and 8 tasks (paired proportionally): the
// messages tab's cells are weft diff's matrix of B minus A.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, screenshot, repoRoot, weftArgs, outDir } from '../lib/harness.mjs';
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
const cli = (...args) => JSON.parse(execFileSync(...weftArgs(...args), { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 }));
const rowsOf = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));

test('compare views: differential flame graph, moments, waits and path, B hover, permalink', { timeout: 600_000 }, async () => {
  const dir = path.join(outDir, 'compare-views');
  fs.mkdirSync(dir, { recursive: true });
  const a = path.join(dir, 'a.json'), b = path.join(dir, 'b.json');
  fs.writeFileSync(a, chromeRun(() => 1));
  fs.writeFileSync(b, chromeRun((t) => (t === SLOW ? 2 : 1)));
  const want = cli('diff', a, b, '--json', '--calltree');
  const { server, url } = await startServer();
  const rel = (p) => `/${path.relative(repoRoot, p)}`;
  let { browser, page, problems } = await openPage('webgpu', `${url}?trace=${rel(a)}&compare=${rel(b)}`, { width: 1280, height: 900 });
  try {
    await compared(page, ['a.json', 'b.json']);
    await frames(page);

    // The flame graph: B's tree coloured by each path's change, the paths weft diff --calltree's.
    await page.click('.compare-tabs button[data-tab="flame"]');
    await page.waitForFunction(() => { const i = document.getElementById('compare-flame-img'); return i && i.complete && i.naturalWidth > 0; }, null, { timeout: 60_000 });
    const answer = await page.evaluate(() => window.weft.compare.flame.answer);
    assert.deepEqual(answer.paths, want.calltree.paths, 'the page pairs the call paths as weft diff --calltree --json');
    assert.deepEqual(answer.total_ns, want.calltree.total_ns);
    const kernel = answer.paths.findIndex((p) => p.path.join('/') === 'main/compute/kernel');
    assert.equal(answer.paths[kernel].delta_exclusive_ns, ITERATIONS * 1_000_000, 'by construction: 5 kernels 1 ms slower');
    const changed = answer.paths.filter((p) => p.delta_exclusive_ns !== 0).map((p) => p.path.join('/'));
    assert.deepEqual(changed, ['main/compute/kernel'], 'the only path whose own time changed');
    // Hover over kernel's box: the path with A, B and the change.
    const box = answer.boxes.find((x) => x.path === kernel && x.merged === 1);
    assert.ok(box, 'kernel has a box of its own');
    await page.locator('#compare-flame-img').scrollIntoViewIfNeeded();
    const img = await page.locator('#compare-flame-img').boundingBox();
    await page.mouse.move(img.x + box.x + box.w / 2, img.y + box.y + box.h / 2);
    await page.waitForSelector('#compare-flame-tip:not([hidden])');
    const tip = await page.textContent('#compare-flame-tip');
    assert.match(tip, /main › compute › kernel/);
    assert.match(tip, /own time\s+A 20\.000 ms\s+B 25\.000 ms\s+Δ \+5\.000 ms/, tip);
    // The kernel's pixels are red, exchange's grey (the picture as drawn, under the pointer's box).
    const exchange = answer.boxes.find((x) => answer.paths[x.path].path.join('/') === 'main/exchange' && x.merged === 1);
    const colour = async (bx) => {
      const shot = decodePng(await page.screenshot({ clip: { x: Math.round(img.x + bx.x + bx.w / 2), y: Math.round(img.y + bx.y + 3), width: 1, height: 1 } }));
      return shot.pixel(0, 0);
    };
    const [kr, kg, kb] = await colour(box);
    assert.ok(kr > kg + 40 && kr > kb + 40, `kernel's box is red: ${[kr, kg, kb]}`);
    const [er, eg, eb] = await colour(exchange);
    assert.ok(Math.abs(er - eg) < 12 && Math.abs(eg - eb) < 16, `exchange's box is grey: ${[er, eg, eb]}`);
    await screenshot(page, 'compare-flame');

    // Moments: thread 2 alone changed its busy time, by 5 ms.
    await page.click('.compare-tabs button[data-tab="moments"]');
    const moments = await rowsOf(page, '#compare-moments');
    assert.equal(moments.length, THREADS);
    const fmt = (ns) => page.evaluate((ns) => window.weft.viewer.format_duration(ns), ns);
    for (const [k, row] of moments.entries()) {
      assert.equal(row[0], want.locations[k].a.name);
      assert.equal(row[3], k === SLOW ? `+${await fmt(5_000_000)}` : await fmt(0), `Δ m0 of ${row[0]}`);
    }
    await screenshot(page, 'compare-moments');

    // Waits and the critical path: no waiting in these runs; kernel grew most on the path.
    await page.click('.compare-tabs button[data-tab="waits"]');
    assert.match(await page.textContent('#compare-waits-said'), /Waiting: A 0 ns, B 0 ns/);
    const pathRows = await rowsOf(page, '#compare-path');
    assert.equal(pathRows[0][0], 'kernel', `kernel first: ${JSON.stringify(pathRows)}`);
    assert.deepEqual(pathRows.map((r) => r[0]), want.waits.critical_path.filter((r) => r.delta_ns !== 0).map((r) => r.name));
    await page.click('.compare-tabs button[data-tab="matrix"]');
    assert.match(await page.textContent('#compare-tab-body'), /Neither run has messages/);

    // B's hover: over B's timeline, its own tooltip lettered B names what is under the pointer.
    const stageB = await page.locator('#stage-b').boundingBox();
    let tipB = null;
    for (let y = stageB.y + 30; y < stageB.y + stageB.height && !tipB; y += 6) {
      await page.mouse.move(stageB.x + stageB.width * 0.6, y);
      tipB = await page.evaluate(() => { const t = document.getElementById('tooltip-b'); return t && !t.hidden ? t.textContent : null; });
    }
    assert.ok(tipB, 'a hover over B shows its tooltip');
    assert.match(tipB, /^B /);
    assert.match(tipB, /main|compute|kernel|exchange/);
    await screenshot(page, 'compare-hover-b');

    // The permalink: aligned at kernel's 2nd instance, on the moments tab; a new page from the link opens
    // both runs with the same settings.
    await page.click('.compare-tabs button[data-tab="moments"]');
    await page.selectOption('#compare-align', 'region');
    await page.fill('#compare-region', 'kernel');
    await page.fill('#compare-instance', '2');
    await page.dispatchEvent('#compare-instance', 'change');
    await page.waitForFunction(() => window.weft.compare.comparison.options.align.by === 'region');
    const link = await page.evaluate(() => { window.weft.permalink.write(); return location.href; });
    assert.match(link, /compare=/);
    assert.match(link, /calign=region%3Akernel%3A2/);
    assert.match(link, /ctab=moments/);
    await browser.close();
    ({ browser, page, problems } = await openPage('webgpu', link, { width: 1280, height: 900 }));
    await compared(page, ['a.json', 'b.json']);
    await page.waitForFunction(() => window.weft.compare.comparison.options.align.by === 'region');
    const reopened = await page.evaluate(() => ({ align: window.weft.compare.comparison.options.align, tab: window.weft.compare.tab,
      selected: document.querySelector('.compare-tabs button[aria-selected="true"]').dataset.tab }));
    assert.deepEqual(reopened, { align: { by: 'region', name: 'kernel', instance: 2 }, tab: 'moments', selected: 'moments' });
    assert.equal(await page.inputValue('#compare-region'), 'kernel');
    await screenshot(page, 'compare-permalink');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('compare views: the messages of B minus A, 4 against 8 Paraver tasks', { timeout: 600_000 }, async () => {
  const dir = path.join(outDir, 'compare-matrix');
  fs.mkdirSync(dir, { recursive: true });
  const a = path.join(dir, 'a'), b = path.join(dir, 'b');
  execFileSync(...weftArgs('generate', 'paraver', '-o', a, '--tasks', '4'), { cwd: repoRoot });
  execFileSync(...weftArgs('generate', 'paraver', '-o', b, '--tasks', '8'), { cwd: repoRoot });
  // Each .prv alone (no .pcf or .row beside it), so that the CLI reads what the page fetches.
  const [ta, tb] = [path.join(dir, 'a.prv'), path.join(dir, 'b.prv')];
  fs.copyFileSync(path.join(a, 'trace.prv'), ta);
  fs.copyFileSync(path.join(b, 'trace.prv'), tb);
  const want = cli('diff', ta, tb, '--json', '--ranks', 'proportional');
  const cells = want.comm_matrix.delta.count;
  assert.ok(cells.flat().some((v) => v !== 0), 'the runs differ in their messages');
  const { server, url } = await startServer();
  const rel = (p) => `/${path.relative(repoRoot, p)}`;
  const { browser, page, problems } = await openPage('webgpu', `${url}?trace=${rel(ta)}&compare=${rel(tb)}&cranks=proportional&ctab=matrix`, { width: 1280, height: 900 });
  try {
    await compared(page, ['a.prv', 'b.prv']);
    await page.waitForSelector('#compare-matrix');
    const shown = await page.$$eval('#compare-matrix tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.delta))));
    assert.deepEqual(shown, cells, 'the cells are weft diff --ranks proportional\'s matrix of B minus A');
    const reds = await page.$$eval('#compare-matrix td', (tds) => tds.filter((td) => Number(td.dataset.delta) > 0 && td.style.background.startsWith('rgba(214, 39, 40')).length);
    assert.equal(reds, cells.flat().filter((v) => v > 0).length, 'every cell B has more of is red');
    await page.selectOption('#compare-matrix-unit', 'bytes');
    const bytes = await page.$$eval('#compare-matrix tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.delta))));
    assert.deepEqual(bytes, want.comm_matrix.delta.bytes);
    await screenshot(page, 'compare-matrix');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
