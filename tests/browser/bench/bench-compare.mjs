// Measurement (not a test) of comparing two runs on the page (issue #54, BENCHMARKS.md "Session 39: compare on
// the page"):
//   node tests/browser/bench/bench-compare.mjs [MB] [RUNS]
// Writes two Chrome traces of about MB MB each (default 100) under tests/out/bench-compare/ (the program of
// specs/compare.test.mjs, with more threads and iterations; in B one thread's compute takes twice as long), then
// in headless Chromium (WebGPU on SwiftShader), RUNS times (default 2) each, a fresh browser each time:
//   one: A chosen alone in the file input, time from its change event to A drawn (two frames after the load);
//   two: A and B chosen together (the path a drop of two files takes), time to both drawn, and to the
//        comparison's table shown;
// and the tab's memory after each (the renderer's VmRSS and VmHWM, as bench-store.mjs reads them, plus both
// pages' wasm memories and the workers' where the page can read them). Prints one JSON line per run and the best.
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from '../lib/harness.mjs';
import { withPage, tabMemory } from '../lib/bench.mjs';

const MB = Number(process.argv[2] || 100);
const RUNS = Number(process.argv[3] || 2);
const THREADS = 64;

function writeRun(file, slow) {
  // About 69 bytes an event; 2 events per iteration and thread.
  const iterations = Math.max(1, Math.round((MB * 1e6) / (THREADS * 2 * 69)));
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '{"traceEvents":[\n');
  let first = true;
  for (let t = 0; t < THREADS; t++) {
    const c = (t === 2 && slow ? 2000 : 1000), x = 50;
    const parts = [];
    for (let k = 0; k < iterations; k++) {
      const at = k * (c + x);
      parts.push(`{"name":"compute","ph":"X","pid":1,"tid":${t},"ts":${at},"dur":${c}}`);
      parts.push(`{"name":"exchange","ph":"X","pid":1,"tid":${t},"ts":${at + c},"dur":${x}}`);
    }
    fs.writeSync(fd, (first ? '' : ',\n') + parts.join(',\n'));
    first = false;
  }
  fs.writeSync(fd, '\n]}\n');
  fs.closeSync(fd);
}

const dir = path.join(outDir, 'bench-compare');
fs.mkdirSync(dir, { recursive: true });
const a = path.join(dir, 'a.json'), b = path.join(dir, 'b.json');
if (!fs.existsSync(a) || Math.abs(fs.statSync(a).size / 1e6 - MB) > MB * 0.1) { writeRun(a, false); writeRun(b, true); }
const sizes = [fs.statSync(a).size, fs.statSync(b).size].map((n) => Math.round(n / 1e5) / 10);

async function once(files) {
  return withPage((url) => url, async ({ page, problems }) => {
    // The page opens with its start-up sample shown: the files' load is the next one.
    await page.evaluate(() => {
      window.__loads = window.weft.loads;
      document.getElementById('file-input').addEventListener('change', () => { window.__t0 = performance.now(); }, { capture: true });
    });
    await page.setInputFiles('#file-input', files);
    const two = files.length === 2;
    const ms = await page.evaluate((two) => new Promise((resolve) => {
      const w = window.weft;
      const done = () => w.loads > window.__loads && (!two || (w.compare.bLoaded && w.compare.aLoaded));
      const check = () => {
        if (w.state === 'error') { resolve({ error: w.errors.slice(-1)[0] || 'error' }); return; }
        if (done()) requestAnimationFrame(() => requestAnimationFrame(() => resolve({ drawn: performance.now() - window.__t0 })));
        else requestAnimationFrame(check);
      };
      check();
    }), two);
    if (two) {
      await page.waitForFunction(() => window.weft.compare.comparison, null, { timeout: 600_000 });
      ms.table = await page.evaluate(() => performance.now() - window.__t0);
    }
    await page.waitForTimeout(1000);
    return { files: files.length, ...ms, ...tabMemory(), problems };
  });
}

const results = { one: [], two: [] };
for (let r = 0; r < RUNS; r++) {
  for (const [k, files] of [['one', [a]], ['two', [a, b]]]) {
    const x = await once(files);
    results[k].push(x);
    console.log(JSON.stringify({ run: r, ...x }));
  }
}
const best = (xs, key) => Math.min(...xs.map((x) => x[key]).filter(Number.isFinite));
const one = { drawn: best(results.one, 'drawn'), hwm: best(results.one, 'tabHwmMB'), rss: best(results.one, 'tabRssMB') };
const two = { drawn: best(results.two, 'drawn'), table: best(results.two, 'table'), hwm: best(results.two, 'tabHwmMB'), rss: best(results.two, 'tabRssMB') };
console.log(JSON.stringify({ sizesMB: sizes, one, two, drawnRatio: two.drawn / one.drawn, hwmRatio: two.hwm / one.hwm, rssRatio: two.rss / one.rss }));
