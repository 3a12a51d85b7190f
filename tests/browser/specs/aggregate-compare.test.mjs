// Two runs side by side in the aggregated view (WebGPU): the built-in fib(30) sample (cutoff 8) compared with a
// generated fib(30) profile of another cutoff (examples/grain_profile.rs, the same generator as the sample),
// read through the panel's "compare with…" file input. At several drill depths and along the critical path the
// panel's matched / visible / differing counts must equal what `weft render aggregate A --compare B` prints for
// the same opens (also in a problem view and by the family method); a click on a closed group on the left opens its match on the right; the right half is drawn;
// a profile compared with itself differs nowhere; leaving the comparison restores the single view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { startServer, openPage, waitReady, screenshot, viewState, stageOrigin, repoRoot, weftArgs, cargoArgs } from '../lib/harness.mjs';

const settle = (page) => page.waitForTimeout(260);
const configure = (page, k, v) => page.evaluate(([k, v]) => window.weft.viewer.configure(k, v), [k, v]);

function parse(stderr) {
  const m = /matched (\d+) of (\d+) visible groups; (\d+) differ in structure/.exec(stderr);
  assert.ok(m, `the CLI reports the comparison: ${stderr}`);
  return { matched: Number(m[1]), visible: Number(m[2]), differ: Number(m[3]) };
}

