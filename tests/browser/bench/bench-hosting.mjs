// Hosting figures (not a test): the static build served from a sub-path in headless chromium (WebGPU on
// SwiftShader). Times the first visit to a drawn sample and to "available offline", then a reload with the
// server stopped, and a ?trace= download of a generated Chrome trace of SIZE_MB from a CORS server.
// Usage: WEFT_SKIP_WASM=1 scripts/build-static.sh tests/out/static && node tests/browser/bench/bench-hosting.mjs [SIZE_MB]
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { outDir, BACKENDS, waitReady } from '../lib/harness.mjs';
import { serve } from '../../../scripts/serve.mjs';

const sizeMb = Number(process.argv[2] || 50);
const dist = path.join(outDir, 'static');
const server = await serve({ root: dist, prefix: '/sub' });
const url = `http://127.0.0.1:${server.address().port}/sub/`;

// A Chrome trace of about sizeMb: 8 threads of back-to-back intervals.
const parts = ['{"traceEvents":['];
let bytes = 0, i = 0;
while (bytes < sizeMb * 1e6) {
  const s = `{"ph":"X","name":"r${i % 50}","pid":1,"tid":${i % 8},"ts":${Math.floor(i / 8) * 10},"dur":9},`;
  parts.push(s);
  bytes += s.length;
  i++;
}
parts.push('{"ph":"X","name":"end","pid":1,"tid":0,"ts":0,"dur":1}]}');
const body = Buffer.from(parts.join(''));
const traces = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, 'access-control-allow-origin': '*' });
  res.end(body);
});
await new Promise((ok) => traces.listen(0, '127.0.0.1', ok));

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgpu.args });
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
let t = performance.now();
await page.goto(url);
await waitReady(page, 1);
const firstDrawn = performance.now() - t;
await page.waitForFunction(() => window.weft.offline === true, null, { timeout: 120_000 });
const offlineReady = performance.now() - t;
server.closeAllConnections();
server.close();
t = performance.now();
await page.reload();
await waitReady(page, 1);
const offlineReload = performance.now() - t;
const traceUrl = `http://127.0.0.1:${traces.address().port}/big.json`;
t = performance.now();
await page.goto(`${url}?trace=${encodeURIComponent(traceUrl)}`).catch(() => {});
await waitReady(page, 1, 300_000);
const traceOpen = performance.now() - t;
const summary = await page.textContent('#summary');
console.log(JSON.stringify({
  first_visit_drawn_ms: Math.round(firstDrawn), available_offline_ms: Math.round(offlineReady),
  offline_reload_drawn_ms: Math.round(offlineReload), trace_url_mb: +(body.length / 1e6).toFixed(1),
  trace_url_open_ms: Math.round(traceOpen), summary,
}));
await browser.close();
traces.close();
