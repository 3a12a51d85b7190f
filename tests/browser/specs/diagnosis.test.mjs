// The Diagnosis panel (issue #53) on a generated OTF2 run (`weft generate otf2`) and on the real 32-rank
// Score-P stencil from ../shared/traces (skipped, saying so, when absent), on WebGPU and WebGL2: the panel opens
// from the timeline's options and its three lists' numbers equal `weft waits --json` (each pattern's total,
// the pattern's regions' `by_region`, its locations' `per_location`); a click on a pattern filters the
// regions and the locations to it, a click on a region the locations; a click on a location takes the
// timeline to its worst wait, drawn hatched (stripes of the hatch colour over the call) with an arrow to its
// cause, and a click on that hatched wait names it in the panel; the critical path's toggle draws it (pixels
// of its colour on its rows) and its report equals `weft critical-path --json`; a what-if slider moved on a
// critical-path region changes the predicted span; the moments view's busy = waiting (from the worker) gives
// each location its waiting, as `weft moments --busy waiting --json`. A trace without communication says so.
// Screenshots: tests/out/diagnosis-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, repoRoot, outDir, screenshot, weftArgs, dropFile } from '../lib/harness.mjs';
import { gridTrace } from '../lib/fixtures.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const STENCIL = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));

/** The generated run: 8 ranks of ring messages and collectives. */
function generated() {
  const dir = path.join(outDir, 'diagnosis-gen');
  fs.rmSync(dir, { recursive: true, force: true });
  weft('generate', 'otf2', '-o', dir, '--ranks', '8', '--events', '20000');
  return dir;
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Open the panel (or ask again) and wait for the worker's diagnosis of the trace shown. */
async function diagnosed(page, before) {
  await page.waitForFunction((n) => (window.weft.diagnoses || 0) > n, before, { timeout: 120_000 });
  await frames(page);
  return page.evaluate(() => window.weft.viewer.diagnosis_lists(-1, -1));
}

/** The lines of a panel list as shown: [{id, ns, name}]. */
const listed = (page, id) => page.$$eval(`#${id} tbody tr[data-id]`, (rows) => rows.map((r) => ({
  id: Number(r.dataset.id), ns: Number(r.dataset.ns), name: r.querySelector('td.name').textContent,
})));

/** Count pixels near (x, y) within r whose colour is within `tol` of `rgb`. */
function near(shot, x, y, r, [R, G, B], tol = 40) {
  let n = 0;
  for (let dy = -r; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      const [a, b, c] = shot.pixel(Math.round(x + dx), Math.round(y + dy));
      if (Math.abs(a - R) <= tol && Math.abs(b - G) <= tol && Math.abs(c - B) <= tol) n++;
    }
  }
  return n;
}
const HATCH = [0x9c, 0x1a, 0x6e];
const CAUSE = [0xd6, 0x00, 0x8a];
const PATH = [0x00, 0xb3, 0x5c];

