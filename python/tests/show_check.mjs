// The page `weft.serve` serves, in headless chromium (python/tests/test_show.py runs it): opens URL with the
// browser tests' harness (tests/browser/lib/harness.mjs: Debian's chromium, playwright-core from
// tests/browser/node_modules), waits until the trace (or the store's first view) is drawn, and prints one line
// of JSON: the page's state, file name, rows, drawn marks, errors, the screenshot's distinct colours.
// Usage: node python/tests/show_check.mjs URL SHOT-NAME
import { openPage, waitReady, viewState, screenshot } from '../../tests/browser/lib/harness.mjs';

const [url, shot] = process.argv.slice(2);
const { browser, page, problems } = await openPage('webgpu', url);
try {
  await waitReady(page, 1);
  const isStore = new URL(url).searchParams.has('store');
  if (isStore) {
    await page.waitForFunction(() => window.weft.state === 'error' || (window.weft.store && window.weft.store.answers >= 1),
      null, { timeout: 60_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  const state = await page.evaluate(() => window.weft.state);
  const st = state === 'ready' ? await viewState(page) : null;
  const stats = state === 'ready' ? await page.evaluate(() => window.weft.viewer.stats()) : null;
  const img = await screenshot(page, shot);
  const colours = new Set();
  for (let y = 0; y < img.height; y += 7) {
    for (let x = 0; x < img.width; x += 7) { const [r, g, b] = img.pixel(x, y); colours.add((r << 16) | (g << 8) | b); }
  }
  console.log(JSON.stringify({
    state,
    error: state === 'ready' ? null : await page.textContent('#error-text'),
    file: await page.textContent('#file-name'),
    rows: st ? st.rows.length : 0,
    span_ns: st ? st.span_ns : null,
    store: st ? st.store || null : null,
    marks: stats ? stats.marks : 0,
    colours: colours.size,
    problems,
  }));
} finally {
  await browser.close();
}
