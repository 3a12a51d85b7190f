// Chrome JSON import speed in wasm, in headless chromium. Not a test: run by hand, see BENCHMARKS.md.
//   node tests/browser/bench-import.mjs FILE.json [runs]
// FILE must lie inside the repository (e.g. tests/out/), which the local server serves.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, repoRoot, BACKENDS } from './harness.mjs';

const file = path.resolve(process.argv[2] || '');
const runs = process.argv[3] || '3';
if (!file.startsWith(repoRoot + path.sep)) { console.error('usage: bench-import.mjs FILE-inside-the-repo [runs]'); process.exit(2); }
const { server, url } = await startServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgl.args });
try {
  const page = await browser.newPage();
  const rel = path.relative(repoRoot, file).split(path.sep).join('/');
  await page.goto(`${url}tests/browser/bench.html?trace=/${rel}&runs=${runs}`);
  await page.waitForFunction(() => window.result, null, { timeout: 600_000 });
  const r = await page.evaluate(() => window.result);
  if (r.error) throw new Error(r.error);
  console.log(`wasm (chromium ${browser.version()}): ${(r.bytes / 1e6).toFixed(1)} MB, best of ${r.runs.length}: ${r.best_ms.toFixed(0)} ms = ${r.mb_per_s.toFixed(1)} MB/s (runs: ${r.runs.map((t) => t.toFixed(0)).join(', ')} ms; model ${(r.model_bytes / 1e6).toFixed(1)} MB)`);
} finally {
  await browser.close();
  server.close();
}
