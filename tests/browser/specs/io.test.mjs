// The I/O panel (issue #57) on real Darshan logs with DXT that pydarshan's wheel ships (found under the
// repository's .venv, as tests/oracle/darshan_dxt.py finds them; skipped, saying so, when absent): dropped on
// the page, the timeline's "I/O" toggle opens the panel; its totals, every bin, the files and the per-rank
// bytes of the visible window equal `weft io --json --window` of the same window; a click on a file shows that
// file alone (equal to `weft io --file`), a second click every file again; zoomed in, the panel follows the
// window. A trace without I/O has no toggle. The files table fits the panel and the legend names each operation
// once. Screenshots: tests/out/io-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, stageOrigin, viewState, repoRoot, screenshot, weftArgs, dropFile } from '../lib/harness.mjs';

/** `s` inside a quoted attribute selector. */
const attr = (s) => s.replace(/["\\]/g, '\\$&');
const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();

/** The .darshan files pydarshan ships, by base name. */
function shippedLogs() {
  const lib = path.join(repoRoot, '.venv/lib');
  const out = new Map();
  if (!fs.existsSync(lib)) return out;
  const walk = (dir, depth) => {
    let entries = [];
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && depth < 8) walk(p, depth + 1);
      else if (e.name.endsWith('.darshan')) out.set(e.name, p);
    }
  };
  for (const py of fs.readdirSync(lib)) walk(path.join(lib, py, 'site-packages/darshan'), 0);
  return out;
}

/** Wait for the panel's next answer after `act`, and return its summary. */
async function answered(page, act) {
  const before = await page.evaluate(() => window.weft.ioAnswers || 0);
  await act();
  await page.waitForFunction((n) => (window.weft.ioAnswers || 0) > n, before, { timeout: 60_000 });
  return page.evaluate(() => window.weft.ioPanel.summary);
}

function cliOf(log, s, ...more) {
  return JSON.parse(weft('io', log, '--json', '--window', `${s.window_t0_ns}:${s.window_t1_ns}`, '--bins', String(s.bins.length), ...more));
}

function sameAsCli(s, cli, what) {
  for (const k of ['layer', 'read_bytes', 'write_bytes', 'read_ns', 'write_ns', 'operations']) assert.equal(s[k], cli[k], `${what}: ${k}`);
  assert.deepEqual(s.bins, cli.bins, `${what}: every bin`);
  assert.deepEqual(s.files, cli.files, `${what}: files`);
  assert.deepEqual(s.per_process, cli.per_process, `${what}: per rank`);
  assert.deepEqual(s.per_location, cli.per_location, `${what}: per location`);
}

/** The numbers the DOM shows: the totals' bytes, the bars' bytes per bin, the files listed. */
async function shown(page) {
  return page.evaluate(() => ({
    read: Number(document.getElementById('io-read-total').dataset.bytes),
    write: Number(document.getElementById('io-write-total').dataset.bytes),
    readBars: [...document.querySelectorAll('#io-chart rect.io-read')].reduce((n, r) => n + Number(r.dataset.bytes), 0),
    writeBars: [...document.querySelectorAll('#io-chart rect.io-write')].reduce((n, r) => n + Number(r.dataset.bytes), 0),
    files: [...document.querySelectorAll('#io-files tr[data-file]')].map((t) => t.dataset.file),
    ranks: [...document.querySelectorAll('#io-ranks tr[data-rank]')].map((t) => t.dataset.rank),
  }));
}

