// Another busy definition in the moments view is computed by the worker, not the page (issue 16): changing it
// with the view's control leaves the shown moments until the worker's answer arrives, the page computes nothing
// (`Viewer.built_on_page` stays empty), and the moments shown then equal `weft moments FILE --busy B --json` on the
// same file, for `any` and a region glob; sorting and the location filter reorder them without the worker.
// The trace: a real PyTorch profile (HTA's trace_filter_sampled_rank-0, 8 locations, 4,811 intervals) in which
// "compute" and "any region" differ; without the shared traces, a generated trace of MPI calls inside compute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, viewState, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';
import { momentsTrace } from '../lib/fixtures.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const REAL = path.join(SHARED, 'chrome-json/hta/trace_filter_sampled_rank-0.json.gz');

/** `weft moments FILE --busy BUSY --json`: every location's moments, by location. */
function cliMoments(file, busy) {
  const r = spawnSync(...weftArgs('moments', file, '--busy', busy, '--json'),
    { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The page's rows equal the CLI's: m0 exactly, the other moments to rounding. */
function assertSameMoments(rows, cli, what) {
  assert.equal(rows.length, cli.length, `${what}: one row per location`);
  const byLocation = new Map(rows.map((r) => [r.location, r]));
  for (const c of cli) {
    const r = byLocation.get(c.location);
    assert.ok(r, `${what}: location ${c.location} shown`);
    assert.equal(r.name, c.name);
    assert.equal(r.m0_ns, c.m0_ns, `${what}: ${c.name} m0`);
    for (const k of ['m1_ns', 'm2_ns', 'm3_ns']) {
      const tol = 1e-9 * Math.max(1, Math.abs(c[k]), Math.abs(c.m1_ns));
      assert.ok(Math.abs(r[k] - c[k]) <= tol, `${what}: ${c.name} ${k} ${r[k]} vs ${c[k]}`);
    }
  }
}

test('another busy definition is the worker\'s answer; the page computes nothing', { timeout: 300_000 }, async () => {
  let file = REAL;
  if (!fs.existsSync(REAL)) {
    console.log(`the shared traces are not at ${SHARED}: a generated trace instead`);
    fs.mkdirSync(outDir, { recursive: true });
    file = path.join(outDir, 'busy-worker.json');
    fs.writeFileSync(file, momentsTrace().bytes);
  }
  const glob = file === REAL ? 'aten::*' : 'compute*';
  const want = { compute: cliMoments(file, 'compute'), any: cliMoments(file, 'any'), glob: cliMoments(file, `pattern:${glob}`) };
  const m0 = (rows) => rows.reduce((a, r) => a + r.m0_ns, 0);
  assert.notEqual(m0(want.any), m0(want.compute), 'the definitions differ on this trace');

  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    await dropFile(page, path.basename(file), fs.readFileSync(file));
    await waitReady(page, 2);
    await page.click('#views button[data-view="moments"]');
    let st = await viewState(page);
    assert.equal(st.busy, 'compute');
    assertSameMoments(st.rows, want.compute, 'compute (the load)');
    const relayouts = await page.evaluate(() => window.weft.relayouts || 0);

    // The control's change asks the worker; in the same task the view still shows compute.
    const during = await page.evaluate(() => {
      const sel = document.getElementById('moments-busy');
      sel.value = 'any';
      sel.dispatchEvent(new Event('change'));
      return window.weft.viewer.view_state();
    });
    assert.equal(during.busy, 'compute', 'the old moments stay until the answer');
    assert.equal(during.busy_asked, 'any');
    assertSameMoments(during.rows, want.compute, 'compute (while asking)');
    await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'any', null, { timeout: 60_000 });
    st = await viewState(page);
    assert.equal(st.busy_asked, null);
    assertSameMoments(st.rows, want.any, 'any');
    assert.equal(await page.evaluate(() => window.weft.relayouts), relayouts + 1, 'one answer from the worker');
    assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');

    // A region glob, typed into the control's open entry.
    await page.selectOption('#moments-busy', 'pattern');
    await page.fill('#moments-busy-text', glob);
    await page.press('#moments-busy-text', 'Tab');
    await page.waitForFunction((b) => window.weft.viewer.view_state().busy === b, `pattern '${glob}'`, { timeout: 60_000 });
    assertSameMoments((await viewState(page)).rows, want.glob, `pattern:${glob}`);

    // Sorting reorders what the worker sent (nothing asked, nothing computed); back to compute asks again.
    await page.selectOption('#moments-sort', 'm0');
    st = await viewState(page);
    assert.equal(st.busy_asked, null);
    assert.deepEqual(st.rows.map((r) => r.m0_ns), want.glob.map((r) => r.m0_ns).sort((a, b) => a - b));
    await page.selectOption('#moments-busy', 'compute');
    await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'compute', null, { timeout: 60_000 });
    assertSameMoments((await viewState(page)).rows, want.compute, 'compute (again)');
    assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
    assert.deepEqual(await page.evaluate(() => window.weft.errors), []);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
