// The duration histogram panel (issue #55) on a generated Chrome trace of known durations and on the real
// 32-rank Score-P stencil from ../shared/traces (skipped, saying so, when absent): the panel opens from the
// timeline's options; a region's numbers (count, min, p50, p90, p99, max, every bin) equal `weft histogram
// --json` of the same selection (the whole run, the visible window, a location filter), and on the generated
// trace the percentiles a sort of the known durations gives; a row clicked in the profile panel opens its
// histogram; brushing a bin, then a run of bins, lists exactly the instances with durations in them, slowest
// first, and marks them all in the timeline; a listed instance's click zooms the timeline to it; the outliers
// table equals `weft histogram --outliers --json`. Screenshots: tests/out/histogram-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, repoRoot, outDir, screenshot, weftArgs } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const STENCIL = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** A Chrome trace: region `work` with durations 1..200 us (on 4 threads, interleaved), `idle` between. */
function knownDurations() {
  const events = [];
  const at = [0, 0, 0, 0];
  for (let d = 1; d <= 200; d++) {
    const tid = d % 4;
    events.push({ name: 'work', ph: 'X', pid: 1, tid, ts: at[tid], dur: d });
    events.push({ name: 'idle', ph: 'X', pid: 1, tid, ts: at[tid] + d, dur: 3 });
    at[tid] += d + 3;
  }
  const file = path.join(outDir, 'histogram-known.json');
  fs.writeFileSync(file, JSON.stringify({ traceEvents: events }));
  return file;
}

/** Ask the panel (`act`) and wait for the worker's histogram. */
async function computed(page, act = () => page.click('#histogram-run')) {
  const before = await page.evaluate(() => window.weft.histograms || 0);
  await act();
  await page.waitForFunction((n) => (window.weft.histograms || 0) > n, before, { timeout: 120_000 });
  await frames(page);
}

/** The panel's numbers as it shows them (the DOM's data attributes): {count, min_ns, ..., bins}. */
async function shown(page) {
  return page.evaluate(() => {
    const out = {};
    for (const dd of document.querySelectorAll('#histogram-stats dd')) out[dd.dataset.key] = Number(dd.dataset.value);
    out.bins = [...document.querySelectorAll('#histogram-bars [data-bin]')].map((b) => ({ lo_ns: Number(b.dataset.lo), hi_ns: Number(b.dataset.hi), count: Number(b.dataset.count) }));
    return out;
  });
}

function sameAsCli(got, cli, what) {
  assert.deepEqual(got, { count: cli.count, min_ns: cli.min_ns, p50_ns: cli.p50_ns, p90_ns: cli.p90_ns, p99_ns: cli.p99_ns, max_ns: cli.max_ns, bins: cli.bins }, `${what}: the panel's numbers are weft histogram --json's`);
}

