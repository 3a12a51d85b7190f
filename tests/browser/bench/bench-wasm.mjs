// Runs an in-browser benchmark in headless chromium and prints its result. Not a test; see BENCHMARKS.md.
//   node tests/browser/bench/bench-wasm.mjs import FILE.json [runs]
//   node tests/browser/bench/bench-wasm.mjs phases FILE [runs]       read whole, summary, moments, encode: each timed
//   node tests/browser/bench/bench-wasm.mjs otf2 ARCHIVE.tar [runs]
//   node tests/browser/bench/bench-wasm.mjs moments [runs]
//   node tests/browser/bench/bench-wasm.mjs execgraph [runs]
//   node tests/browser/bench/bench-wasm.mjs grains [PROFILE] [runs]   (no PROFILE: a generated 176,000-node graph)
//   node tests/browser/bench/bench-wasm.mjs aggregate [runs]          aggregation, four phases, 176,000 nodes
//   node tests/browser/bench/bench-wasm.mjs particles                 particle animation frame (16,384 processes)
//   node tests/browser/bench/bench-wasm.mjs frames [webgpu|webgl]   frame times of the real page, 16,384 locations
//   node tests/browser/bench/bench-wasm.mjs hpctoolkit|projections [MB] [runs]   the reader on about MB generated in wasm
// FILE must lie inside the repository (e.g. tests/out/), which the local server serves.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, repoRoot, BACKENDS } from '../lib/harness.mjs';

const [bench, ...rest] = process.argv.slice(2);
if (bench === 'frames') {
  await frames(rest[0] || 'webgpu');
  process.exit(0);
}
const needsFile = bench === 'import' || bench === 'phases' || bench === 'otf2' || (bench === 'grains' && rest.length && !/^\d+$/.test(rest[0]));
const file = needsFile ? path.resolve(rest.shift() || '') : null;
const folderFormat = bench === 'hpctoolkit' || bench === 'projections';
const mb = folderFormat ? rest.shift() || '100' : null;
const runs = rest[0] || '3';
if (!['import', 'phases', 'otf2', 'moments', 'execgraph', 'grains', 'particles', 'aggregate', 'hpctoolkit', 'projections'].includes(bench) || (needsFile && !file.startsWith(repoRoot + path.sep))) {
  console.error('usage: bench-wasm.mjs import|otf2 FILE-inside-the-repo [runs] | moments|execgraph [runs]');
  process.exit(2);
}
const { server, url } = await startServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgl.args });
try {
  const page = await browser.newPage();
  const trace = file ? `&trace=/${path.relative(repoRoot, file).split(path.sep).join('/')}` : '';
  const size = mb ? `&mb=${mb}` : '';
  await page.goto(`${url}tests/browser/bench/bench.html?bench=${bench}&runs=${runs}${trace}${size}`);
  await page.waitForFunction(() => window.result, null, { timeout: 600_000 });
  const r = await page.evaluate(() => window.result);
  if (r.error) throw new Error(r.error);
  console.log(`${bench} in wasm (chromium ${browser.version()}):`, JSON.stringify(r));
} finally {
  await browser.close();
  server.close();
}

/** 16,384 threads x 60 intervals (30 solve phases, each followed by an MPI call), as Chrome JSON. */
function wideTrace(file) {
  if (fs.existsSync(file) && fs.statSync(file).size > 0) return;
  let seed = 12345;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const parts = [];
  for (let l = 0; l < 16384; l++) {
    let t = rnd(5);
    for (let ph = 0; ph < 30; ph++) {
      const work = 20 + rnd(40) + ((l * ph) % 30);
      const comm = 5 + rnd(60);
      parts.push(`{"ph":"X","name":"solve","pid":${l >> 2},"tid":${l & 3},"ts":${t},"dur":${work}}`);
      parts.push(`{"ph":"X","name":"${['MPI_Allreduce', 'MPI_Waitall', 'MPI_Send'][ph % 3]}","pid":${l >> 2},"tid":${l & 3},"ts":${t + work},"dur":${comm}}`);
      t += work + comm;
    }
  }
  fs.writeFileSync(file, `[${parts.join(',\n')}]`);
}

async function frames(backend) {
  const { openPage, waitReady, outDir } = await import('../lib/harness.mjs');
  const file = path.join(outDir, 'wide16k.json');
  wideTrace(file);
  const { server, url } = await startServer();
  const { browser, page } = await openPage(backend, url);
  try {
    await page.setInputFiles('#file-input', file);
    await waitReady(page, 2, 600_000);
    const measure = (view) => page.evaluate(async (view) => {
      window.weft.viewer.set_view(view);
      const times = [];
      for (let i = 0; i < 15; i++) {
        window.weft.viewer.invalidate();
        const t0 = performance.now();
        window.weft.viewer.frame();
        times.push(performance.now() - t0);
        await new Promise((r) => requestAnimationFrame(r));
      }
      times.sort((a, b) => a - b);
      return { view, median_ms: times[7], min_ms: times[0], stats: window.weft.viewer.stats() };
    }, view);
    for (const view of ['timeline', 'moments']) console.log(`frame (${backend}, chromium ${browser.version()}, software rendering):`, JSON.stringify(await measure(view)));
  } finally {
    await browser.close();
    server.close();
  }
}
