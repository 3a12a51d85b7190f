import { startServer, openPage, waitReady, screenshot, viewState } from './lib/harness.mjs';
const dir = process.argv[2];
const { server, url } = await startServer();
const { browser, page, problems } = await openPage(process.argv[3] || 'webgpu', url, { width: 1500, height: 950 });
try {
  await page.setInputFiles('#folder-input', dir);
  await waitReady(page, 2);
  await page.click('#diagnosis-toggle');
  await page.waitForFunction(() => (window.weft.diagnoses || 0) > 0, null, { timeout: 120000 });
  const d = await page.evaluate(() => window.weft.viewer.diagnosis_lists(-1, -1));
  console.log(JSON.stringify({ total: d.total_wait_ns, patterns: d.patterns.map((p) => [p.key, p.ns]), regions: d.regions.length, locations: d.locations.length }));
  await screenshot(page, 'smoke-diag-1');
  await page.click('#diagnosis-patterns tbody tr[data-id]');
  await page.click('#diagnosis-locations tbody tr[data-id]');
  await page.waitForTimeout(300);
  console.log(JSON.stringify(await page.evaluate(() => window.weft.viewer.diagnosis_selected_wait())));
  await screenshot(page, 'smoke-diag-2');
  await page.evaluate(() => window.weft.viewer.fit());
  await page.check('#diagnosis-path');
  await page.waitForTimeout(300);
  await screenshot(page, 'smoke-diag-3');
  console.log('problems', problems);
} finally { await browser.close(); server.close(); }
