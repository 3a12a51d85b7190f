// Times the grain panel's work in the real page (headless chromium, WebGPU build): the problems summary, the
// problem table (wasm rows, then sorting and at most 1,000 DOM rows), search, and select + locate + frame,
// on a MIR profile. Not a test; the figures go in BENCHMARKS.md.
//   node tests/browser/bench/bench-grain-panel.mjs PROFILE [runs]
// e.g. PROFILE = ../shared/traces/grain-graphs/anamud-test-data/fib/task-stats.merged (fib(45), 8,192 grains)
// or one written by `cargo run --example grain_profile -- 45 16 48 tests/out/fib45-c16.csv` (131,072).
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, dropFile } from '../lib/harness.mjs';

const [file, runsArg] = process.argv.slice(2);
if (!file || !fs.existsSync(file)) {
  console.error('usage: bench-grain-panel.mjs PROFILE [runs]');
  process.exit(2);
}
const runs = Number(runsArg || 5);
const { server, url } = await startServer();
const { browser, page, problems } = await openPage('webgpu', url);
try {
  const t0 = Date.now();
  await dropFile(page, path.basename(file), fs.readFileSync(file));
  await waitReady(page, 2, 600_000);
  const loadMs = Date.now() - t0;
  const r = await page.evaluate((runs) => {
    const v = window.weft.viewer;
    const panel = window.weft.grainPanel;
    const median = (f) => {
      const ts = [];
      for (let i = 0; i < runs; i++) { const a = performance.now(); f(); ts.push(performance.now() - a); }
      ts.sort((a, b) => a - b);
      return Math.round(ts[ts.length >> 1] * 100) / 100;
    };
    const summary = v.grain_summary();
    const biggest = summary.metrics.reduce((a, b) => (b.count > a.count ? b : a));
    v.configure('problem', biggest.metric);
    const task = v.grain_problems('').task[0];
    return {
      grains: v.view_state().grains,
      table_metric: biggest.metric,
      table_rows: biggest.count,
      summary_ms: median(() => v.grain_summary()),
      table_wasm_ms: median(() => v.grain_problems('')),
      panel_update_ms: median(() => panel.update('grains')),
      sort_by_task_ms: median(() => { panel.sort = { key: 'task', desc: false }; panel.renderTable(panel.table); }),
      search_task_id_ms: median(() => v.grain_search(String(task))),
      search_text_ms: median(() => v.grain_search('fib')),
      select_locate_frame_ms: median(() => { v.select_grain(0, true); v.frame(); }),
    };
  }, runs);
  console.log(JSON.stringify({ file, load_to_ready_ms: loadMs, ...r, runs, problems }, null, 1));
} finally {
  await browser.close();
  server.close();
}
