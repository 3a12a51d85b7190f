// Flow arrows in the timeline, on both backends: a Kineto-shaped trace (the launch flow's `f`, on the GPU
// stream, written before its `s`, on the CPU thread) is drawn with its arrow from the launching
// cudaLaunchKernel slice (second lane of the CPU thread) to the kernel (first lane of the stream), and
// hovering the arrow names both ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, BACKENDS } from '../lib/harness.mjs';

/** CPU op [0, 400] us holding a cudaLaunchKernel [100, 140]; the kernel [600, 900] on stream 7. */
function kinetoTrace() {
  const cpu = 4242;
  const events = [
    { ph: 'M', name: 'process_name', pid: cpu, tid: cpu, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: cpu, tid: cpu, args: { name: 'main thread' } },
    { ph: 'M', name: 'process_name', pid: 0, tid: 7, args: { name: 'GPU 0' } },
    { ph: 'M', name: 'thread_name', pid: 0, tid: 7, args: { name: 'stream 7' } },
    // Kineto's order: the GPU side first, the flow's end before its start.
    { ph: 'X', cat: 'kernel', name: 'volta_sgemm_128x64_nn', pid: 0, tid: 7, ts: 1000600, dur: 300, args: { correlation: 9 } },
    { ph: 'f', id: 9, pid: 0, tid: 7, ts: 1000600, cat: 'ac2g', name: 'ac2g', bp: 'e' },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: cpu, tid: cpu, ts: 1000000, dur: 400 },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: cpu, tid: cpu, ts: 1000100, dur: 40, args: { correlation: 9 } },
    { ph: 's', id: 9, pid: cpu, tid: cpu, ts: 1000100, cat: 'ac2g', name: 'ac2g' },
  ];
  return { bytes: Buffer.from(JSON.stringify({ schemaVersion: 1, traceEvents: events })), firstTs: 1000000 };
}

/** The flow's grey (#222 at half alpha) over a light background: darkish and unsaturated. */
const arrowGrey = ([r, g, b]) => r < 200 && g < 200 && b < 200 && Math.max(r, g, b) - Math.min(r, g, b) < 24;

for (const backend of Object.keys(BACKENDS)) {
  test(`flow arrows on ${backend}`, { timeout: 180_000 }, async () => {
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url);
    try {
      const trace = kinetoTrace();
      await dropFile(page, 'kineto.json', trace.bytes);
      await waitReady(page, 2);
      const summary = await page.evaluate(() => window.weft.lastSummary);
      assert.equal(summary.flows, 1, 'the one launch flow is matched although its end comes first');
      const vs = await viewState(page);
      const cpuRow = vs.rows.find((r) => r.name === 'main thread');
      const gpuRow = vs.rows.find((r) => r.name === 'stream 7');
      assert.ok(cpuRow && gpuRow, 'rows for the CPU thread and the stream');
      assert.equal(cpuRow.lanes, 2, 'the launch nests inside the CPU op');
      const trackW = vs.width - vs.track_x0;
      const xOf = (tsUs) => vs.track_x0 + (((tsUs - trace.firstTs) * 1000 - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * trackW;
      // From the launch (lane 1 of the CPU row) at its start to the kernel (lane 0 of the stream) at its start.
      const from = { x: xOf(1000100), y: cpuRow.y + 1.5 * vs.lane_px };
      const to = { x: xOf(1000600), y: gpuRow.y + 0.5 * vs.lane_px };
      const at = (u) => ({ x: from.x + u * (to.x - from.x), y: from.y + u * (to.y - from.y) });

      const shot = await screenshot(page, `flows-${backend}`);
      const origin = await stageOrigin(page);
      const greyNear = (p) => {
        for (let dx = -1; dx <= 1; dx++) for (let dy = -2; dy <= 2; dy++) {
          if (arrowGrey(shot.pixel(Math.round(origin.x + p.x + dx), Math.round(origin.y + p.y + dy)))) return true;
        }
        return false;
      };
      // Points of the arrow past the CPU op's end, where it crosses no slice, are drawn; the same points
      // of an arrow from the CPU row's first lane (where the old drawing put it) are not.
      const opEnd = xOf(1000400);
      for (const u of [0.7, 0.8, 0.9]) {
        const p = at(u);
        assert.ok(p.x > opEnd + 3 && p.x < to.x - 3, `u=${u} lies between the slices`);
        assert.ok(greyNear(p), `the arrow passes through (${p.x.toFixed(1)}, ${p.y.toFixed(1)}) at u=${u}`);
      }
      for (const u of [0.7, 0.75]) {
        const p = at(u);
        const wrong = { x: p.x, y: p.y - (1 - u) * vs.lane_px };
        assert.ok(!greyNear(wrong), `no arrow from the CPU row's first lane at u=${u}`);
      }

      // Hovering the arrow names both ends: the launching slice and the kernel.
      const mid = at(0.75);
      await page.mouse.move(origin.x + mid.x, origin.y + mid.y);
      await page.waitForSelector('#tooltip:not([hidden])');
      const tip = await page.textContent('#tooltip');
      assert.match(tip, /flow ac2g/);
      assert.match(tip, /from cudaLaunchKernel · python · main thread/);
      assert.match(tip, /to volta_sgemm_128x64_nn · GPU 0 · stream 7/);
      const hover = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [mid.x, mid.y]);
      assert.equal(hover.detail.from, 'cudaLaunchKernel');
      assert.equal(hover.detail.to, 'volta_sgemm_128x64_nn');
      await page.mouse.move(5, 5);
      assert.deepEqual(problems, [], 'no console errors');
    } finally {
      await browser.close();
      server.close();
    }
  });
}
