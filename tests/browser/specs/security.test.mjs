// Trace content is data, never code: names that look like markup or script links are shown as text, the page
// carries a Content-Security-Policy, and nothing is fetched when a local file is opened. Bidi overrides and
// invisible characters in names show as markers, isolated from the text around them; the header tells data
// left out from repairs. The policy's connect-src is narrowed at start to the page's origin and the one
// `?trace=` names, in the page and in the reader worker; the server sends the policy as headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, openPage, waitReady, dropFile, viewState, stageOrigin } from '../lib/harness.mjs';
import { FRAME_ANCESTORS } from '../../../scripts/serve.mjs';
import { gridTrace } from '../lib/fixtures.mjs';

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

const TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J';
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

test('bidi overrides and invisible characters show as markers; the header tells data left out from repairs', { timeout: 120_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    const events = [
      { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: '\u202Edaerht' } },
      { ph: 'X', name: '\u202Egnp.exe', pid: 1, tid: 1, ts: 0, dur: 1000 },
      { ph: 'X', name: `${TITLE}title`, pid: 1, tid: 1, ts: 100, dur: 300 },
      { ph: 'X', name: `${CLEAR}zero\u200Bwidth`, pid: 1, tid: 1, ts: 500, dur: 300 },
      { ph: 'E', name: '\u202Eyarts', pid: 1, tid: 2, ts: 5 },
      { ph: 'B', name: 'open', pid: 1, tid: 2, ts: 100 },
      { ph: 'X', name: 'tail', pid: 1, tid: 2, ts: 900, dur: 100 },
    ];
    await dropFile(page, '\u202Egnp.exe', Buffer.from(JSON.stringify(events)));
    await waitReady(page, 2);
    assert.equal(await page.textContent('#file-name'), '\\u{202e}gnp.exe', 'the override is shown, not obeyed');
    assert.equal(await page.$eval('#file-name', (e) => getComputedStyle(e).unicodeBidi), 'isolate');

    // Canvas labels come from the scene, as does the SVG export: markers, no raw override.
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.ok(svg.includes('\\u{202e}daerht'), 'row label');
    assert.ok(svg.includes('\\u{202e}gnp.exe'), 'interval label');
    assert.doesNotMatch(svg, HIDDEN);

    const st = await viewState(page);
    const origin = await stageOrigin(page);
    await page.mouse.move(origin.x + st.track_x0 + (st.width - st.track_x0) * 0.05, origin.y + st.rows[0].y + st.lane_px / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    const tip = await page.textContent('#tooltip');
    assert.ok(tip.includes('\\u{202e}gnp.exe'), tip);
    assert.doesNotMatch(tip, HIDDEN);

    // The header: one end without a begin was left out, one begin never ended was closed (a repair).
    assert.equal(await page.textContent('#warnings'), '1 left out · 1 repaired');
    assert.doesNotMatch(await page.textContent('#summary'), /warning/);
    await page.click('#warnings');
    await page.waitForSelector('#warnings-panel:popover-open');
    const panel = await page.$eval('#warnings-panel', (p) => [...p.querySelectorAll('ul.warning-kinds > li')].map((li) => ({
      effect: li.parentElement.classList.contains('left_out') ? 'left_out' : 'repaired', kind: li.dataset.kind,
      count: li.querySelector('.count').textContent, meaning: li.querySelector('.meaning').textContent,
      examples: [...li.querySelectorAll('.examples bdi')].map((b) => b.textContent),
    })));
    assert.deepEqual(panel.map((g) => [g.effect, g.kind, g.count]), [['left_out', 'unmatched_end', '1'], ['repaired', 'unclosed_begin', '1']]);
    assert.ok(panel.every((g) => g.meaning.length > 10 && g.examples.length === 1), JSON.stringify(panel));
    assert.ok(panel[0].examples[0].includes('\\u{202e}yarts'), panel[0].examples[0]);
    assert.doesNotMatch(await page.textContent('#warnings-panel'), HIDDEN);
    await page.keyboard.press('Escape');

    // An error names the file with the same markers.
    await dropFile(page, '\u202Enosj.json', Buffer.from('[{"ph":"X",'));
    await page.waitForFunction(() => window.weft.errors.length > 0, null, { timeout: 60_000 });
    const error = await page.textContent('#error-text');
    assert.ok(error.includes('\\u{202e}nosj.json'), error);
    assert.doesNotMatch(error, HIDDEN);

    // A file without warnings hides the button.
    await dropFile(page, 'clean.json', Buffer.from(JSON.stringify([{ ph: 'X', name: 'a', pid: 1, tid: 1, ts: 0, dur: 10 }])));
    await waitReady(page, 3);
    assert.equal(await page.$eval('#warnings', (b) => b.hidden), true);
    assert.deepEqual(problems.filter((p) => !/nosj\.json/.test(p)), []);
  } finally {
    await browser.close();
    server.close();
  }
});

