// The flame graph's frame at 100,000+ nodes (issue #55): a generated Chrome trace whose call tree has
// 1 + F + F*G + F*G*H distinct call paths (main > f_i > g_j > h_k, random durations), opened in the page, its
// whole-run call tree asked of the worker (the panel), shown as a flame graph; then the scene build of each
// frame (`Viewer.stats().build_ms`: the layout's boxes to instances, on the page's thread, in its wasm) as it is
// redrawn, hovered and zoomed into a subtree and back (a zoom lays out again: timed around `Viewer.click` and
// the frame). Not a test; figures go in BENCHMARKS.md ("Session 39: call tree and flame graph on the page").
//   node tests/browser/bench/bench-flame.mjs webgpu|webgl [F G H]       default 100 100 10: 110,101 nodes
import { startServer, openPage, waitReady, dropFile } from '../lib/harness.mjs';

const [backend = 'webgpu', F = 100, G = 100, H = 10] = process.argv.slice(2).map((a, i) => (i === 0 ? a : Number(a)));

/** One thread: main, then f_i, each of g_j, each of h_k, back to back, leaves 1-200 us (a fixed seed). */
function generated() {
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const ev = [];
  let t = 0;
  const at = (name, ts, dur) => ev.push({ ph: 'X', name, pid: 1, tid: 1, ts, dur });
  const main = ev.length; at('main', 0, 0);
  for (let i = 0; i < F; i++) {
    const f = ev.length; const f0 = t; at(`f${i}`, t, 0);
    for (let j = 0; j < G; j++) {
      const g = ev.length; const g0 = t; at(`g${j}`, t, 0);
      for (let k = 0; k < H; k++) { const d = 1 + Math.floor(rand() * (rand() < 0.05 ? 2000 : 200)); at(`h${k}`, t, d); t += d; }
      t += 1; ev[g].dur = t - g0;
    }
    t += 1; ev[f].dur = t - f0;
  }
  t += 1; ev[main].dur = t;
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

const q = (d, p) => d.slice().sort((a, b) => a - b)[Math.min(d.length - 1, Math.floor(p * d.length))];
const { server, url } = await startServer();
const { browser, page } = await openPage(backend, url, { width: 1500, height: 950 });
try {
  await dropFile(page, 'flame.json', generated());
  await waitReady(page, 2, 600_000);
  const asked = performance.now();
  await page.click('#calltree-toggle');
  await page.waitForFunction(() => (window.weft.calltrees || 0) >= 1, null, { timeout: 600_000 });
  const treeMs = performance.now() - asked;
  await page.click('#calltree-flame');
  await page.waitForFunction(() => window.weft.viewer.view() === 'flamegraph');
  const st = await page.evaluate(() => window.weft.viewer.view_state());
  const out = { backend, nodes: st.nodes, boxes: st.boxes.length, levels: st.levels, panel_tree_ms: +treeMs.toFixed(0) };
  // Redrawn as it is (the scene of the layout held), hovered (the same, one box outlined), zoomed (laid out again).
  const frames = (what) => page.evaluate(async (what) => {
    const v = window.weft.viewer;
    const st = v.view_state();
    const build = [], total = [];
    for (let k = 0; k < 40; k++) {
      const t = performance.now();
      if (what === 'hover') v.hover(20 + (k * 37) % (st.width - 40), st.height - 1.5 * st.level_px - (k % 3) * st.level_px);
      else if (what === 'zoom') v.click(st.width / 2 + (k % 2 ? 0 : 5), st.height - 1.5 * st.level_px);
      else v.invalidate();
      v.frame();
      total.push(performance.now() - t);
      build.push(v.stats().build_ms);
      await new Promise((r) => requestAnimationFrame(r));
    }
    const s = v.stats();
    return { build, total, rects: s.rects, labels: s.labels, draw_calls: s.draw_calls };
  }, what);
  for (const what of ['redraw', 'hover', 'zoom']) {
    const r = await frames(what);
    out[what] = { build_median_ms: +q(r.build, 0.5).toFixed(2), build_max_ms: +Math.max(...r.build).toFixed(2), frame_median_ms: +q(r.total, 0.5).toFixed(2), frame_p95_ms: +q(r.total, 0.95).toFixed(2), rects: r.rects, labels: r.labels, draw_calls: r.draw_calls };
  }
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
  server.close();
}
