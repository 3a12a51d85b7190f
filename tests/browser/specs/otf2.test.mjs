// OTF2 in the page, opened the ways a Score-P user would: the archive folder (folder picker), and a .tar.gz
// of it dropped on the page. Archives come from the official OTF2 writer (the test set-up's .venv) and, where
// present, from ../shared/traces/otf2; the page's summary must equal `weft info --json` on the same archive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';

function weftInfo(dir) {
  const out = execFileSync(...weftArgs('info', '--json', dir), { cwd: repoRoot });
  return JSON.parse(out.toString());
}

function archives() {
  const list = [];
  const py = path.join(repoRoot, '.venv/bin/python');
  if (fs.existsSync(py)) {
    const dir = path.join(outDir, 'otf2-gen');
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync(py, [path.join(repoRoot, 'tests/oracle/otf2_oracle.py'), 'gen', dir]);
    list.push(path.join(dir, 'mpi'));
  } else {
    console.log('SKIPPED generated OTF2 archive: .venv with the official otf2 package is missing (run scripts/setup.sh --browser)');
  }
  const shared = path.join(repoRoot, '../shared/traces/otf2/tracer-stencil4d-mpi-32');
  if (fs.existsSync(shared)) list.push(shared);
  else console.log(`SKIPPED real OTF2 archive: ${shared} does not exist`);
  return list;
}

test('OTF2 archives open as a folder and as a .tar.gz', { timeout: 300_000 }, async (t) => {
  const list = archives();
  if (!list.length) { t.skip('no OTF2 archive available'); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    let loads = 1;
    for (const dir of list) {
      const want = weftInfo(dir);
      // The folder, as the folder picker gives it.
      await page.setInputFiles('#folder-input', dir);
      await waitReady(page, ++loads);
      let got = await page.evaluate(() => window.weft.lastSummary);
      for (const k of ['format', 'locations', 'processes', 'intervals', 'messages', 'collectives', 'events', 'span_ns']) {
        assert.equal(got[k], want[k], `${path.basename(dir)} folder: ${k}`);
      }
      assert.equal(got.format, 'otf2');
      const st = await viewState(page);
      assert.equal(st.rows.length, want.locations, 'one timeline row per OTF2 location');
      await screenshot(page, `otf2-${path.basename(dir)}`);

      // The same archive packed as .tar.gz and dropped.
      const tgz = path.join(outDir, `${path.basename(dir)}.tar.gz`);
      execFileSync('tar', ['czf', tgz, '-C', path.dirname(dir), path.basename(dir)]);
      await dropFile(page, path.basename(tgz), fs.readFileSync(tgz));
      await waitReady(page, ++loads);
      got = await page.evaluate(() => window.weft.lastSummary);
      assert.equal(got.intervals, want.intervals, 'tar.gz: intervals');
      assert.equal(got.messages, want.messages, 'tar.gz: messages');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
