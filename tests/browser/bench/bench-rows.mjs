// Frame times of the timeline while dragging (issue 18, "Rows that fit"): each `Viewer.frame` that drew
// during 120 pointer moves of a drag (pan and scroll, as a person drags), normal and compact rows. Not a test;
// figures go in BENCHMARKS.md ("Timeline rows").
//   node tests/browser/bench/bench-rows.mjs webgpu|webgl PATH        a trace file, or an OTF2 folder
//   node tests/browser/bench/bench-rows.mjs webgpu|webgl gen:10000   a generated Chrome trace of N threads
import { startServer, openPage, waitReady, dropFile, stageOrigin } from '../lib/harness.mjs';
import fs from 'node:fs';

const [backend, input] = process.argv.slice(2);

/** N threads in N/8 processes, 40 slices each (two nested), spread over 100 ms. */
function generated(n) {
  const ev = [];
  for (let t = 0; t < n; t++) {
    const pid = Math.floor(t / 8);
    for (let k = 0; k < 20; k++) {
      const ts = k * 5000 + (t % 97) * 13;
      ev.push({ ph: 'X', name: `step${k % 5}`, pid, tid: t, ts, dur: 3000 });
      ev.push({ ph: 'X', name: 'inner', pid, tid: t, ts: ts + 500, dur: 1000 });
    }
  }
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

const { server, url } = await startServer();
const { browser, page } = await openPage(backend, url, { width: 1400, height: 900 });
if (input.startsWith('gen:')) await dropFile(page, 'gen.json', generated(Number(input.slice(4))));
else if (fs.statSync(input).isDirectory()) await page.setInputFiles('#folder-input', input);
else await page.setInputFiles('#file-input', input);
await waitReady(page, 2, 600_000);
await page.evaluate(() => {
  const v = window.weft.viewer; window.__draws = [];
  const fr = v.frame.bind(v);
  v.frame = () => { const t = performance.now(); const d = fr(); if (d) window.__draws.push(performance.now() - t); return d; };
});
const o = await stageOrigin(page);
const out = { backend, input, rows: (await page.evaluate(() => window.weft.viewer.view_state().row_count)) };
for (const compact of ['off', 'on']) {
  await page.evaluate((c) => { window.weft.viewer.configure('compact', c); window.weft.viewer.invalidate(); }, compact);
  await page.evaluate(() => { window.weft.viewer.zoom(800, 4, 300); window.weft.viewer.invalidate(); });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(() => { window.__draws = []; });
  await page.mouse.move(o.x + 700, o.y + 300);
  await page.mouse.down();
  for (let k = 0; k < 120; k++) {
    await page.mouse.move(o.x + 700 + 200 * Math.sin(k / 10), o.y + 300 + 60 * Math.sin(k / 17));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  }
  await page.mouse.up();
  const d = (await page.evaluate(() => window.__draws)).sort((a, b) => a - b);
  const q = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))];
  const st = await page.evaluate(() => window.weft.viewer.stats());
  out[compact === 'on' ? 'compact' : 'normal'] = { frames: d.length, median_ms: +q(0.5).toFixed(2), p95_ms: +q(0.95).toFixed(2), max_ms: +d[d.length - 1].toFixed(2), stats: st };
}
console.log(JSON.stringify(out));
await browser.close(); server.close();
