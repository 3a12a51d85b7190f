// Times the aggregated view's navigation in the real page (headless chromium, WebGPU build): building the
// aggregation when the tab is first shown, then opens — each the largest closed group shown, as a person
// drilling in would — measured as the pane's own re-layout time and as the whole configure('open') call
// (re-layout, geometry for the animation), plus building the frame's scene. Not a test; figures go in
// BENCHMARKS.md.
//   node tests/browser/bench/bench-aggregate.mjs PROFILE [opens]
// e.g. PROFILE = ../shared/traces/grain-graphs/anamud-test-data/fib/task-stats.merged (fib(45), 8,192 grains)
// or one written by `cargo run --release --example grain_profile -- 45 16 48 tests/out/fib45-c16.csv` (131,072).
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, dropFile, screenshot } from '../lib/harness.mjs';

const [file, opensArg] = process.argv.slice(2);
if (!file || !fs.existsSync(file)) {
  console.error('usage: bench-aggregate.mjs PROFILE [opens]');
  process.exit(2);
}
const opens = Number(opensArg || 60);
const { server, url } = await startServer();
const { browser, page, problems } = await openPage('webgpu', url);
try {
  await dropFile(page, path.basename(file), fs.readFileSync(file));
  await waitReady(page, 2, 600_000);
  // The fitted grain view first: its frame (level of detail bounds rects and lines by the pixels).
  const grainFrame = await page.evaluate(async () => {
    const v = window.weft.viewer;
    const frame = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
    const out = [];
    for (let i = 0; i < 5; i++) { v.invalidate(); await frame(); out.push(v.stats()); }
    return out[out.length - 1];
  });
  await screenshot(page, `bench-aggregate-grains-${path.basename(file)}`);
  const r = await page.evaluate(async (opens) => {
    const v = window.weft.viewer;
    const frame = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
    const t0 = performance.now();
    v.set_view('aggregate');
    const buildMs = performance.now() - t0;
    const relayout = [], call = [], scene = [];
    for (let i = 0; i < opens; i++) {
      const st = v.view_state();
      const closed = st.nodes.filter((n) => !n.open && n.kind !== 'leaf');
      if (!closed.length) break;
      const g = closed.reduce((a, b) => (b.strength[1] > a.strength[1] ? b : a));
      const a = performance.now();
      v.configure('open', String(g.id));
      call.push(performance.now() - a);
      relayout.push(v.view_state().last_relayout_ms);
      await frame();
      scene.push(v.stats().build_ms);
    }
    const st = v.view_state();
    const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 100) / 100; };
    return {
      grains: st.grains, tree_nodes: st.tree_nodes, opens: relayout.length, visible_after: st.visible,
      aggregation_build_ms: Math.round(buildMs),
      relayout_ms: { median: q(relayout, 0.5), p95: q(relayout, 0.95), max: q(relayout, 1) },
      open_call_ms: { median: q(call, 0.5), p95: q(call, 0.95), max: q(call, 1) },
      scene_build_ms: { median: q(scene, 0.5), p95: q(scene, 0.95), max: q(scene, 1) },
    };
  }, opens);
  console.log(JSON.stringify({ grain_view_fitted_frame: grainFrame, ...r }, null, 2));
  await screenshot(page, `bench-aggregate-${path.basename(file)}`);
  if (problems.length) console.log('page problems:', problems);
} finally {
  await browser.close();
  server.close();
}
