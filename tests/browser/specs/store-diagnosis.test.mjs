// The diagnosis on a store's timeline (issue #53): a generated MPI run indexed with `weft index --waits` is
// opened from a URL; the Diagnosis panel's waits toggle (on by default) hatches where waiting concentrates per
// row and bin, read per view from the wait summary tiles (the store worker answers them beside the view), as
// opaque as the share of the bin's time spent waiting on a fixed scale (said in the panel): the bin where the
// most of its time is waiting is hatched at its share's opacity (read back from the pixels against the same
// view with the toggle off), a location that never waits is not, and the rows are unhatched with the toggle
// off; the critical path toggle draws the path (from the path
// tiles) on the row with the most path time in the path's colour, and nothing of it once off; zoomed in to
// level 0 both are still drawn (the finest level's bins, the path's segments of the window); a click on a
// location in the panel scrolls the timeline to its row and marks it. The page reads no waits tile (a block's
// every wait) and computes nothing. A second test shows only the first rows: the path's jumps to rows of a
// block not shown are drawn to the plot's edge, ending in an arrow there (the path tiles of every block are
// read). Screenshots: tests/out/store-diagnosis-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { repoRoot, outDir, viewState, stageOrigin, screenshot, weftArgs } from '../lib/harness.mjs';
import { openStore, frames, settled as settledStore } from '../lib/store-page.mjs';

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));

const HATCH = [0x9c, 0x1a, 0x6e];
const CAUSE = [0xd6, 0x00, 0x8a];
const PATH = [0x00, 0xb3, 0x5c];

const settled = (page) => settledStore(page, 120_000);

/** Pixels of a horizontal band [x0, x1] x [y0, y1] (screen) within `tol` of `rgb`. */
function count(shot, o, [x0, x1], [y0, y1], [R, G, B], tol = 40) {
  let n = 0;
  for (let y = Math.round(y0); y <= Math.round(y1); y++) {
    for (let x = Math.round(x0); x <= Math.round(x1); x++) {
      const [a, b, c] = shot.pixel(Math.round(o.x + x), Math.round(o.y + y));
      if (Math.abs(a - R) <= tol && Math.abs(b - G) <= tol && Math.abs(c - B) <= tol) n++;
    }
  }
  return n;
}

const rowOf = (vs, l) => vs.rows.find((r) => r.location === l);

/** The hatch's opacity in a band, read from the pixels: for each pixel the share of the way from its colour
 *  without the hatching (`off`) to the hatch colour that it moved (`on`), the most of any pixel (the stripes'
 *  middles; where the colour under it is far enough from the hatch's to tell); and how many pixels changed. */
function hatchAlpha(on, off, o, [x0, x1], [y0, y1]) {
  let most = 0;
  let changed = 0;
  for (let y = Math.round(y0); y <= Math.round(y1); y++) {
    for (let x = Math.round(x0); x <= Math.round(x1); x++) {
      const [px, py] = [Math.round(o.x + x), Math.round(o.y + y)];
      const c = on.pixel(px, py);
      const u = off.pixel(px, py);
      if (c.some((v, k) => Math.abs(v - u[k]) > 6)) changed++;
      const d = HATCH.map((h, k) => h - u[k]);
      const dd = d.reduce((a, v) => a + v * v, 0);
      if (dd < 80 * 80) continue;
      most = Math.max(most, d.reduce((a, v, k) => a + v * (c[k] - u[k]), 0) / dd);
    }
  }
  return { alpha: most, changed };
}

/** The opacity the fixed scale gives a bin waiting `share` of its time (twentieths, up to the next). */
const scaleAlpha = (share) => Math.min(20, Math.max(1, Math.ceil(share * 20))) / 20;

