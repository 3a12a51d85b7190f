// MPE/Jumpshot files dropped on the page: the generated CLOG2, SLOG-2, old CLOG and RLOG of one workload (written by
// `cargo run --example import_mpe -- MB --write DIR`, so a fresh machine runs this) and the real samples under
// ../shared/traces/mpe-clog-slog2. The page's summary must equal `weft info --json` on the same file; the
// timeline and the particle view are screenshot into tests/out/ for a look.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, repoRoot, outDir, weftArgs, cargoArgs } from '../lib/harness.mjs';

function weftInfo(file) {
  const out = execFileSync(...weftArgs('info', '--json', file), { cwd: repoRoot });
  return JSON.parse(out.toString());
}

function files() {
  const dir = path.join(outDir, 'mpe');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('cargo', cargoArgs('run', '-q', '--example', 'import_mpe', '--', '0.3', '--write', dir), { cwd: repoRoot });
  const list = ['generated.clog2', 'generated.slog2', 'generated.clog', 'generated.rlog'].map((f) => path.join(dir, f));
  const shared = path.join(repoRoot, '../shared/traces/mpe-clog-slog2/mpich-mpe2-slog2sdk');
  if (fs.existsSync(shared)) {
    for (const f of ['fpilog.clog', 'fpilog.slog2', 'trace_sample_arrow.slog2', 'trace_sample_data.slog2', 'barrier.rlog']) list.push(path.join(shared, f));
  } else {
    console.log(`SKIPPED real MPE samples: ${shared} does not exist`);
  }
  return list;
}

const frames = (page, n = 2) => page.evaluate((n) => new Promise((r) => {
  const f = (k) => (k === 0 ? r() : requestAnimationFrame(() => f(k - 1)));
  f(n);
}), n);

test('MPE files (CLOG2, SLOG-2, CLOG, RLOG) open with their timeline and particles', { timeout: 600_000 }, async () => {
  const list = files();
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    let loads = 1;
    for (const file of list) {
      const want = weftInfo(file);
      const base = path.basename(file);
      await dropFile(page, base, fs.readFileSync(file));
      await waitReady(page, ++loads);
      const got = await page.evaluate(() => window.weft.lastSummary);
      assert.ok(got, `${base}: no summary (state ${await page.evaluate(() => window.weft.state)})`);
      for (const k of ['format', 'locations', 'processes', 'intervals', 'messages', 'events', 'span_ns']) {
        assert.equal(got[k], want[k], `${base}: ${k}`);
      }
      assert.ok(['slog2', 'clog2', 'clog', 'rlog'].includes(got.format), `${base}: format ${got.format}`);
      assert.ok(got.intervals > 0 && got.messages > 0, `${base}: intervals and messages`);
      const st = await viewState(page);
      assert.equal(st.rows.length, want.locations, `${base}: one timeline row per rank`);
      const shot = base.replace(/\./g, '-');
      await screenshot(page, `mpe-${shot}-timeline`);
      await page.click('#views button[data-view="particles"]');
      await frames(page, 3);
      assert.equal((await viewState(page)).view, 'particles', `${base}: particles view`);
      await screenshot(page, `mpe-${shot}-particles`);
      await page.click('#views button[data-view="timeline"]');
      await frames(page);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
