// The timeline, as a person uses it, on both backends: the sample opens by itself; a dropped trace is drawn
// where its intervals are; hovering shows the right interval; a broken file gives a clear message and the
// next good file still loads; nothing is logged as an error and nothing is fetched after a drop. On a real
// PyTorch profiler trace, a kernel's hover lists its args as the JSON gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, BACKENDS } from '../lib/harness.mjs';
import { gridTrace } from '../lib/fixtures.mjs';

const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;
const close = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 6);

for (const backend of Object.keys(BACKENDS)) {
  test(`timeline on ${backend}`, { timeout: 180_000 }, async () => {
    const { server, url } = await startServer();
    const { browser, page, problems, requests } = await openPage(backend, url);
    try {
      // The built-in sample is shown without any action, and the page says which API draws it.
      const state0 = await page.evaluate(() => ({ state: window.weft.state, backend: document.getElementById('backend').textContent, summary: window.weft.lastSummary }));
      assert.equal(state0.state, 'ready');
      assert.equal(state0.backend, BACKENDS[backend].label);
      assert.ok(state0.summary.intervals > 100, 'the sample has intervals');
      const shot0 = await screenshot(page, `sample-${backend}`);
      const origin0 = await stageOrigin(page);
      const vs0 = await viewState(page);
      // Something other than background is drawn in the first row's lane.
      const row0 = vs0.rows[0];
      let painted = 0;
      for (let x = vs0.track_x0 + 2; x < vs0.width - 2; x += 4) if (!light(shot0.pixel(origin0.x + x, origin0.y + row0.y + vs0.lane_px / 2))) painted++;
      assert.ok(painted > 10, `the sample's first row is drawn (${painted} painted samples)`);

      // Drop a generated trace whose intervals we know.
      const before = requests.length;
      const grid = gridTrace();
      await dropFile(page, 'grid.json', grid.bytes);
      let loads = 2;
      await waitReady(page, loads);
      assert.equal(await page.evaluate(() => document.getElementById('file-name').textContent), 'grid.json');
      const vs = await viewState(page);
      assert.equal(vs.rows.length, 6);
      const shot = await screenshot(page, `grid-${backend}`);
      const origin = await stageOrigin(page);
      const trackW = vs.width - vs.track_x0;
      const xOf = (tsUs) => vs.track_x0 + (((tsUs - grid.firstTs) * 1000 - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * trackW;
      const colours = new Map();
      for (const iv of grid.intervals) {
        const row = vs.rows.find((r) => r.name === `worker ${iv.p}.${iv.t}` && r.process === `Rank ${iv.p}`);
        assert.ok(row, `row for worker ${iv.p}.${iv.t}`);
        const y = origin.y + row.y + vs.lane_px / 2;
        // Sampled past the slice's name (drawn from its left end), where only the fill is.
        const inside = shot.pixel(origin.x + xOf(iv.ts + iv.dur * 0.85), y);
        assert.ok(!light(inside), `interval ${iv.name}#${iv.k} is drawn at its time (got ${inside})`);
        const seen = colours.get(iv.name);
        if (seen) assert.ok(close(seen, inside), `${iv.name} has one colour (${seen} vs ${inside})`);
        else colours.set(iv.name, inside);
        // Just after the interval ends there is nothing on this row.
        const gx = xOf(iv.ts + iv.dur + 60);
        if (gx < vs.width - 2) {
          const gap = shot.pixel(origin.x + gx, y);
          assert.ok(light(gap), `nothing drawn after ${iv.name}#${iv.k} ends (got ${gap})`);
        }
      }

      // Hover the third interval of worker 1.1: the tooltip names it, its thread, start and duration.
      const target = grid.intervals.find((iv) => iv.p === 1 && iv.t === 1 && iv.k === 2);
      const row = vs.rows.find((r) => r.name === 'worker 1.1');
      await page.mouse.move(origin.x + xOf(target.ts + target.dur / 2), origin.y + row.y + vs.lane_px / 2);
      await page.waitForSelector('#tooltip:not([hidden])');
      const tip = await page.textContent('#tooltip');
      assert.match(tip, /work_1_1/);
      assert.match(tip, /Rank 1 · worker 1\.1/);
      assert.match(tip, new RegExp(`duration ${(target.dur).toFixed(3)} us`));
      // The start at the precision the zoom needs (whole microseconds at this zoom): within half its last digit.
      const start = tip.match(/start ([\d.]+) us/);
      assert.ok(start, `a start time in ${tip}`);
      const digits = (start[1].split('.')[1] || '').length;
      assert.ok(Math.abs(Number(start[1]) - (target.ts - grid.firstTs)) <= 0.5 * 10 ** -digits + 1e-9, `start in ${tip}`);
      await page.mouse.move(5, 5);

      // A real PyTorch profiler trace: the kernel's hover lists its args under its times, the first 12 as
      // "key: value" (strings as text, the rest as compact JSON), then "+N more".
      const kinetoPath = new URL('../../../../shared/traces/chrome-json/kineto/docs_before_fix_trace.json', import.meta.url);
      if (!existsSync(kinetoPath)) {
        console.log(`SKIPPED timeline: the PyTorch trace's hover (no ${kinetoPath.pathname}: ../shared/traces is absent)`);
      } else {
        const kinetoBytes = readFileSync(kinetoPath);
        const kineto = JSON.parse(kinetoBytes.toString());
        const kernel = kineto.traceEvents.find((e) => e.ph === 'X' && e.name === 'Kernel');
        const firstUs = Math.min(...kineto.traceEvents.filter((e) => e.ph !== 'M' && typeof e.ts === 'number').map((e) => e.ts));
        await dropFile(page, 'kineto.json', kinetoBytes);
        await waitReady(page, ++loads);
        const ks = (kernel.ts - firstUs) * 1000, kd = kernel.dur * 1000;
        await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [ks - kd * 0.1, ks + kd * 1.1]);
        const kvs = await viewState(page);
        const krow = kvs.rows.find((r) => r.process.startsWith('CuptiActivityProfilerTest') && r.name.startsWith('stream 1'));
        assert.ok(krow, `the kernel's stream has its row: ${JSON.stringify(kvs.rows.map((r) => r.name))}`);
        const kx = kvs.track_x0 + ((ks + kd / 2 - kvs.t0_ns) / (kvs.t1_ns - kvs.t0_ns)) * (kvs.width - kvs.track_x0);
        // The stage's place after this file's load (the bar's line of file name and actions wraps by its length).
        const korigin = await stageOrigin(page);
        await page.mouse.move(korigin.x + kx, korigin.y + krow.y + kvs.lane_px / 2);
        await page.waitForFunction(() => /Kernel/.test(document.getElementById('tooltip').textContent) && !document.getElementById('tooltip').hidden);
        const klines = await page.evaluate(() => [...document.querySelectorAll('#tooltip > div')].map((d) => d.textContent));
        const entries = Object.entries(kernel.args).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
        const cut = (l) => { const i = l.indexOf(': '), v = l.slice(i + 2); return [...v].length <= 80 ? l : `${l.slice(0, i + 2)}${[...v].slice(0, 79).join('')}…`; };
        const want = [...entries.slice(0, 12).map(cut), `+${entries.length - 12} more`];
        const at = klines.indexOf(want[0]);
        assert.ok(at > 0, `the args in the hover: ${JSON.stringify(klines)}`);
        assert.deepEqual(klines.slice(at), want);
        await page.mouse.move(5, 5);
      }

      // A file that is not a trace: a clear message naming it; the page stays usable.
      await dropFile(page, 'notes.txt', Buffer.from('these are my notes, not a trace\n'));
      await page.waitForSelector('#error:not([hidden])');
      const err = await page.textContent('#error-text');
      assert.match(err, /notes\.txt/);
      assert.match(err, /not a trace/);
      await dropFile(page, 'broken.json', Buffer.from('{"traceEvents": 42}'));
      await page.waitForFunction(() => /broken\.json/.test(document.getElementById('error-text').textContent));
      // The next good file loads and clears the message.
      await dropFile(page, 'grid-again.json', grid.bytes);
      await waitReady(page, ++loads);
      assert.equal(await page.isHidden('#error'), true);
      assert.equal(await page.evaluate(() => document.getElementById('file-name').textContent), 'grid-again.json');

      // Zoom with W and pan with D change the view; F fits again.
      const vs1 = await viewState(page);
      const t0 = vs1.t1_ns - vs1.t0_ns;
      await page.keyboard.press('w');
      await page.keyboard.press('d');
      const zoomed = await viewState(page);
      assert.ok(zoomed.t1_ns - zoomed.t0_ns < t0 * 0.9, 'W zooms in');
      await page.keyboard.press('f');
      assert.ok(Math.abs((await viewState(page)).t1_ns - (await viewState(page)).t0_ns - t0) < 1, 'F fits');

      const stats = await page.evaluate(() => window.weft.viewer.stats());
      assert.ok(stats.draw_calls <= 2, `at most two draw calls per frame (got ${stats.draw_calls})`);
      assert.deepEqual(requests.slice(before).filter((u) => !u.startsWith('data:') && !u.startsWith('blob:')), [], 'nothing is fetched after a drop');
      assert.deepEqual(problems, [], 'no console errors');
    } finally {
      await browser.close();
      server.close();
    }
  });
}
