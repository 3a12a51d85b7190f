// Trace content is data, never code: names that look like markup or script links are shown as text, the page
// carries a Content-Security-Policy, and nothing is fetched when a local file is opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady, dropFile, viewState, stageOrigin } from './harness.mjs';

const EVIL = '<img src=x onerror="window.pwned=1">';
const LINK = 'javascript:window.pwned=2';

test('names from traces are only ever text', { timeout: 120_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems, requests } = await openPage('webgpu', url);
  try {
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
    const events = [
      { ph: 'M', name: 'process_name', pid: 1, tid: 1, args: { name: EVIL } },
      { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: LINK } },
      { ph: 'X', name: EVIL, cat: LINK, pid: 1, tid: 1, ts: 0, dur: 1000 },
    ];
    const before = requests.length;
    await dropFile(page, `${EVIL}.json`, Buffer.from(JSON.stringify(events)));
    await waitReady(page, 2);
    const st = await viewState(page);
    const origin = await stageOrigin(page);
    await page.mouse.move(origin.x + st.track_x0 + (st.width - st.track_x0) / 3, origin.y + st.rows[0].y + st.lane_px / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    assert.ok((await page.textContent('#tooltip')).includes(EVIL), 'the region name is shown literally');
    assert.ok((await page.textContent('#file-name')).includes(EVIL), 'the file name is shown literally');
    assert.equal(await page.evaluate(() => document.querySelectorAll('img, a[href^="javascript"]').length), 0);
    // The views' SVG export escapes names too.
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.ok(!svg.includes('<img'), 'no markup from the trace in the SVG');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.deepEqual(requests.slice(before).filter((u) => !u.startsWith('blob:') && !u.startsWith('data:')), []);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
