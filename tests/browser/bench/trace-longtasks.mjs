// What the main thread did in its long tasks while a trace loads and every view opens: a DevTools trace taken
// through playwright's CDP session, each task over 40 ms on the renderer's main thread printed with what ran
// inside it (BENCHMARKS.md "The 59-63 ms task with no engine call"). Not a test.
//   node tests/browser/bench/trace-longtasks.mjs [FILE_OR_FOLDER]   (default: the 32-rank OTF2 stencil in ../shared)
import { startServer, openPage, waitReady, repoRoot } from '../lib/harness.mjs';
import path from 'node:path';
import fs from 'node:fs';
const { server, url } = await startServer();
const { browser, page } = await openPage('webgpu', url);
const cdp = await page.context().newCDPSession(page);
const events = [];
cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8,v8.execute,blink,toplevel,gpu,disabled-by-default-v8.compile', transferMode: 'ReportEvents' });
const input = path.resolve(process.argv[2] || path.join(repoRoot, '../shared/traces/otf2/tracer-stencil4d-mpi-32'));
await page.setInputFiles(fs.statSync(input).isDirectory() ? '#folder-input' : '#file-input', input);
await waitReady(page, 2, 180000);
await new Promise((r) => setTimeout(r, 1200));
for (const v of await page.evaluate(() => window.weft.viewer.views())) {
  await page.click(`button[data-view="${v}"]`);
  await page.waitForFunction((v) => window.weft.viewer.view() === v, v, { timeout: 60000 });
  await new Promise((r) => setTimeout(r, 400));
}
await cdp.send('Tracing.end');
await done;
// main thread of the renderer
const names = events.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
const mains = new Set(names.map((e) => `${e.pid}:${e.tid}`));
const main = events.filter((e) => mains.has(`${e.pid}:${e.tid}`) && e.ph === 'X');
const tasks = main.filter((e) => e.name === 'RunTask' && e.dur > 40000);
for (const t of tasks) {
  console.log(`TASK ${(t.dur / 1000).toFixed(1)} ms at ${t.ts}`);
  const kids = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 2000)
    .sort((a, b) => a.ts - b.ts);
  for (const k of kids.slice(0, 40)) console.log(`   +${((k.ts - t.ts) / 1000).toFixed(1)} ${(k.dur / 1000).toFixed(1)} ms ${k.name} ${JSON.stringify(k.args?.data || k.args || {}).slice(0, 200)}`);
}
await browser.close();
server.close();