test('the I/O panel equals weft io --json, filters by file and follows the window', { timeout: 600_000 }, async (t) => {
  const logs = shippedLogs();
  const wanted = ['dxt.darshan', 'ior_hdf5_example.darshan'].filter((n) => logs.has(n));
  if (wanted.length < 2) { t.skip(`pydarshan's DXT logs are absent under ${path.join(repoRoot, '.venv')} (tests/oracle/requirements.txt)`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1500, height: 950 });
  try {
    let loads = 1;
    // A trace without I/O: no toggle.
    await dropFile(page, 'plain.json', Buffer.from('{"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}]}'));
    await waitReady(page, ++loads);
    await page.waitForFunction(() => window.weft.ioPanel.hasIo === false);
    assert.ok(await page.$eval('#io-toggle', (b) => b.hidden), 'no I/O toggle without I/O');

    for (const name of wanted) {
      const log = logs.get(name);
      await dropFile(page, name, fs.readFileSync(log));
      await waitReady(page, ++loads);
      assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'timeline', name);
      await page.waitForFunction(() => { const b = document.getElementById('io-toggle'); return b && !b.hidden; }, null, { timeout: 60_000 });
      const open = await page.evaluate(() => window.weft.ioPanel.shown);
      let s = open ? await page.evaluate(() => window.weft.ioPanel.summary)
        : await answered(page, () => page.click('#io-toggle'));
      if (open) s = await answered(page, () => page.evaluate(() => window.weft.ioPanel.refresh()));
      const cli = cliOf(log, s);
      sameAsCli(s, cli, `${name}, the visible window`);
      const whole = JSON.parse(weft('io', log, '--json'));
      assert.ok(s.read_bytes + s.write_bytes > 0, `${name}: bytes shown`);
      assert.equal(s.read_bytes + s.write_bytes, whole.read_bytes + whole.write_bytes, `${name}: the fitted window holds every byte`);
      let dom = await shown(page);
      assert.deepEqual([dom.read, dom.write, dom.readBars, dom.writeBars], [s.read_bytes, s.write_bytes, s.read_bytes, s.write_bytes], `${name}: the bars hold the totals`);
      assert.deepEqual(dom.files, s.files.slice(0, 25).map((f) => f.name), `${name}: the files listed, most bytes first`);
      assert.deepEqual(dom.ranks, s.per_process.filter((p) => p.operations > 0).map((p) => p.name), `${name}: the ranks`);
      // The files table fits the panel: no column past its edge, nothing to scroll sideways.
      const fit = await page.evaluate(() => {
        const table = document.getElementById('io-files');
        const box = table.parentElement.getBoundingClientRect();
        const panel = document.getElementById('io-panel').getBoundingClientRect();
        const heads = [...table.querySelectorAll('th')].map((h) => h.getBoundingClientRect().right);
        return { scroll: table.parentElement.scrollWidth, client: table.parentElement.clientWidth, right: Math.max(...heads), box: box.right, panel: panel.right };
      });
      assert.ok(fit.scroll <= fit.client, `${name}: the files table is not wider than its box (${fit.scroll} > ${fit.client})`);
      assert.ok(fit.right <= Math.min(fit.box, fit.panel) + 0.5, `${name}: every column inside the panel (${fit.right} > ${fit.box})`);
      // The legend names an operation once, not once per file or segment.
      const labels = await page.$$eval('#legend .legend-label', (ls) => ls.map((l) => l.textContent));
      assert.ok(labels.some((l) => l.startsWith('POSIX')), `${name}: the legend lists the operations: ${labels}`);
      assert.equal(new Set(labels).size, labels.length, `${name}: each legend entry once: ${labels}`);
      const base = name.replace('.darshan', '');
      await screenshot(page, `io-${base}-panel`);

      // A click on a file: that file alone, as weft io --file; again: every file.
      const file = s.files.length > 1 ? s.files[1] : s.files[0];
      let f = await answered(page, () => page.click(`#io-files tr[data-file="${attr(file.name)}"]`));
      assert.equal(f.file, file.name);
      assert.deepEqual([f.read_bytes, f.write_bytes, f.operations], [file.read_bytes, file.write_bytes, file.operations], `${name}: ${file.name} alone`);
      sameAsCli(f, cliOf(log, f, '--file', file.name), `${name}, ${file.name} alone`);
      assert.ok(await page.$(`#io-files tr.selected[data-file="${attr(file.name)}"]`), 'the file marked');
      dom = await shown(page);
      assert.equal(dom.readBars + dom.writeBars, file.read_bytes + file.write_bytes, `${name}: the bars hold that file's bytes`);
      await screenshot(page, `io-${base}-file`);
      f = await answered(page, () => page.click(`#io-files tr[data-file="${attr(file.name)}"]`));
      assert.equal(f.file, null);
      assert.equal(f.read_bytes + f.write_bytes, s.read_bytes + s.write_bytes);

      // Zoomed in: the panel asks for the new window by itself.
      const vs = await viewState(page);
      const o = await stageOrigin(page);
      const z = await answered(page, async () => {
        await page.mouse.move(o.x + vs.track_x0 + (vs.width - vs.track_x0) * 0.3, o.y + vs.axis_px + 30);
        for (let k = 0; k < 4; k++) await page.mouse.wheel(0, -300);
      });
      assert.ok(z.window_t1_ns - z.window_t0_ns < s.window_t1_ns - s.window_t0_ns, `${name}: a narrower window asked`);
      sameAsCli(z, cliOf(log, z), `${name}, zoomed in`);
      await screenshot(page, `io-${base}-zoomed`);
      await page.click('#fit');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