/** A local server for traces with CORS that counts the requests it gets. */
function traceServer(body) {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(body);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, hits, base: `http://127.0.0.1:${server.address().port}` })));
}

test('connect-src allows only the page and the ?trace= origin, in the page and in the worker; headers', { timeout: 180_000 }, async () => {
  const grid = gridTrace();
  const named = await traceServer(grid.bytes);
  const other = await traceServer(grid.bytes);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}?trace=${encodeURIComponent(`${named.base}/grid.json`)}`);
  try {
    // The server sends the page's own policy as a header, with frame-ancestors, and nosniff.
    const res = await fetch(url);
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.equal(res.headers.get('content-security-policy'), `${meta.replace(/;\s*$/, '')}; frame-ancestors ${FRAME_ANCESTORS}`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.match(meta, /worker-src 'self' blob:/);

    // ?trace= from a second local server opens.
    assert.equal(await page.evaluate(() => window.weft.state), 'ready', await page.textContent('#error-text'));
    assert.equal(await page.textContent('#file-name'), 'grid.json');
    assert.equal(named.hits.length, 1);
    const narrowed = await page.getAttribute('meta[data-weft="connect"]', 'content');
    assert.equal(narrowed, `connect-src 'self' ${named.base}`);

    // The page may fetch from itself and the named origin, not from a third one.
    const tryFetch = (u) => page.evaluate((x) => fetch(x).then(() => 'ok', (e) => `blocked: ${e}`), u);
    assert.equal(await tryFetch(`${named.base}/again.json`), 'ok');
    assert.equal(await tryFetch(`${url}index.html`), 'ok');
    assert.match(await tryFetch(`${other.base}/leak?x=1`), /^blocked/);
    // So may the reader worker, which fetches traces itself.
    const loadsBefore = await page.evaluate(() => window.weft.loads);
    await page.evaluate((u) => window.weft.openUrlDirect(u), `${other.base}/grid.json`);
    await page.waitForFunction(() => window.weft.state !== 'loading', null, { timeout: 60_000 });
    assert.deepEqual(other.hits, [], 'no request reached the third origin');
    assert.equal(await page.evaluate(() => window.weft.loads), loadsBefore);
    assert.match(await page.textContent('#error-text'), /Could not open/);

    // Asking for a trace of another origin through the address reopens the page with that origin allowed.
    const reloaded = page.waitForEvent('load', { timeout: 60_000 });
    await page.evaluate((u) => { location.hash = `trace=${encodeURIComponent(u)}`; }, `${other.base}/grid.json`);
    await reloaded;
    await page.waitForFunction((b) => document.querySelector('meta[data-weft="connect"]').content === `connect-src 'self' ${b}`
      && window.weft && window.weft.state === 'ready', other.base, { timeout: 60_000 });
    assert.equal(other.hits.length, 1, 'the new page fetched it');
    assert.equal(await page.textContent('#file-name'), 'grid.json');
    assert.ok(new URL(page.url()).search === '', 'the ?trace= of the first address is gone');
    assert.deepEqual(problems.filter((p) => !/Content Security Policy|Failed to fetch|ERR_BLOCKED|Refused to connect/.test(p)), []);
  } finally {
    await browser.close();
    server.close();
    named.server.close();
    other.server.close();
  }
});
