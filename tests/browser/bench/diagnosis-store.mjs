// The Diagnosis panel's first answer on a store indexed with --waits (issue #53): from the click on the
// Diagnosis toggle to its lists made (lists_made_ms; panel_ms from the panel's question to its lists) and to the frame after it (first_frame_after_ms: also
// what the page's main thread was busy with meanwhile, e.g. applying a viewport's answer). `node bench/diagnosis-store.mjs STORE_DIR [runs]`; one JSON line a run.
import path from 'node:path';
import { startServer, openPage, repoRoot } from '../lib/harness.mjs';

const store = path.resolve(process.argv[2]);
const runs = Number(process.argv[3] || 3);
const { server, url } = await startServer();
try {
  for (let k = 0; k < runs; k++) {
    const b = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, store)}/`, { width: 1500, height: 950 });
    try {
      await b.page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 300_000 });
      const t0 = await b.page.evaluate(() => performance.now());
      await b.page.click('#diagnosis-toggle');
      await b.page.waitForFunction(() => (window.weft.diagnoses || 0) >= 1 && !document.querySelector('#diagnosis-body').hidden, null, { timeout: 300_000 });
      const ms = await b.page.evaluate((t0) => new Promise((r) => requestAnimationFrame(() => r(performance.now() - t0))), t0);
      const listed = Math.round(await b.page.evaluate((t0) => window.weft.diagnosedAt - t0, t0));
      const panel = Math.round(await b.page.evaluate(() => window.weft.diagnosedAt - window.weft.diagnoseAskedAt));
      const lines = await b.page.$$eval('#diagnosis-locations tbody tr[data-id]', (r) => r.length);
      console.log(JSON.stringify({ store: path.basename(store), run: k, lists_made_ms: listed, panel_ms: panel, first_frame_after_ms: Math.round(ms), location_lines: lines }));
    } finally {
      await b.browser.close();
    }
  }
} finally {
  server.close();
}
