// The utilization & moments view in the page: moments agree with an independent computation, the glyph
// for each location sits where its moments say, the Gantt chart shows busy time where it is, hovering a row
// explains it, and switching the busy definition changes what counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, BACKENDS } from '../lib/harness.mjs';
import { momentsTrace, momentsOf } from '../lib/fixtures.mjs';
import { decodePng } from '../lib/png.mjs';
import fs from 'node:fs';

const dark = ([r, g, b]) => r + g + b < 3 * 120;
const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;

for (const backend of Object.keys(BACKENDS)) {
  test(`moments view on ${backend}`, { timeout: 180_000 }, async () => {
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url);
    try {
      const fx = momentsTrace();
      await dropFile(page, 'moments.json', fx.bytes);
      await waitReady(page, 2);
      await page.click('#views button[data-view="moments"]');
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const st = await viewState(page);
      assert.equal(st.view, 'moments');
      assert.equal(st.busy, 'compute');
      assert.equal(st.rows.length, 4);
      const shot = await screenshot(page, `moments-${backend}`);
      const origin = await stageOrigin(page);
      const { x0, y0, x1 } = st.plot;
      const xAt = (t, off) => off + x0 + ((t - st.t0_ns) / (st.t1_ns - st.t0_ns)) * (x1 - x0);
      st.rows.forEach((row, i) => {
        const th = fx.threads.find((t) => row.name.endsWith(t.name));
        assert.ok(th, `row ${row.name} is one of the threads`);
        const want = momentsOf(th.busy, fx.firstTs);
        assert.ok(Math.abs(row.m0_ns - want.m0) < 1, `${row.name} m0 ${row.m0_ns} vs ${want.m0}`);
        assert.ok(Math.abs(row.m1_ns - want.m1) < 1, `${row.name} m1 ${row.m1_ns} vs ${want.m1}`);
        assert.ok(Math.abs(row.m2_ns - want.m2) < 1, `${row.name} m2 ${row.m2_ns} vs ${want.m2}`);
        assert.ok(Math.abs(row.m3_ns - want.m3) < 1, `${row.name} m3 ${row.m3_ns} vs ${want.m3}`);
        const y = origin.y + y0 + (i - st.first_row + 0.5) * st.row_height_px;
        // Moment view: the tick at m1 is dark; far right of m1 + m2 (and of any skew) is empty.
        const tick = shot.pixel(origin.x + xAt(row.m1_ns, st.moment_view_x), y);
        assert.ok(dark(tick), `${row.name}: tick at m1 is drawn (got ${tick})`);
        const beyond = xAt(row.m1_ns + row.m2_ns + Math.abs(row.m3_ns), st.moment_view_x) + 12;
        if (beyond < st.moment_view_x + x1) assert.ok(light(shot.pixel(origin.x + beyond, y)), `${row.name}: nothing beyond the glyph`);
        // Gantt: busy in the middle of each busy segment, idle between the bars.
        for (const [a, b] of th.busy) {
          const px = shot.pixel(origin.x + xAt(((a + b) / 2 - fx.firstTs) * 1000, 0), y);
          assert.ok(!light(px), `${row.name}: Gantt busy at ${(a + b) / 2} us (got ${px})`);
        }
        const idle = shot.pixel(origin.x + xAt((550 - fx.firstTs) * 1000, 0), y);
        assert.ok(light(idle), `${row.name}: Gantt idle at 550 us (got ${idle})`);
      });

      // Hover a row: its name, the moments in real units, and a reading in words.
      const y = origin.y + y0 + (2 - st.first_row + 0.5) * st.row_height_px;
      await page.mouse.move(origin.x + st.moment_view_x + (x0 + x1) / 2, y);
      await page.waitForSelector('#tooltip:not([hidden])');
      const tip = await page.textContent('#tooltip');
      assert.match(tip, new RegExp(st.rows[2].name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.match(tip, /m0 .*m1 .*m2 .*m3/);

      // Busy = any region: the MPI call now counts, so m0 grows by its 30 us.
      await page.selectOption('#view-options select >> nth=0', 'any');
      // The worker computes the moments of another definition; the page shows them when they arrive.
      await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'any');
      const any = await viewState(page);
      assert.equal(any.busy, 'any');
      const row0 = any.rows.find((r) => r.name.endsWith('thread 0'));
      const compute0 = st.rows.find((r) => r.name.endsWith('thread 0'));
      assert.equal(row0.m0_ns - compute0.m0_ns, 30_000);

      // Colour bars by an extra quantity.
      await page.selectOption('#view-options select >> nth=2', 'spread');
      assert.equal((await viewState(page)).color, 'spread 2·m2/m0');

      // Export the view: SVG with every location's row, and PNG at 2x with the glyphs where the screen has them.
      const [svgDl] = await Promise.all([page.waitForEvent('download'), page.selectOption('#export', 'svg')]);
      const svg = fs.readFileSync(await svgDl.path(), 'utf8');
      assert.match(svg, /^<svg [^>]*viewBox/);
      for (const r of any.rows) assert.ok(svg.includes(`>${r.name}</text>`), `SVG names ${r.name}`);
      const [pngDl] = await Promise.all([page.waitForEvent('download'), page.selectOption('#export', 'png2')]);
      assert.match(pngDl.suggestedFilename(), /moments\.png$/);
      const png = decodePng(fs.readFileSync(await pngDl.path()));
      const stageWidth = await page.evaluate(() => document.getElementById('stage').getBoundingClientRect().width);
      assert.equal(png.width, Math.round(stageWidth * 2), 'PNG at twice the screen size');
      const cur = await viewState(page);
      const xAt2 = (t, off) => off + cur.plot.x0 + ((t - cur.t0_ns) / (cur.t1_ns - cur.t0_ns)) * (cur.plot.x1 - cur.plot.x0);
      const pngTicks = cur.rows.map((row, i) => {
        const x = 2 * xAt2(row.m1_ns, cur.moment_view_x);
        const yy = 2 * (cur.plot.y0 + (i - cur.first_row + 0.5) * cur.row_height_px);
        return dark(png.pixel(x, yy));
      });
      assert.deepEqual(pngTicks, cur.rows.map(() => true), 'the PNG has each row\'s m1 tick');

      // The time range is kept when switching back to the timeline.
      await page.keyboard.press('w');
      const zoomed = await viewState(page);
      await page.keyboard.press('1');
      const tl = await viewState(page);
      assert.equal(tl.view, 'timeline');
      assert.ok(Math.abs(tl.t0_ns - zoomed.t0_ns) < 1 && Math.abs(tl.t1_ns - zoomed.t1_ns) < 1, 'time range kept');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
}