test('a store indexed with --waits: waiting hatched per bin, the critical path drawn, a location marked', { timeout: 600_000 }, async (t) => {
  const dir = path.join(outDir, 'store-diagnosis-gen');
  const store = path.join(outDir, 'store-diagnosis-store');
  fs.rmSync(dir, { recursive: true, force: true });
  // 4 ranks of 2 threads: every row on screen at once.
  weft('generate', 'otf2', '-o', dir, '--ranks', '4', '--threads-per-rank', '2', '--events', '400000');
  // Small tiles: many windows, so the whole run is drawn from a pyramid level with several blocks of rows.
  weft('index', dir, '-o', store, '--waits', '--block', '4', '--tile-intervals', '2048', '--force');
  const report = weftJson('waits', store);
  const pathReport = weftJson('critical-path', store);
  assert.ok(report.total_wait_ns > 0, 'the generated run waits');
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  assert.ok(manifest.levels.length >= 1, 'a pyramid');
  const nl = manifest.locations.process.length;
  const waiting = new Array(nl).fill(0);
  for (const p of Object.values(report.patterns)) p.per_location.forEach((ns, l) => { waiting[l] += ns; });
  const idle = waiting.findIndex((ns) => ns === 0);

  const { page, problems } = await openStore(t, store, { width: 1500, height: 950 });
  const rel = (p) => path.relative(repoRoot, p);
  // Every store file the page fetches (the waits tiles, a block's every wait, must never be).
  const fetched = [];
  page.on('request', (r) => { const u = r.url(); if (u.includes(rel(store))) fetched.push(u.slice(u.indexOf(rel(store)) + rel(store).length + 1)); });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
  await settled(page);
  let vs = await viewState(page);
  assert.match(vs.store.shown, /^level /, 'the whole run is drawn from the pyramid');
  assert.equal(vs.store.diagnosis.overlay, null, 'nothing of the diagnosis asked before the panel');
  const o = await stageOrigin(page);
  const xOf = (v, tns) => v.track_x0 + ((tns - v.t0_ns) / (v.t1_ns - v.t0_ns)) * (v.width - v.track_x0);

  // The panel opened: its waits toggle is on, so the view is asked again with its waiting per bin.
  await page.click('#diagnosis-toggle');
  await page.waitForFunction(() => (window.weft.diagnoses || 0) >= 1, null, { timeout: 120_000 });
  await page.waitForSelector('#diagnosis-body:not([hidden])');
  assert.equal(await page.$eval('#diagnosis-waits', (b) => b.checked && !b.disabled), true);
  assert.equal(await page.$eval('#diagnosis-path', (b) => !b.disabled), true, 'a store of format 7 keeps the path');
  await page.waitForFunction(() => window.weft.viewer.view_state().store.diagnosis.overlay !== null, null, { timeout: 120_000 });
  await settled(page);
  vs = await viewState(page);
  let d = vs.store.diagnosis;
  assert.equal(d.show_waits, true);
  assert.equal(d.overlay.level, Number(vs.store.shown.split(' ')[1]), 'the bins of the level drawn');
  assert.ok(d.overlay.waiting_ns > 0 && d.overlay.worst_bin, JSON.stringify(d.overlay));
  assert.ok(d.overlay.waiting_ns <= report.total_wait_ns, 'the bins hold no more than the run waits');
  assert.match(await page.$eval('#diagnosis-scale', (e) => e.textContent), /share of each bin's time spent waiting, 0 – 100 %/, 'the scale said');
  let shot = await screenshot(page, 'store-diagnosis-waits');
  const band = (v, l, pad = 2) => { const r = rowOf(v, l); return [r.y + pad, r.y + r.lanes * v.lane_px - pad]; };
  const worst = d.overlay.worst_bin;
  const share = worst.ns / Math.max(1, worst.end_ns - worst.start_ns);
  const wx = xOf(vs, (worst.start_ns + worst.end_ns) / 2);
  const plot = [vs.track_x0 + 2, vs.width - 4];
  // Off: the same view unhatched, to read the hatching's opacity against.
  await page.uncheck('#diagnosis-waits');
  await frames(page, 3);
  const off = await screenshot(page, 'store-diagnosis-waits-off');
  assert.equal(count(off, o, [wx - 3, wx + 3], band(vs, worst.location), HATCH, 12), 0, 'waits off: no hatching');
  const got = hatchAlpha(shot, off, o, [wx - 3, wx + 3], band(vs, worst.location));
  console.log(`# the most waiting bin (location ${worst.location}) waits ${(share * 100).toFixed(1)} % of its time: hatched at ${(got.alpha * 100).toFixed(0)} % (scale ${(scaleAlpha(share) * 100).toFixed(0)} %)`);
  assert.ok(got.changed > 0, `the most waiting bin (location ${worst.location}) is hatched`);
  // Its opacity is its share of the bin's time on the fixed scale, not the most on screen's (which is opaque).
  assert.ok(Math.abs(got.alpha - scaleAlpha(share)) <= 0.12, `hatched at ${got.alpha.toFixed(2)}, the scale says ${scaleAlpha(share)} for ${share.toFixed(3)}`);
  if (idle >= 0 && rowOf(vs, idle)) {
    assert.equal(hatchAlpha(shot, off, o, plot, band(vs, idle)).changed, 0, `location ${idle} never waits: no hatching on its row`);
  } else console.log('# every location waits: no unhatched row to check');
  await page.check('#diagnosis-waits');
  await settled(page);

  // The critical path: on, drawn along the row with the most path time; off, gone.
  const top = pathReport.by_location.map((ns, l) => ({ l, ns })).sort((a, b) => b.ns - a.ns)[0];
  await page.check('#diagnosis-path');
  await page.waitForFunction(() => { const o = window.weft.viewer.view_state().store.diagnosis.overlay; return o && o.path; }, null, { timeout: 120_000 });
  await settled(page);
  vs = await viewState(page);
  d = vs.store.diagnosis;
  assert.ok(d.show_path && d.overlay.path_segments > 0, JSON.stringify(d.overlay));
  shot = await screenshot(page, 'store-diagnosis-path');
  const pathRow = rowOf(vs, top.l);
  const mid = pathRow.y + vs.lane_px / 2;
  const green = count(shot, o, plot, [mid - 2, mid + 2], PATH, 30);
  assert.ok(green > 0, `the path drawn on location ${top.l}'s row (${top.ns} ns of it)`);
  await page.uncheck('#diagnosis-path');
  await frames(page, 3);
  shot = await screenshot(page, 'store-diagnosis-path-off');
  assert.equal(count(shot, o, plot, [mid - 2, mid + 2], PATH, 30), 0, 'path off: not drawn');
  await page.check('#diagnosis-path');
  await settled(page);

  // Zoomed in to the exact records around the worst bin: still hatched (the finest level's bins: the most
  // waiting one on screen, opaque) and the path drawn (its segments in the window).
  const c = (worst.start_ns + worst.end_ns) / 2;
  const w = Math.max(2e4, (worst.end_ns - worst.start_ns) / 4);
  await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [c - w, c + w]);
  await page.waitForFunction(() => window.weft.viewer.view_state().store.shown === 'exact', null, { timeout: 120_000 });
  await settled(page);
  vs = await viewState(page);
  d = vs.store.diagnosis;
  assert.equal(d.overlay.level, Math.min(...manifest.levels.map((l) => l.level)), 'the finest level under exact records');
  assert.ok(d.overlay.t0_ns <= c - w + 1 && d.overlay.t1_ns >= Math.min(c + w, manifest.span_ns) - 1, 'the overlay covers the view');
  shot = await screenshot(page, 'store-diagnosis-exact');
  const fine = d.overlay.worst_bin;
  const ex = xOf(vs, (Math.max(fine.start_ns, vs.t0_ns) + Math.min(fine.end_ns, vs.t1_ns)) / 2);
  await page.uncheck('#diagnosis-waits');
  await frames(page, 3);
  const exactOff = await screenshot(page, 'store-diagnosis-exact-off');
  const fineGot = hatchAlpha(shot, exactOff, o, [ex - 3, ex + 3], band(vs, fine.location));
  const fineShare = fine.ns / Math.max(1, fine.end_ns - fine.start_ns);
  assert.ok(fineGot.changed > 0, `hatched at level 0 too (location ${fine.location})`);
  assert.ok(Math.abs(fineGot.alpha - scaleAlpha(fineShare)) <= 0.12, `level 0: hatched at ${fineGot.alpha.toFixed(2)}, the scale says ${scaleAlpha(fineShare)}`);
  await page.check('#diagnosis-waits');
  await settled(page);
  const segs = await page.evaluate(() => window.weft.viewer.view_state().store.diagnosis.overlay.path_segments);
  assert.ok(segs > 0, 'the path crosses the window');

  // A click on a location of the panel scrolls to its row and marks it.
  await page.evaluate(() => window.weft.viewer.fit());
  await settled(page);
  const line = await page.$eval('#diagnosis-locations tbody tr[data-id]', (r) => Number(r.dataset.id));
  await page.click(`#diagnosis-locations tbody tr[data-id="${line}"]`);
  await page.waitForSelector(`#diagnosis-locations tbody tr[data-id="${line}"][aria-selected="true"]`);
  await settled(page);
  vs = await viewState(page);
  assert.equal(vs.store.diagnosis.marked, line);
  const marked = rowOf(vs, line);
  assert.ok(marked && marked.y >= vs.axis_px && marked.y < vs.height, 'the marked row is on screen');
  shot = await screenshot(page, 'store-diagnosis-marked');
  assert.ok(count(shot, o, [vs.track_x0 + 1, vs.track_x0 + 3], [marked.y, marked.y + marked.lanes * vs.lane_px], CAUSE, 50) > 0, 'its row outlined');

  if (fetched.length) {
    assert.ok(!fetched.some((f) => /^w\//.test(f)), `no waits tile fetched: ${fetched.filter((f) => /^w\//.test(f)).join(', ')}`);
    assert.ok(fetched.some((f) => /^v\//.test(f)) && fetched.some((f) => /^r\//.test(f)), 'wait summary and path tiles fetched');
  } else console.log('# the store worker\'s fetches were not reported to the page: the tiles fetched not checked');
  assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
  assert.deepEqual(problems, []);
});

test('a store\'s critical path jumping to a block of rows not shown is drawn to the edge', { timeout: 600_000 }, async (t) => {
  // 8 single-thread ranks (the path moves among them: hundreds of segments), blocks of 2 rows.
  const dir = path.join(outDir, 'store-diagnosis-jumps-gen');
  const store = path.join(outDir, 'store-diagnosis-jumps-store');
  fs.rmSync(dir, { recursive: true, force: true });
  weft('generate', 'otf2', '-o', dir, '--ranks', '8', '--events', '200000');
  weft('index', dir, '-o', store, '--waits', '--block', '2', '--tile-intervals', '2048', '--force');
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  assert.ok(manifest.critical_path.segments > 10, `the path jumps among the ranks (${manifest.critical_path.segments} segments)`);
  const block = manifest.tiling.block_locations;
  // A short page: only the first rows are on screen.
  const { page, problems } = await openStore(t, store, { width: 1500, height: 330 });
  await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
  await settled(page);
  await page.click('#diagnosis-toggle');
  await page.waitForSelector('#diagnosis-body:not([hidden])');
  await page.uncheck('#diagnosis-waits');
  await page.check('#diagnosis-path');
  await page.waitForFunction(() => { const o = window.weft.viewer.view_state().store.diagnosis.overlay; return o && o.path; }, null, { timeout: 120_000 });
  await settled(page);
  const vs = await viewState(page);
  const d = vs.store.diagnosis;
  // The plot's bottom edge (where a jump below ends): the brief's, else the page's.
  const plotBottom = (d.off_screen_jumps.find((j) => j.edge === 'bottom') || { y: vs.height }).y;
  const shown = vs.rows.filter((r) => r.y + vs.lane_px / 2 <= plotBottom).map((r) => r.location);
  // The blocks with no row on screen: the view asks nothing of them, but the path's tiles of every block.
  const blockOf = (l) => Math.floor(l / block);
  const shownBlocks = new Set(shown.map(blockOf));
  assert.ok(shown.length > 0 && shown.length < vs.rows.length, `some rows on screen, not all (${shown.join(', ')})`);
  const jumps = d.off_screen_jumps.filter((j) => !shownBlocks.has(blockOf(j.to)) || !shownBlocks.has(blockOf(j.from)));
  assert.ok(jumps.length > 0, `the path jumps to a block of rows not shown: ${JSON.stringify(d.off_screen_jumps.slice(0, 4))}`);
  const o = await stageOrigin(page);
  const shot = await screenshot(page, 'store-diagnosis-path-off-screen');
  const xOf = (tns) => vs.track_x0 + ((tns - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);
  // At each such jump, the path's green runs to the plot's edge (its arrow there).
  let drawn = 0;
  for (const j of jumps) {
    const x = Math.floor(xOf(j.t_ns));
    const ys = j.edge === 'bottom' ? [j.y - 10, j.y - 1] : [j.y + 1, j.y + 10];
    if (count(shot, o, [x - 2, x + 2], ys, PATH, 40) > 0) drawn++;
  }
  console.log(`# ${jumps.length} jumps to rows of blocks not shown, ${drawn} drawn to the edge`);
  assert.equal(drawn, jumps.length, 'every jump to a block not shown drawn to the edge');
  assert.deepEqual(problems, []);
});
