// The moments of the visible window on real traces from ../shared/traces (skipped, saying so, when absent):
// zoomed and panned in the Utilization & moments view, the page's rows equal `weft moments FILE --window S:E
// --json` for the window the page reports (the 32-rank OTF2 stencil and the Paraver quicksort); the whole
// trace's moments are one option away; rows "by location" follow the timeline's order (the Paraver trace lists
// its tasks 4, 2, 3, 1 by index); colouring by messages changes the bars' pixels. WebGL2 only: nothing here depends on the backend, and SwiftShader WebGPU frames of 32 ranks are slow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, screenshot, repoRoot } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const WEFT = path.join(repoRoot, 'target/debug/weft');
const TRACES = [
  // [folder, the file the CLI opens, zoom steps ('w' = 1.25x about the pointer), pans ('d' = a tenth right),
  //  where to zoom as a fraction of the plot (the stencil computes in its last 2 ms of 1.553 s)]
  ['otf2/tracer-stencil4d-mpi-32', 'traces.otf2', 12, 0, 0.9987],
  ['paraver/paraver-kernel-qsort_beo3', 'qsort_beo3.prv', 4, 2, 0.95],
];

function cliMoments(file, w, extra = []) {
  const args = ['moments', file, '--json', ...extra];
  if (w) args.push('--window', `${w.start_ns}:${w.end_ns}`);
  return JSON.parse(execFileSync(WEFT, args, { maxBuffer: 64 << 20, encoding: 'utf8' }));
}

/** The page's rows equal the CLI's: m0 exactly, the other moments to rounding. */
function assertSameMoments(rows, cli, what) {
  assert.equal(rows.length, cli.length, `${what}: one row per location`);
  const byLocation = new Map(rows.map((r) => [r.location, r]));
  for (const c of cli) {
    const r = byLocation.get(c.location);
    assert.ok(r, `${what}: location ${c.location} shown`);
    assert.equal(r.m0_ns, c.m0_ns, `${what}: ${c.name} m0`);
    for (const k of ['m1_ns', 'm2_ns', 'm3_ns']) {
      const tol = 1e-9 * Math.max(1, Math.abs(c[k]), Math.abs(c.m1_ns));
      assert.ok(Math.abs(r[k] - c[k]) <= tol, `${what}: ${c.name} ${k} ${r[k]} vs ${c[k]}`);
    }
  }
}

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('the moments of the visible window equal weft moments --window', { timeout: 300_000 }, async (t) => {
  if (!fs.existsSync(SHARED)) { t.skip(`${SHARED} is absent`); return; }
  if (!fs.existsSync(WEFT)) { t.skip(`${WEFT} is not built (cargo build)`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    let loads = 1;
    for (const [rel, anchor, zooms, pans, at] of TRACES) {
      const dir = path.join(SHARED, rel);
      const file = path.join(dir, anchor);
      await page.setInputFiles('#folder-input', dir);
      await waitReady(page, ++loads);
      const timelineRows = (await viewState(page)).rows.map((r) => r.location);
      await page.click('#views button[data-view="moments"]');
      await frame(page);
      let st = await viewState(page);
      assert.equal(st.view, 'moments');
      assert.equal(st.span, 'window', `${rel}: the moments of the visible window by default`);
      // By location = the timeline's order.
      assert.deepEqual(st.rows.map((r) => r.location), [...new Set(timelineRows)], `${rel}: rows in the timeline's order`);
      await page.click('#fit');
      const whole = cliMoments(file, null);
      const fitted = await viewState(page);
      assertSameMoments(fitted.rows, whole, `${rel}: fitted`);

      // Zoom about where the trace computes (the stencil's iterations follow a long MPI_Init), pan: the
      // window's moments follow.
      const o = await stageOrigin(page);
      st = fitted;
      await page.mouse.move(o.x + st.plot.x0 + at * (st.plot.x1 - st.plot.x0), o.y + st.plot.y0 + 20);
      for (let k = 0; k < zooms; k++) await page.keyboard.press('w');
      for (let k = 0; k < pans; k++) await page.keyboard.press('d');
      await frame(page);
      st = await viewState(page);
      const w = st.window;
      assert.ok(w.end_ns > w.start_ns && w.end_ns - w.start_ns < 0.5 * fitted.window.end_ns, `${rel}: a window ${JSON.stringify(w)}`);
      assert.equal(w.start_ns, Math.max(0, Math.round(st.t0_ns)), `${rel}: the window is the visible range`);
      const cli = cliMoments(file, w);
      assert.ok(st.rows.some((r) => r.m0_ns > 0), `${rel}: busy time in the window`);
      assertSameMoments(st.rows, cli, `${rel}: window ${w.start_ns}:${w.end_ns}`);
      assert.ok(cli.some((c, i) => c.m0_ns !== whole[i].m0_ns), `${rel}: the window's moments differ from the whole's`);
      await screenshot(page, `moments-window-${path.basename(rel)}`);

      // The whole trace's moments: one option away, and back.
      await page.selectOption('#moments-span', 'whole');
      assertSameMoments((await viewState(page)).rows, whole, `${rel}: whole`);
      await page.selectOption('#moments-span', 'window');
      assertSameMoments((await viewState(page)).rows, cli, `${rel}: the window again`);
    }

    // The quicksort, fitted: colouring by messages sent changes the bars' pixels.
    const o = await stageOrigin(page);
    const barPixels = async () => {
      const shot = await screenshot(page, 'moments-window-colour');
      const s = await viewState(page);
      const pxPerNs = (s.plot.x1 - s.plot.x0) / (s.t1_ns - s.t0_ns);
      // Beside the tick at m1, a fifth of a row above the middle: the bar, not the deviation or the skew line.
      return s.rows.filter((r) => (r.m0_ns / 2) * pxPerNs > 6).map((r) => {
        const i = s.rows.indexOf(r);
        const x = o.x + s.moment_view_x + s.plot.x0 + (r.m1_ns - s.t0_ns) * pxPerNs + 4;
        const y = o.y + s.plot.y0 + (i - s.first_row + 0.5) * s.row_height_px - s.row_height_px * 0.2;
        return shot.pixel(x, y).slice(0, 3).join(',');
      });
    };
    await page.click('#fit');
    await frame(page);
    const grey = await barPixels();
    await page.selectOption('#moments-color', 'messages_sent');
    await frame(page);
    const coloured = await barPixels();
    assert.equal((await viewState(page)).color, 'messages sent');
    assert.ok(grey.length > 0, 'bars wide enough to sample');
    assert.ok(grey.every((g, i) => g !== coloured[i]), `the bars change colour: ${grey} vs ${coloured}`);
    assert.deepEqual(await page.evaluate(() => window.weft.errors), []);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
