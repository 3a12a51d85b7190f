// The timeline's profile panel on real traces from ../shared/traces (skipped, saying so, when absent): a
// Shift+drag selects a time range, and the panel's table equals `weft info FILE --window T0:T1 --json`
// `regions` for the range the page reports (Chrome JSON from PyTorch, and the 32-rank OTF2 stencil); two
// Shift+clicks select too; a header click sorts; the location filter narrows the table; a row click marks
// that region; the legend lists the regions with the most exclusive time; the region search counts matches
// and steps to them, zoomed in. WebGL2 only: nothing here depends on the backend, and SwiftShader WebGPU
// frames of a 32-rank trace are slow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, repoRoot } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const WEFT = path.join(repoRoot, 'target/debug/weft');
const TRACES = [
  // [file, input, OTF2 anchor, the selection dragged as fractions of the track's width]
  ['chrome-json/hta/trace_filter_sampled_rank-0.json.gz', '#file-input', null, [0.3, 0.55]],
  // MPI_Init fills most of the run: the stencil's iterations are in its last percent (past the end: clipped).
  ['otf2/tracer-stencil4d-mpi-32', '#folder-input', 'traces.otf2', [0.9, 0.985]],
];

/** The table's rows as {region: [count, inclusive, exclusive]}. */
const tableRows = (page) => page.$$eval('#profile-table tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.region),
  [Number(tr.dataset.count), Number(tr.dataset.inclusive), Number(tr.dataset.exclusive)]]));

function cliRegions(file, t0, t1) {
  const out = JSON.parse(execFileSync(WEFT, ['info', file, '--json', '--window', `${t0}:${t1}`], { maxBuffer: 64 << 20 }));
  assert.deepEqual(out.window, { start_ns: t0, end_ns: t1 });
  return out.regions.map((r) => [r.region, [r.count, r.inclusive_ns, r.exclusive_ns]]);
}

const sorted = (rows) => [...rows].sort((a, b) => a[0] - b[0]);

