// Issue #15 in the page: a trace with N distinct threads, and one with N nested B events, loaded through the
// worker; prints the main thread's time for view_state() and for one frame. `node tests/browser/bench/bench-hostile.mjs [N]`
// (figures in BENCHMARKS.md, "Hostile input: scaling").
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, outDir } from '../lib/harness.mjs';

const n = Number(process.argv[2] || 200000);
const threads = '[' + Array.from({ length: n }, (_, i) => `{"ph":"X","name":"w","pid":1,"tid":${i},"ts":${i},"dur":1}`).join(',') + ']';
const nested = '[' + Array.from({ length: n }, (_, i) => `{"ph":"B","name":"f${i % 7}","pid":1,"tid":1,"ts":${i}}`).join(',') + ']';
fs.mkdirSync(outDir, { recursive: true });
const { server, url } = await startServer();
const { browser, page } = await openPage('webgpu', url);
try {
  let loads = await page.evaluate(() => window.weft.loads);
  for (const [name, text] of [['threads', threads], ['nested', nested]]) {
    const file = path.join(outDir, `hostile-${name}.json`);
    fs.writeFileSync(file, text);
    await page.setInputFiles('#file-input', file);
    await waitReady(page, ++loads, 300_000);
    const r = await page.evaluate(() => {
      const v = window.weft.viewer;
      let t = performance.now();
      const st = v.view_state();
      const state_ms = performance.now() - t;
      v.invalidate();
      t = performance.now();
      v.frame();
      const frame_ms = performance.now() - t;
      return { state_ms, frame_ms, rows: st.rows.length, row_count: st.row_count, stats: v.stats() };
    });
    console.log(`${name} n=${n}: view_state ${r.state_ms.toFixed(1)} ms (${r.rows} of ${r.row_count} rows), frame ${r.frame_ms.toFixed(1)} ms (${r.stats.rects} rects, ${r.stats.labels} labels)`);
    fs.rmSync(file);
  }
} finally {
  await browser.close();
  server.close();
}