async function checkTrace(page, dir, name, backend, loads) {
  const report = weftJson('waits', dir);
  const pathReport = weftJson('critical-path', dir);
  const before = await page.evaluate(() => window.weft.diagnoses || 0);
  await page.setInputFiles('#folder-input', dir);
  await waitReady(page, loads);
  assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'timeline');
  const open = await page.$eval('#diagnosis-toggle', (b) => b.getAttribute('aria-pressed'));
  if (open !== 'true') await page.click('#diagnosis-toggle');
  await page.waitForSelector('#diagnosis-panel:not([hidden])');
  const d = await diagnosed(page, before);
  // The worker's report is `weft waits --json`, byte for byte in meaning.
  assert.deepEqual(JSON.parse(await page.evaluate(() => window.weft.viewer.diagnosis_report())), report, `${name}: the report`);
  assert.deepEqual(JSON.parse(await page.evaluate(() => window.weft.viewer.diagnosis_path_report())), pathReport, `${name}: the path report`);
  assert.ok(report.total_wait_ns > 0, `${name} waits`);
  assert.equal(d.total_wait_ns, report.total_wait_ns);

  // The patterns list: every pattern with waiting, its total as the CLI's.
  const patterns = await listed(page, 'diagnosis-patterns');
  const withWaits = Object.entries(report.patterns).filter(([, p]) => p.total_ns > 0);
  assert.equal(patterns.length, withWaits.length, `${name}: a line per pattern with waiting`);
  for (const line of patterns) {
    const p = d.patterns.find((x) => x.id === line.id);
    assert.equal(line.ns, report.patterns[p.key].total_ns, `${name}: ${p.key} total`);
  }
  // Unfiltered, the regions and locations lists sum every pattern.
  const allLocations = await listed(page, 'diagnosis-locations');
  const perLocation = new Array(report.patterns[withWaits[0][0]].per_location.length).fill(0);
  for (const [, p] of withWaits) p.per_location.forEach((ns, l) => { perLocation[l] += ns; });
  for (const l of allLocations) assert.equal(l.ns, perLocation[l.id], `${name}: location ${l.id} over all patterns`);

  // A click on the largest pattern filters the regions and locations to it.
  const top = d.patterns[0];
  await page.click(`#diagnosis-patterns tbody tr[data-id="${top.id}"]`);
  await page.waitForSelector(`#diagnosis-patterns tbody tr[data-id="${top.id}"][aria-selected="true"]`);
  const regions = await listed(page, 'diagnosis-regions');
  assert.deepEqual(regions.map((r) => [r.name, r.ns]), report.patterns[top.key].by_region.map((r) => [r.name, r.ns]), `${name}: ${top.key}'s regions`);
  const locations = await listed(page, 'diagnosis-locations');
  const want = report.patterns[top.key].per_location.map((ns, id) => ({ id, ns })).filter((l) => l.ns > 0);
  assert.deepEqual(locations.map((l) => [l.id, l.ns]).sort((a, b) => a[0] - b[0]), want.map((l) => [l.id, l.ns]), `${name}: ${top.key}'s locations`);
  // A click on its first region filters the locations to the pattern in that region.
  await page.click('#diagnosis-regions tbody tr[data-id]');
  const inRegion = await listed(page, 'diagnosis-locations');
  const sum = inRegion.reduce((s, l) => s + l.ns, 0);
  assert.equal(sum, regions[0].ns, `${name}: the locations of ${regions[0].name} sum to its time`);
  await screenshot(page, `diagnosis-${name}-${backend}-lists`);

  // A click on the worst location takes the timeline to its worst wait, hatched, with an arrow to its cause.
  await page.click('#diagnosis-locations tbody tr[data-id]');
  await page.waitForSelector('#diagnosis-wait .wait-text');
  const wait = await page.evaluate(() => window.weft.viewer.diagnosis_selected_wait());
  assert.ok(wait && wait.location === inRegion[0].id, `${name}: the selected wait is the location's`);
  assert.ok(wait.text.includes(' waits ') && wait.text.includes(wait.region), wait.text);
  await frames(page);
  let vs = await viewState(page);
  assert.ok(vs.t0_ns <= wait.start_ns && wait.end_ns <= vs.t1_ns, `${name}: the wait is in the window`);
  const row = vs.rows.find((r) => r.location === wait.location);
  assert.ok(row && row.y >= vs.axis_px && row.y < vs.height, `${name}: the wait's row is on screen`);
  const xOf = (t) => vs.track_x0 + ((t - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);
  const o = await stageOrigin(page);
  let shot = await screenshot(page, `diagnosis-${name}-${backend}-wait`);
  // Hatched: stripes of the hatch colour over the wait's middle (some pixels, not all: the call shows between).
  const [wx, wy] = [xOf((wait.start_ns + wait.end_ns) / 2), row.y + vs.lane_px / 2];
  let lane = null;
  for (let k = 0; k < row.lanes && lane === null; k++) {
    const y = row.y + (k + 0.5) * vs.lane_px;
    const n = near(shot, o.x + wx, o.y + y, 3, HATCH);
    if (n > 0 && n < 49) lane = y;
  }
  assert.ok(lane !== null, `${name}: stripes of the hatch colour over the wait at x ${wx.toFixed(0)} (row y ${wy})`);
  if (wait.cause_location !== null && wait.cause_location !== undefined) {
    const seen = near(shot, o.x + xOf(wait.end_ns), o.y + lane, 6, CAUSE);
    assert.ok(seen > 0, `${name}: the selected wait is outlined and its arrow leaves its end`);
  }
  // A click on the hatched wait selects it (the same one) and the panel names it.
  await page.evaluate(() => window.weft.viewer.timeline_wait_click(0, 0));
  await page.mouse.click(o.x + wx, o.y + lane);
  const clicked = await page.evaluate(() => window.weft.viewer.diagnosis_selected_wait());
  assert.ok(clicked && clicked.location === wait.location && clicked.start_ns <= wait.end_ns && clicked.end_ns >= wait.start_ns, `${name}: the click selects the wait`);
  const text = await page.$eval('#diagnosis-wait .wait-text', (e) => e.textContent);
  assert.equal(text, clicked.text);
  // Its root causes, which the worker finds for this one wait: "because RANK spends T more in REGION".
  if (clicked.cause_name) {
    await page.waitForFunction(() => document.querySelector('#diagnosis-wait ul.wait-causes') || /no root cause/.test(document.querySelector('#diagnosis-wait').textContent));
    const causes = await page.$$eval('#diagnosis-wait li', (l) => l.map((e) => e.textContent));
    if (causes.length) assert.ok(causes[0].startsWith(`because ${clicked.cause_name} spends more time in `) && causes[0].endsWith(' of this wait)'), causes[0]);
  }

  // The critical path: toggled on, drawn in its colour along its rows; its report is the CLI's.
  await page.evaluate(() => window.weft.viewer.fit());
  await page.check('#diagnosis-path');
  await frames(page);
  vs = await viewState(page);
  assert.equal(vs.diagnosis.show_path, true);
  shot = await screenshot(page, `diagnosis-${name}-${backend}-path`);
  const onPath = pathReport.by_location.map((ns, l) => ({ l, ns })).filter((x) => x.ns > 0).sort((a, b) => b.ns - a.ns)[0];
  const pathRow = vs.rows.find((r) => r.location === onPath.l);
  if (pathRow && pathRow.y >= vs.axis_px && pathRow.y < vs.height - 40) {
    let seen = 0;
    for (let x = vs.track_x0 + 2; x < vs.width - 2 && !seen; x += 3) seen += near(shot, o.x + x, o.y + pathRow.y + vs.lane_px / 2, 1, PATH, 30);
    assert.ok(seen > 0, `${name}: the path drawn on location ${onPath.l}'s row`);
  }
  await page.uncheck('#diagnosis-path');
  await frames(page);
  assert.equal((await viewState(page)).diagnosis.show_path, false);

  // What-if: the critical path's top region at 0.5 changes the predicted span.
  const slider = await page.$('#whatif-0');
  assert.ok(slider, `${name}: a what-if slider`);
  const whatifs = await page.evaluate(() => window.weft.whatifs || 0);
  await page.$eval('#whatif-0', (s) => { s.value = '0.5'; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); });
  await page.waitForFunction((n) => (window.weft.whatifs || 0) > n, whatifs, { timeout: 120_000 });
  const pred = await page.$eval('#diagnosis-predicted', (e) => ({ ...e.dataset, text: e.textContent }));
  assert.equal(Number(pred.recorded), pathReport.length_ns);
  assert.notEqual(Number(pred.predicted), Number(pred.recorded), `${name}: the predicted span moves (${pred.text})`);
  assert.ok(Number(pred.predicted) < Number(pred.recorded), `${name}: a path region halved shortens the run (${pred.text})`);
  await page.$eval('#diagnosis-whatif', (e) => e.scrollIntoView());
  await screenshot(page, `diagnosis-${name}-${backend}-whatif`);

  // Busy = waiting in the moments view, computed by the worker: each location's m0 is its waiting, as
  // `weft moments --busy waiting --json` says.
  await page.click('#views button[data-view="moments"]');
  await page.selectOption('#moments-busy', 'waiting');
  await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'waiting', null, { timeout: 120_000 });
  const rows = (await viewState(page)).rows;
  const cli = weftJson('moments', dir, '--busy', 'waiting');
  for (const r of rows) {
    assert.equal(r.m0_ns, cli.find((c) => c.location === r.location).m0_ns, `${name}: busy = waiting m0 of location ${r.location}`);
    assert.equal(r.m0_ns, perLocation[r.location], `${name}: location ${r.location}'s waiting`);
  }
  assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
  await screenshot(page, `diagnosis-${name}-${backend}-busy-waiting`);
  await page.selectOption('#moments-busy', 'compute');
  await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'compute', null, { timeout: 120_000 });
  await page.click('#views button[data-view="timeline"]');
}

