// The execution-graph view in the page: a dropped file in the documented text format is drawn with one
// column per thread and nodes at their event times; the paper's samples open from the Samples menu with the
// thread counts the paper gives; the time scale can be switched; hovering a thread names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, BACKENDS } from '../lib/harness.mjs';

const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;

// Thread 1 forks 2 and 3; 2 and 3 overlap without nesting (the Fibonacci pattern: opposite sides, no crossing).
const PROGRAM = `# weft execgraph 1 unit=us
0 0 1 init
0 0 1 start
10 0 1 fork 2
12 0 2 start
20 0 1 fork 3
22 0 3 start
60 0 2 end
80 0 3 end
30 0 1 b-join 2
60 0 1 a-join 2
60 0 1 b-join 3
80 0 1 a-join 3
100 0 1 end
100 0 1 exit
`;

for (const backend of Object.keys(BACKENDS)) {
  test(`execution graph on ${backend}`, { timeout: 180_000 }, async () => {
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url);
    try {
      await dropFile(page, 'fork.txt', Buffer.from(PROGRAM));
      await waitReady(page, 2);
      assert.deepEqual(await page.evaluate(() => window.weft.viewer.views()), ['execgraph']);
      const st = await viewState(page);
      assert.equal(st.threads, 3);
      assert.equal(st.columns, 3);
      assert.equal(st.crossings, 0);
      const shot = await screenshot(page, `execgraph-${backend}`);
      const origin = await stageOrigin(page);
      // Each thread's column has its vertical flow edge drawn between its start and end times.
      const yOf = (us) => st.header_px + ((us * 1000 - st.top_ns) / st.ns_per_px);
      let drawn = 0;
      for (let c = 0; c < st.columns; c++) {
        const x = st.axis_px + st.scroll_x_px + (c + 0.5) * st.column_px;
        // Some pixel on the column's vertical line, within a pixel either side, is not background.
        const hit = [-1, 0, 1].some((d) => !light(shot.pixel(origin.x + x + d, origin.y + yOf(25))));
        if (hit) drawn++;
      }
      assert.equal(drawn, 3, 'all three threads run at t = 25 us and are drawn there');
      // Nothing is drawn below the end of the program (100 us) in the middle column: 30 px below, or as far
      // below as the stage reaches when the fitted graph ends near its bottom (at least past the end's shape).
      const xm = st.axis_px + st.scroll_x_px + 1.5 * st.column_px;
      const stageHeight = await page.evaluate(() => document.getElementById('stage').getBoundingClientRect().height);
      const below = Math.min(yOf(100) + 30, stageHeight - 3);
      assert.ok(below >= yOf(100) + 10, `room below the end (${Math.round(yOf(100))} of ${stageHeight} px)`);
      assert.ok(light(shot.pixel(origin.x + xm + 6, origin.y + below)), 'empty after the end');

      // Hover each column at 25 us: every tooltip names a thread with its run time share, all three differ.
      const seen = new Set();
      for (let c = 0; c < st.columns; c++) {
        await page.mouse.move(origin.x + st.axis_px + st.scroll_x_px + (c + 0.5) * st.column_px, origin.y + yOf(25));
        await page.waitForSelector('#tooltip:not([hidden])');
        const tip = await page.textContent('#tooltip');
        assert.match(tip, /thread \d+.*run time .*% of the total/s);
        seen.add(tip.match(/thread (\d+)/)[1]);
      }
      assert.deepEqual([...seen].sort(), ['1', '2', '3'], 'one column per thread');
      await page.mouse.move(2, 2);

      // The paper's samples, from the Samples menu.
      for (const [name, threads] of [['fib', 729], ['rsa', 13], ['mergesort', 1024]]) {
        const loads = await page.evaluate(() => window.weft.loads);
        await page.selectOption('#samples', name);
        await waitReady(page, loads + 1);
        const s = await viewState(page);
        assert.equal(s.threads, threads, `${name} has ${threads} threads`);
        if (name === 'fib') assert.equal(s.crossings, 0, 'fib draws without crossings');
        if (name === 'rsa') assert.equal(s.crossings, 30, 'rsa: 12 overlapping workers split 6/6 cross 30 times');
      }
      await screenshot(page, `execgraph-mergesort-${backend}`);

      // Short edges raised to a minimum length: a relayout in the worker.
      await page.selectOption('#view-options select', 'min');
      await page.waitForFunction(() => (window.weft.relayouts || 0) >= 1);
      assert.match((await viewState(page)).scale, /^min-edge \d+ ns$/);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
}
