// Enormous input and faults: a 1 GB Chrome trace streams through the worker (File.slice) and loads without
// crashing the tab; a file the page cannot hold is refused by its size before it is read; a panic or an
// out-of-memory in the reader worker is reported and the page goes on with a fresh worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, dropFile, viewState, outDir, screenshot } from '../lib/harness.mjs';
import { gridTrace } from '../lib/fixtures.mjs';
import { writeBigChromeTrace } from '../lib/bigtrace.mjs';

const errorText = (page) => page.textContent('#error-text');

test('a 1 GB trace loads and faults are survived', { timeout: 600_000 }, async () => {
  const big = path.join(outDir, 'big-1g.json');
  const bigParaver = path.join(outDir, 'too-big.prv');
  const written = await writeBigChromeTrace(big, 1_000_000_000);
  // A Paraver file (read whole) of 1.2 GB, sparse on disk: refused from its size alone.
  fs.writeFileSync(bigParaver, '#Paraver (01/01/2026 at 00:00):1000_ns:1(4):1:1(4:1)\n');
  fs.truncateSync(bigParaver, 1_200_000_000);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    // 1 GB: streamed in 4 MB slices, every event kept.
    await page.setInputFiles('#file-input', big);
    await waitReady(page, 2, 300_000);
    assert.equal(await page.evaluate(() => window.weft.state), 'ready', await page.evaluate(() => window.weft.errors.join('\n')));
    const summary = await page.evaluate(() => window.weft.lastSummary);
    assert.equal(summary.intervals, written.events, 'every event of the 1 GB file became an interval');
    assert.equal(summary.locations, written.ranks);
    const vs = await viewState(page);
    assert.ok(vs.rows.length >= written.ranks, 'a row per rank');
    await page.keyboard.press('w');
    const zoomed = await viewState(page);
    assert.ok(zoomed.t1_ns - zoomed.t0_ns < vs.t1_ns - vs.t0_ns, 'the view still answers after the big load');
    const shot = await screenshot(page, 'limits-1g');
    assert.ok(shot.width > 0);

    // Too large to read whole: refused by size, naming the file; the page stays usable.
    await page.setInputFiles('#file-input', bigParaver);
    await page.waitForFunction(() => /too-big\.prv/.test(document.getElementById('error-text').textContent), null, { timeout: 60_000 });
    assert.match(await errorText(page), /too large/);
    assert.match(await errorText(page), /1\.1 GiB|1\.2 GiB/);

    // A panic in the worker: reported, a fresh worker reads the next file.
    const grid = gridTrace();
    let loads = await page.evaluate(() => window.weft.loads);
    await page.evaluate(() => window.weft.induceFault('panic'));
    await page.waitForFunction(() => /restarted/.test(document.getElementById('error-text').textContent), null, { timeout: 60_000 });
    assert.match(await errorText(page), /induced fault: a panic in the reader|unreachable/);
    await dropFile(page, 'after-panic.json', grid.bytes);
    await waitReady(page, ++loads);
    assert.equal(await page.textContent('#file-name'), 'after-panic.json');
    assert.equal(await page.isHidden('#error'), true);

    // Out of memory in the worker: the same.
    await page.evaluate(() => window.weft.induceFault('oom'));
    await page.waitForFunction(() => /restarted/.test(document.getElementById('error-text').textContent), null, { timeout: 120_000 });
    await dropFile(page, 'after-oom.json', grid.bytes);
    await waitReady(page, ++loads);
    assert.equal(await page.textContent('#file-name'), 'after-oom.json');
    // Only the induced faults' own reports reach the console.
    assert.deepEqual(problems.filter((p) => !/induced fault|unreachable|memory|RuntimeError|Aborted/i.test(p)), []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(big, { force: true });
    fs.rmSync(bigParaver, { force: true });
  }
});
