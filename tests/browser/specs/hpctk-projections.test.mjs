// HPCToolkit databases and Charm++ Projections traces in the page, opened as folders (the folder picker, as
// OTF2 archive folders are): the real samples from ../shared/traces where present, and the fixtures
// `weft generate hpctoolkit|projections` writes, so a fresh machine tests them too. The page's summary must
// equal `weft info --json` on the same folder; each view the data allows is visited and screenshotted into
// tests/out/, and must draw something (or say why not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, screenshot, viewState, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot });

function folders() {
  const list = [];
  for (const format of ['hpctoolkit', 'projections']) {
    const dir = path.join(outDir, `${format}-gen`);
    fs.rmSync(dir, { recursive: true, force: true });
    weft('generate', format, '-o', dir);
    list.push({ name: `${format}-gen`, dir, format });
  }
  for (const [rel, format] of [
    ['hpctoolkit/pipit-ping-pong', 'hpctoolkit'],
    ['projections/pipit-ping-pong', 'projections'],
    ['projections/pipit-hello-1darray', 'projections'],
  ]) {
    const dir = path.join(repoRoot, '../shared/traces', rel);
    if (fs.existsSync(dir)) list.push({ name: `${format}-${path.basename(rel)}`, dir, format });
    else console.log(`SKIPPED ${rel}: ${dir} does not exist (../shared/traces is not part of the repository)`);
  }
  return list;
}

test('HPCToolkit and Projections folders open with every view they allow', { timeout: 600_000 }, async () => {
  const list = folders();
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    let loads = 1;
    for (const { name, dir, format } of list) {
      const want = JSON.parse(weft('info', '--json', dir).toString());
      await page.setInputFiles('#folder-input', dir);
      await waitReady(page, ++loads);
      const got = await page.evaluate(() => window.weft.lastSummary);
      assert.equal(got.format, format, `${name}: format (${JSON.stringify(got).slice(0, 200)})`);
      for (const k of ['locations', 'processes', 'intervals', 'messages', 'events', 'span_ns']) {
        assert.equal(got[k], want[k], `${name}: ${k}`);
      }
      const st = await viewState(page);
      assert.equal(st.rows.length, want.locations, `${name}: one timeline row per location`);
      const views = await page.evaluate(() => window.weft.viewer.views());
      for (const view of views) {
        await page.click(`#views button[data-view="${view}"]`);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const drawn = await page.evaluate(() => {
          const v = window.weft.viewer;
          v.invalidate();
          v.frame();
          const s = v.stats();
          return { marks: s.marks, notice: s.notice || null };
        });
        assert.ok(drawn.marks > 0 || drawn.notice, `${name} ${view}: draws data or says why not (${JSON.stringify(drawn)})`);
        await screenshot(page, `${name}-${view}`);
      }
      await page.click('#views button[data-view="timeline"]');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