for (const backend of ['webgpu', 'webgl']) {
  test(`the Diagnosis panel's lists equal weft waits, filter, draw waits and the path, and predict (${backend})`, { timeout: 600_000 }, async (t) => {
    const dirs = [['generated', generated()]];
    if (fs.existsSync(STENCIL)) dirs.push(['stencil', STENCIL]);
    else console.log(`SKIPPED the real stencil trace: ${STENCIL} does not exist`);
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url, { width: 1500, height: 950 });
    try {
      let loads = 1;
      for (const [name, dir] of dirs) await checkTrace(page, dir, name, backend, ++loads);

      // A trace without communication says so.
      const grid = gridTrace();
      const before = await page.evaluate(() => window.weft.diagnoses || 0);
      await dropFile(page, 'grid.json', grid.bytes);
      await waitReady(page, ++loads);
      await page.waitForFunction((n) => (window.weft.diagnoses || 0) > n, before);
      await page.waitForSelector('#diagnosis-empty:not([hidden])');
      const empty = await page.$eval('#diagnosis-empty', (e) => e.textContent);
      assert.equal(empty, 'No waiting found: this trace has no MPI calls, collectives, barriers or waits.');
      await screenshot(page, `diagnosis-empty-${backend}`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
}

// A store indexed with --waits: the panel lists the whole run's wait states the store keeps (the manifest's
// sums, `store::read::waits::overview`), the same numbers as `weft waits STORE --json`; a store indexed without
// them says how to get them.
test('the Diagnosis panel of a store lists weft waits STORE', { timeout: 600_000 }, async () => {
  const dir = generated();
  const store = path.join(outDir, 'diagnosis-store');
  const plain = path.join(outDir, 'diagnosis-store-plain');
  weft('index', dir, '-o', store, '--waits', '--force');
  weft('index', dir, '-o', plain, '--force');
  const report = weftJson('waits', store);
  assert.ok(report.total_wait_ns > 0, 'the generated run waits');
  const { server, url } = await startServer();
  try {
    const rel = (p) => path.relative(repoRoot, p);
    let b = await openPage('webgpu', `${url}?store=${url}${rel(store)}/`, { width: 1500, height: 950 });
    try {
      const { page } = b;
      await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
      await page.click('#diagnosis-toggle');
      await page.waitForFunction(() => (window.weft.diagnoses || 0) >= 1, null, { timeout: 120_000 });
      await page.waitForSelector('#diagnosis-body:not([hidden])');
      const caption = await page.$eval('#diagnosis-caption', (e) => e.textContent);
      assert.match(caption, /^the whole run: waiting /, caption);
      const patterns = await listed(page, 'diagnosis-patterns');
      const withWaits = Object.entries(report.patterns).filter(([, p]) => p.total_ns > 0);
      assert.equal(patterns.length, withWaits.length, 'a line per pattern with waiting');
      assert.deepEqual(patterns.map((p) => p.ns).sort((a, c) => c - a), withWaits.map(([, p]) => p.total_ns).sort((a, c) => c - a));
      const perLocation = new Array(withWaits[0][1].per_location.length).fill(0);
      for (const [, p] of withWaits) p.per_location.forEach((ns, l) => { perLocation[l] += ns; });
      for (const l of await listed(page, 'diagnosis-locations')) assert.equal(l.ns, perLocation[l.id], `location ${l.id} over all patterns`);
      // The largest pattern chosen: its regions and locations as the CLI lists them.
      const top = withWaits.sort((a, c) => c[1].total_ns - a[1].total_ns)[0][1];
      const line = patterns.find((p) => p.ns === top.total_ns);
      await page.click(`#diagnosis-patterns tbody tr[data-id="${line.id}"]`);
      await page.waitForSelector(`#diagnosis-patterns tbody tr[data-id="${line.id}"][aria-selected="true"]`);
      const regions = await listed(page, 'diagnosis-regions');
      assert.deepEqual(regions.map((r) => [r.name, r.ns]), top.by_region.map((r) => [r.name, r.ns]));
      const locations = await listed(page, 'diagnosis-locations');
      assert.deepEqual(locations.map((l) => [l.id, l.ns]).sort((a, c) => a[0] - c[0]),
        top.per_location.map((ns, id) => [id, ns]).filter(([, ns]) => ns > 0));
      const causes = await page.$$eval('#diagnosis-wait ul.wait-causes li', (li) => li.map((x) => x.textContent));
      assert.ok(causes.length > 0 && causes.every((c) => / because .* spends more time in /.test(c)), JSON.stringify(causes));
      await screenshot(page, 'diagnosis-store-lists');
      assert.deepEqual(b.problems, []);
    } finally {
      await b.browser.close();
    }
    b = await openPage('webgpu', `${url}?store=${url}${rel(plain)}/`, { width: 1200, height: 800 });
    try {
      const { page } = b;
      await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
      await page.click('#diagnosis-toggle');
      await page.waitForSelector('#diagnosis-empty:not([hidden])');
      await page.waitForFunction(() => /keeps no wait states/.test(document.querySelector('#diagnosis-empty').textContent), null, { timeout: 60_000 });
      const empty = await page.$eval('#diagnosis-empty', (e) => e.textContent);
      assert.match(empty, /indexed without --waits: run weft index --waits/, empty);
      assert.deepEqual(b.problems, []);
    } finally {
      await b.browser.close();
    }
  } finally {
    server.close();
  }
});