/** The CLI's counts for A compared with B opened as `how` says (it prints them on stderr). */
function cliRun(a, b, how) {
  const svg = path.join(path.dirname(a), 'compare.svg'); // a's folder, removed at the end of the test
  const r = spawnSync(...weftArgs('render', 'aggregate', a, '--compare', b, '-o', svg, ...how),
    { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return parse(r.stderr);
}

const panelCounts = (st) => ({ matched: st.compare_matched, visible: st.compare_visible, differ: st.compare_differ });

test('two runs side by side in the aggregated view (WebGPU)', { timeout: 600_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-compare-'));
  const [a, b] = [path.join(dir, 'fib30-c8.csv'), path.join(dir, 'fib30-c6.csv')];
  const gen = (cutoff, out) => execFileSync('cargo', cargoArgs('run', '-q', '--example', 'grain_profile', '--', '30', String(cutoff), '16', out),
    { cwd: repoRoot, stdio: 'ignore' });
  gen(8, a); // the built-in sample: fib_profile(30, 8, 16)
  gen(6, b);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    await page.selectOption('#samples', 'grains');
    await waitReady(page, 2);
    await page.click('#views button[data-view="aggregate"]');
    let st = await viewState(page);
    assert.equal(st.compare, false);
    assert.equal(st.compare_name, null);

    await page.setInputFiles('#aggregate-compare-file', b);
    await settle(page);
    st = await viewState(page);
    assert.equal(st.compare, true);
    assert.equal(st.compare_name, 'fib30-c6.csv');
    assert.equal(st.compare_grains, fs.readFileSync(b, 'utf8').trim().split('\n').length - 1, 'every task of B is a grain');
    assert.match(await page.textContent('#aggregate-compare'), new RegExp(`matched ${st.compare_matched} of ${st.compare_visible} visible groups; ${st.compare_differ} differ`));

    // The same opens on both sides, counted as the CLI counts them.
    const seen = [];
    for (const depth of [1, 2, 3, 5]) {
      await configure(page, 'drill_depth', String(depth));
      await settle(page);
      st = await viewState(page);
      const cli = cliRun(a, b, ['--depth', String(depth)]);
      assert.deepEqual(panelCounts(st), cli, `depth ${depth}: the panel counts as weft render aggregate --compare`);
      seen.push(`depth ${depth}: ${JSON.stringify(cli)}`);
    }
    await configure(page, 'drill_critical', '');
    await settle(page);
    st = await viewState(page);
    const crit = cliRun(a, b, ['--critical']);
    assert.deepEqual(panelCounts(st), crit, 'along the critical path: as the CLI');
    seen.push(`critical: ${JSON.stringify(crit)}`);
    // A problem view: both runs separated by the same metric, counted as the CLI does.
    const metric = st.problems.find((p) => p.count > 0).metric;
    await page.selectOption('#view-options select >> nth=1', metric);
    await configure(page, 'drill_depth', '3');
    await settle(page);
    st = await viewState(page);
    assert.equal(st.problem, metric);
    const prob = cliRun(a, b, ['--problem', metric, '--depth', '3']);
    assert.deepEqual(panelCounts(st), prob, `${metric} view at depth 3: as the CLI`);
    seen.push(`${metric} depth 3: ${JSON.stringify(prob)}`);
    await page.selectOption('#view-options select >> nth=1', 'structure');
    // The sibling/family method on both sides.
    await page.selectOption('#view-options select >> nth=0', 'family');
    await configure(page, 'drill_depth', '2');
    await settle(page);
    st = await viewState(page);
    assert.equal(st.method, 'family');
    const fam = cliRun(a, b, ['--method', 'family', '--depth', '2']);
    assert.deepEqual(panelCounts(st), fam, 'family method at depth 2: as the CLI');
    seen.push(`family depth 2: ${JSON.stringify(fam)}`);
    await page.selectOption('#view-options select >> nth=0', 'reduction');
    console.log(seen.join('\n'));
    assert.ok(seen.some((s) => !s.includes('"differ":0')), 'some opening shows groups that differ between the cutoffs');

    // A click on a closed group on the left opens its match on the right too.
    await configure(page, 'drill_depth', '2');
    await settle(page);
    st = await viewState(page);
    const stage = await page.evaluate(() => document.getElementById('stage').getBoundingClientRect().width);
    const closed = st.nodes.find((n) => n.kind !== 'leaf' && !n.open && n.x + n.w / 2 < stage / 2 && n.w > 6 && n.h > 6);
    assert.ok(closed, 'a closed group shows on the left');
    const before = st.compare_open.length;
    const o = await stageOrigin(page);
    await page.mouse.click(o.x + closed.x + closed.w / 2, o.y + closed.y + closed.h / 2);
    await settle(page);
    st = await viewState(page);
    assert.ok(st.open.includes(closed.id), 'the clicked group opened');
    assert.equal(st.compare_open.length, before + 1, 'its match opened on the right');
    const shot = await screenshot(page, 'aggregate-compare-webgpu');
    // Both halves are painted: the right run's pale yellow or grain boxes, not only background.
    const painted = (x0, x1) => {
      let n = 0;
      for (let y = 60; y < 600; y += 6) for (let x = x0; x < x1; x += 6) {
        const p = shot.pixel(o.x + x, o.y + y);
        if (!(p[0] > 240 && p[1] > 240 && p[2] > 240)) n++;
      }
      return n;
    };
    assert.ok(painted(stage / 2 + 10, stage - 10) > 50, 'the compared run is drawn in the right half');
    assert.ok(painted(10, stage / 2 - 10) > 50, 'this run is drawn in the left half');
    // Closing it closes the match too.
    await configure(page, 'close', String(closed.id));
    await settle(page);
    assert.equal((await viewState(page)).compare_open.length, before, 'closing closes the match');

    // A profile compared with itself: everything visible matches, nothing differs.
    await page.setInputFiles('#aggregate-compare-file', a);
    await settle(page);
    for (const depth of [2, 4]) {
      await configure(page, 'drill_depth', String(depth));
      await settle(page);
      st = await viewState(page);
      assert.equal(st.compare_name, 'fib30-c8.csv');
      assert.equal(st.compare_differ, 0, `depth ${depth}: the same run differs nowhere`);
      assert.equal(st.compare_matched, st.compare_visible, 'and every visible group matches');
      assert.deepEqual(panelCounts(st), cliRun(a, a, ['--depth', String(depth)]), 'as the CLI');
    }

    // The view state restores with the comparison kept; leaving it shows the single view.
    const saved = await viewState(page);
    await configure(page, 'restore', JSON.stringify(saved));
    st = await viewState(page);
    assert.deepEqual([st.compare, st.open, st.compare_open], [true, saved.open, saved.compare_open], 'restored');
    await page.click('#aggregate-bar button[data-action="compare"]');
    st = await viewState(page);
    assert.equal(st.compare, false, 'leaving the comparison');
    assert.equal(await page.$('#aggregate-compare'), null, 'the comparison line is gone');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