/** Brush bins [a, b] by dragging over them; wait for the worker's instances. */
async function brush(page, a, b) {
  const before = await page.evaluate(() => window.weft.histogramBrushes || 0);
  const box = async (k) => (await page.$(`#histogram-bars [data-bin="${k}"]`)).boundingBox();
  const [ba, bb] = [await box(a), await box(b)];
  await page.mouse.move(ba.x + ba.width / 2, ba.y + ba.height - 3);
  await page.mouse.down();
  await page.mouse.move(bb.x + bb.width / 2, bb.y + bb.height - 3, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction((n) => (window.weft.histogramBrushes || 0) > n, before, { timeout: 120_000 });
  await frames(page);
  return page.evaluate(() => ({
    count: Number(document.getElementById('histogram-picked').dataset.count),
    rows: [...document.querySelectorAll('#histogram-instances tbody tr')].map((r) => ({ interval: Number(r.dataset.interval), location: Number(r.dataset.location), start_ns: Number(r.dataset.start), dur_ns: Number(r.dataset.dur) })),
  }));
}

async function checkTrace(page, file, name, region, loads, known) {
  if (fs.statSync(file).isDirectory()) await page.setInputFiles('#folder-input', file);
  else await page.setInputFiles('#file-input', file);
  await waitReady(page, loads);
  if (await page.$eval('#histogram-toggle', (b) => b.getAttribute('aria-pressed')) !== 'true') await page.click('#histogram-toggle');
  await page.waitForSelector('#histogram-panel:not([hidden])');
  if (loads > 2) {
    await frames(page);
    assert.equal(await page.$eval('#histogram-body', (e) => e.hidden), true, `${name}: the trace before's histogram is gone`);
  }
  await page.selectOption('#histogram-scope', 'whole');
  await page.fill('#histogram-bins', '12');
  await page.fill('#histogram-region', region);
  await computed(page);
  const cli = weftJson('histogram', file, '--region', region, '--bins', '12');
  let got = await shown(page);
  sameAsCli(got, cli, `${name} ${region}, the whole run`);
  if (known) {
    // 1..200 us: nearest-rank percentiles of the sort.
    assert.deepEqual([got.count, got.min_ns, got.p50_ns, got.p90_ns, got.p99_ns, got.max_ns], [200, 1000, 100_000, 180_000, 198_000, 200_000], 'the known durations');
  }
  assert.equal(got.bins.reduce((n, b) => n + b.count, 0), got.count, 'the bins hold every instance');
  await screenshot(page, `histogram-${name}-whole`);

  // Brush the fullest bin: its instances exactly, slowest first; all marked in the timeline.
  const k = got.bins.reduce((best, b, i) => (b.count > got.bins[best].count ? i : best), 0);
  let b = await brush(page, k, k);
  assert.equal(b.count, got.bins[k].count, `${name}: the brushed bin's count`);
  assert.equal((await viewState(page)).call_path, b.count, `${name}: the brushed instances marked in the timeline`);
  assert.ok(b.rows.every((r) => r.dur_ns >= got.bins[k].lo_ns && r.dur_ns < got.bins[k].hi_ns), `${name}: only the bin's durations listed`);
  assert.ok(b.rows.every((r, i) => i === 0 || b.rows[i - 1].dur_ns >= r.dur_ns), `${name}: slowest first`);
  if (known) {
    const want = [];
    for (let d = 200; d >= 1; d--) if (d * 1000 >= got.bins[k].lo_ns && d * 1000 < got.bins[k].hi_ns) want.push(d * 1000);
    assert.deepEqual(b.rows.map((r) => r.dur_ns), want.slice(0, 200), 'the known instances of the bin');
  }
  // A run of bins: the last three.
  const n = got.bins.length;
  const a = Math.max(0, n - 3);
  b = await brush(page, a, n - 1);
  const inRun = got.bins.slice(a).reduce((s, x) => s + x.count, 0);
  assert.equal(b.count, inRun, `${name}: the run of bins' count`);
  assert.equal(b.rows[0].dur_ns, got.max_ns, `${name}: the slowest first`);
  assert.equal((await viewState(page)).call_path, inRun);
  await screenshot(page, `histogram-${name}-brushed`);
  // A click on the slowest zooms to it.
  await page.click('#histogram-instances tbody tr:first-child');
  await frames(page);
  const vs = await viewState(page);
  const slow = b.rows[0];
  assert.ok(vs.t0_ns <= slow.start_ns && vs.t1_ns >= slow.start_ns + slow.dur_ns && vs.t1_ns - vs.t0_ns <= 2.5 * slow.dur_ns + 1000, `${name}: zoomed to the instance (${vs.t0_ns}..${vs.t1_ns})`);
  await screenshot(page, `histogram-${name}-zoomed`);

  // The visible window (zoomed: that instance) and a location filter, as the CLI's of the same selection.
  await computed(page, () => page.selectOption('#histogram-scope', 'window'));
  const w = await page.evaluate(() => { const s = window.weft.viewer.view_brief(); return [Math.max(0, s.t0_ns), Math.max(0, Math.min(s.t1_ns, s.span_ns))]; });
  got = await shown(page);
  sameAsCli(got, weftJson('histogram', file, '--region', region, '--bins', '12', '--window', `${Math.floor(w[0])}:${Math.floor(w[1])}`), `${name} the visible window`);
  assert.ok(got.count >= 1);
  // The second row's location by its "process / location" name.
  const pattern = await page.evaluate(() => { const r = window.weft.viewer.view_state().rows[1]; return `${r.process} / ${r.name}`; });
  await page.fill('#histogram-locations', pattern);
  const locs = await page.evaluate((p) => Array.from(window.weft.viewer.calltree_locations(p) || []), pattern);
  assert.ok(locs.length >= 1, `${name}: the filter ${pattern} matches`);
  await computed(page, () => page.selectOption('#histogram-scope', 'whole'));
  sameAsCli(await shown(page), weftJson('histogram', file, '--region', region, '--bins', '12', '--locations', locs.join(',')), `${name} locations ${locs}`);
  await page.fill('#histogram-locations', '');
  await page.evaluate(() => window.weft.viewer.fit());

  // The outliers of every region, as the CLI's.
  const before = await page.evaluate(() => window.weft.outlierTables || 0);
  await page.click('#histogram-outliers-run');
  await page.waitForFunction((c) => (window.weft.outlierTables || 0) > c, before, { timeout: 120_000 });
  const rows = await page.$$eval('#histogram-outliers tr.region', (trs) => trs.map((t) => ({ region: t.dataset.region, count: Number(t.dataset.count), p99_ns: Number(t.dataset.p99), outliers: Number(t.dataset.outliers), slowest: Number(t.dataset.slowest) })));
  const ocli = weftJson('histogram', file, '--outliers', '--limit', '5');
  assert.deepEqual(rows, ocli.outliers.map((o) => ({ region: o.region, count: o.count, p99_ns: o.p99_ns, outliers: o.outliers, slowest: o.slowest[0].dur_ns })), `${name}: the outliers table is weft histogram --outliers --json's`);
  const listed = await page.$$eval('#histogram-outliers tr.instance', (trs) => trs.map((t) => [Number(t.dataset.location), Number(t.dataset.start), Number(t.dataset.dur)]));
  assert.deepEqual(listed, ocli.outliers.flatMap((o) => o.slowest.map((s) => [s.location, s.start_ns, s.dur_ns])), `${name}: the outliers listed`);
  await page.$eval('#histogram-outliers', (e) => e.scrollIntoView());
  await screenshot(page, `histogram-${name}-outliers`);

  // The profile panel's row click opens that region's histogram.
  if (await page.$eval('#profile-toggle', (x) => x.getAttribute('aria-pressed')) !== 'true') await page.click('#profile-toggle');
  const other = await page.$eval('#profile-table tbody tr:nth-child(2)', (tr) => tr.querySelector('td').title);
  await computed(page, () => page.click('#profile-table tbody tr:nth-child(2)'));
  assert.equal(await page.$eval('#histogram-region', (e) => e.value), other);
  sameAsCli(await shown(page), weftJson('histogram', file, '--region', other, '--bins', '12'), `${name} ${other} from the profile`);
  await page.click('#profile-toggle');
  assert.equal((await viewState(page)).call_path, null, 'a new histogram drops the marks of the last brush');
  assert.ok((await brush(page, 0, 0)).count >= 0);
  await page.click('#histogram-clear');
  await frames(page);
  assert.equal((await viewState(page)).call_path, null, 'marks cleared');
}

test('the histogram panel equals weft histogram, brushes instances and lists outliers (webgl)', { timeout: 600_000 }, async () => {
  const traces = [['known', knownDurations(), 'work', true]];
  if (fs.existsSync(STENCIL)) traces.push(['stencil', STENCIL, 'MPI_Waitall', false]);
  else console.log(`SKIPPED the real stencil trace: ${STENCIL} does not exist`);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1500, height: 950 });
  try {
    let loads = 1;
    for (const [name, file, region, known] of traces) await checkTrace(page, file, name, region, ++loads, known);
    assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
