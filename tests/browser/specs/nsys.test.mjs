// Nsight Systems in the page: a generated SQLite export (written by `weft generate nsys`, so this runs on a fresh
// machine), the real saxpy export and the `nsys stats` NVTX CSV from ../shared (skipped clearly when absent) are
// dropped; the summary agrees with the generator's counts; the timeline has the GPU streams, draws a kernel
// where the model puts it, and the Utilization & moments view is drawn. Screenshots: tests/out/nsys-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';

const SAXPY = path.join(repoRoot, '../shared/traces/nsys/pipit-saxpy-mpi-cuda/saxpy-mpi-cuda_nsys_perlmutter0.sqlite');
const NVTX_CSV = path.join(repoRoot, '../shared/traces/nsys/pipit-nbody-nvtx/trace.csv');
const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;

function generated() {
  const file = path.join(outDir, 'nsys-generated.sqlite');
  const out = execFileSync(...weftArgs('generate', 'nsys', '-o', file, '--ranks', '2', '--iterations', '3'),
    { cwd: repoRoot, encoding: 'utf8' });
  return { bytes: fs.readFileSync(file), counts: JSON.parse(out) };
}

async function showMoments(page, name) {
  await page.click('#views button[data-view="moments"]');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const st = await viewState(page);
  assert.equal(st.view, 'moments');
  assert.ok(st.rows.length > 0, 'the moments view has rows');
  const shot = await screenshot(page, `${name}-moments`);
  const origin = await stageOrigin(page);
  const y = origin.y + st.plot.y0 + 0.5 * st.row_height_px;
  let drawn = 0;
  for (let x = st.plot.x0; x < st.plot.x1; x += 4) if (!light(shot.pixel(origin.x + x, y))) drawn++;
  assert.ok(drawn > 0, 'the first row of the moments view is drawn');
  await page.click('#views button[data-view="timeline"]');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

test('Nsight Systems exports and NVTX CSV in the page', { timeout: 300_000 }, async () => {
  const gen = generated();
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  let loads = 1;
  try {
    await dropFile(page, 'generated.sqlite', gen.bytes);
    await waitReady(page, ++loads);
    assert.deepEqual(await page.evaluate(() => window.weft.errors), []);
    const s = await page.evaluate(() => window.weft.lastSummary);
    const c = gen.counts;
    assert.equal(s.format, 'nsight-sqlite');
    assert.equal(s.flows, c.flows, 'a flow from each API call to its kernel, copy or memset');
    assert.equal(s.intervals, c.runtime + c.kernels + c.memcpy + c.memset + c.osrt + c.mpi + c.nvtx_push_pop + c.nvtx_start_end);
    const vs = await viewState(page);
    const streams = vs.rows.filter((r) => /^Stream \d+ \(context \d+\)$/.test(r.name));
    assert.equal(streams.length, c.gpu_streams, `GPU stream rows: ${vs.rows.map((r) => r.name).join(', ')}`);
    // Rank 0's first kernel, [2150, 3900] ns after the trace's first event, on its stream's row.
    const shot = await screenshot(page, 'nsys-generated-timeline');
    const origin = await stageOrigin(page);
    const row = vs.rows.find((r) => r.process.startsWith('GPU 0') && r.name === 'Stream 7 (context 1)');
    const xOf = (ns) => vs.track_x0 + ((ns - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);
    assert.ok(row, 'a row for rank 0\'s stream 7 on GPU 0');
    const px = shot.pixel(Math.round(origin.x + xOf(3025)), Math.round(origin.y + row.y + 0.5 * vs.lane_px));
    assert.ok(!light(px), `the kernel is drawn on ${row.name} (got ${px})`);
    await showMoments(page, 'nsys-generated');

    if (fs.existsSync(SAXPY)) {
      await dropFile(page, 'saxpy.sqlite', fs.readFileSync(SAXPY));
      await waitReady(page, ++loads);
      const s = await page.evaluate(() => window.weft.lastSummary);
      assert.equal(s.format, 'nsight-sqlite');
      assert.ok(s.flows >= 20, `flows ${s.flows}`);
      const vs = await viewState(page);
      assert.ok(vs.rows.some((r) => r.process.includes('NVIDIA A100')), vs.rows.map((r) => r.process).join(', '));
      await screenshot(page, 'nsys-saxpy-timeline');
      await showMoments(page, 'nsys-saxpy');
    } else {
      console.log(`SKIP: ${SAXPY} not found`);
    }
    if (fs.existsSync(NVTX_CSV)) {
      await dropFile(page, 'trace.csv', fs.readFileSync(NVTX_CSV));
      await waitReady(page, ++loads);
      const s = await page.evaluate(() => window.weft.lastSummary);
      assert.equal(s.format, 'nsight-nvtx-csv');
      assert.equal(s.intervals, 131);
      await screenshot(page, 'nsys-nvtx-csv-timeline');
    } else {
      console.log(`SKIP: ${NVTX_CSV} not found`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