test('profile of a selected time range equals weft info --window', { timeout: 240_000 }, async (t) => {
  if (!fs.existsSync(SHARED)) { t.skip(`${SHARED} is absent`); return; }
  if (!fs.existsSync(WEFT)) { t.skip(`${WEFT} is not built (cargo build)`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    let loads = 1;
    for (const [rel, input, anchor, [fa, fb]] of TRACES) {
      const file = path.join(SHARED, rel);
      await page.setInputFiles(input, file);
      await waitReady(page, ++loads);
      assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'timeline', rel);
      await page.click('#fit');
      const vs = await viewState(page);
      const o = await stageOrigin(page);
      const trackW = vs.width - vs.track_x0;
      const y = o.y + vs.axis_px + 40;
      const [xa, xb] = [o.x + vs.track_x0 + fa * trackW, o.x + vs.track_x0 + fb * trackW];

      // Shift+drag: the selection, its duration, and the panel opens on the table of the selection.
      await page.keyboard.down('Shift');
      await page.mouse.move(xa, y);
      await page.mouse.down();
      await page.mouse.move((xa + xb) / 2, y, { steps: 3 });
      await page.mouse.move(xb, y, { steps: 3 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await page.waitForSelector('#profile-panel:not([hidden])');
      const after = await viewState(page);
      assert.equal(after.t0_ns, vs.t0_ns, `${rel}: a Shift+drag selects, it does not pan`);
      const sel = after.selection;
      assert.ok(sel && sel.t1_ns > sel.t0_ns, `${rel}: a range is selected`);
      const tOf = (x) => vs.t0_ns + ((x - o.x - vs.track_x0) / trackW) * (vs.t1_ns - vs.t0_ns);
      const slack = Math.max(1, (vs.t1_ns - vs.t0_ns) / trackW); // a pixel, or the rounding to whole ns
      assert.ok(Math.abs(sel.t0_ns - tOf(xa)) <= slack && Math.abs(sel.t1_ns - Math.min(vs.span_ns, tOf(xb))) <= slack, `${rel}: the range dragged over: ${JSON.stringify(sel)} vs ${tOf(xa)}..${tOf(xb)} (${slack} a pixel), span ${vs.span_ns}`);
      const selText = await page.textContent('#profile-selection');
      assert.match(selText, /^[0-9.]+ (ns|us|ms|s) \(/, selText);

      const rows = await tableRows(page);
      assert.ok(rows.length >= 5, `${rel}: regions in the selection (${rows.length})`);
      const cli = cliRegions(anchor ? path.join(file, anchor) : file, sel.t0_ns, sel.t1_ns);
      assert.deepEqual(sorted(rows), sorted(cli), `${rel}: the table is weft info --window's regions`);
      assert.match(await page.textContent('#profile-caption'), /regions? in the selection/);

      // The whole trace, then back.
      await page.selectOption('#profile-scope', 'whole');
      const whole = await tableRows(page);
      const cliWhole = JSON.parse(execFileSync(WEFT, ['info', anchor ? path.join(file, anchor) : file, '--json'], { maxBuffer: 64 << 20 }))
        .regions.map((r) => [r.region, [r.count, r.inclusive_ns, r.exclusive_ns]]);
      assert.deepEqual(sorted(whole), sorted(cliWhole), `${rel}: the whole trace's table`);
      // The legend: the regions with the most exclusive time, each with a swatch.
      const legend = await page.$$eval('#profile-legend li', (lis) => lis.map((li) => [Number(li.dataset.region), !!li.querySelector('.swatch')]));
      const exclusive = new Map(cliWhole.map(([r, v]) => [r, v[2]]));
      const top = [...exclusive.values()].sort((a, b) => b - a).slice(0, 8);
      assert.deepEqual(legend.map(([r]) => exclusive.get(r)), top, `${rel}: the legend lists the most exclusive time first`);
      assert.ok(legend.every(([, s]) => s), 'each with its colour');
      await page.selectOption('#profile-scope', 'selection');

      // Sort by count, descending (a first click sorts descending, a second ascending; the sort is kept across loads).
      await page.click('#profile-table th[data-key="count"] button');
      if ((await page.textContent('#profile-table th[data-key="count"]')).endsWith('▴')) await page.click('#profile-table th[data-key="count"] button');
      assert.ok((await page.textContent('#profile-table th[data-key="count"]')).endsWith('▾'));
      const counts = (await tableRows(page)).map((r) => r[1][0]);
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a), `${rel}: sorted by count`);

      // Filter to one location: fewer (or as many) intervals, and the selection's total shrinks.
      const locName = after.rows[0].name;
      await page.fill('#profile-locations', locName);
      await page.press('#profile-locations', 'Enter');
      await page.waitForFunction(() => /locations /.test(document.getElementById('profile-caption').textContent));
      const one = await tableRows(page);
      const total = (rs) => rs.reduce((a, r) => a + r[1][0], 0);
      assert.ok(total(one) <= total(rows), `${rel}: the filter narrows the table`);
      await page.fill('#profile-locations', '');
      await page.press('#profile-locations', 'Enter');

      // A row click marks its region in the timeline; a second click unmarks it.
      const first = page.locator('#profile-table tbody tr').first();
      const region = Number(await first.getAttribute('data-region'));
      await first.click();
      assert.equal((await viewState(page)).marked_region, region);
      assert.equal(await first.getAttribute('class'), 'selected');
      await first.click();
      assert.equal((await viewState(page)).marked_region, null);

      // Two Shift+clicks select the range between them (the open panel made the view narrower: its state now).
      const now = await viewState(page);
      const w2 = now.width - now.track_x0;
      const [xc, xd] = [o.x + now.track_x0 + 0.2 * w2, o.x + now.track_x0 + 0.4 * w2];
      const tNow = (x) => now.t0_ns + ((x - o.x - now.track_x0) / w2) * (now.t1_ns - now.t0_ns);
      const slack2 = Math.max(1, (now.t1_ns - now.t0_ns) / w2);
      await page.keyboard.down('Shift');
      await page.mouse.click(xd, y);
      await page.mouse.click(xc, y);
      await page.keyboard.up('Shift');
      const two = (await viewState(page)).selection;
      assert.ok(Math.abs(two.t0_ns - tNow(xc)) <= slack2 && Math.abs(two.t1_ns - tNow(xd)) <= slack2,
        `${rel}: two clicks select: ${JSON.stringify(two)} vs ${tNow(xc)}..${tNow(xd)}`);
      await page.click('#profile-clear');
      assert.equal((await viewState(page)).selection, null, `${rel}: Clear`);
    }

    // Search (on the OTF2 trace now shown): the count, next zooms to the match, previous wraps.
    const before = await viewState(page);
    await page.fill('#region-search', 'mpi_*v');
    await page.press('#region-search', 'Enter');
    const st = await viewState(page);
    assert.ok(st.search && st.search.count === 512, 'MPI_Irecv matches (glob, any case)');
    const hits = await page.textContent('#region-hits');
    assert.match(hits, new RegExp(`^1 / ${st.search.count.toLocaleString('en-US')} · MPI_Irecv`), hits);
    await page.click('#region-next');
    assert.match(await page.textContent('#region-hits'), /^2 \//);
    const now = await viewState(page);
    assert.equal(now.search.at, 1);
    const hit = now.search.hit;
    assert.ok(now.t0_ns <= hit.start_ns && hit.start_ns + hit.dur_ns <= now.t1_ns, 'the match is shown');
    assert.ok(now.t1_ns - now.t0_ns <= 2 * Math.max(hit.dur_ns, 100) + 1, `zoomed to the match: ${now.t0_ns}..${now.t1_ns}`);
    assert.ok(now.t1_ns - now.t0_ns < before.t1_ns - before.t0_ns, 'zoomed in');
    await page.click('#region-prev');
    await page.click('#region-prev');
    assert.match(await page.textContent('#region-hits'), new RegExp(`^${st.search.count.toLocaleString('en-US')} /`), 'previous wraps to the last');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
