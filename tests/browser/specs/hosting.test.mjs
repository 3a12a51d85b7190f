// Hosting: the static build served from a sub-path opens a sample and then works offline (service worker);
// `?trace=` downloads a trace from another local server with progress, and a server without CORS gives a
// message that says what to do; permalinks round-trip; the view switcher keeps the time range; the exported
// SVG parses; themes follow the system and reach the canvas; the shortcut overlay and recent files work.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { repoRoot, outDir, openPage, waitReady, screenshot, viewState, BACKENDS } from '../lib/harness.mjs';
import { serve } from '../../../scripts/serve.mjs';
import { gridTrace } from '../lib/fixtures.mjs';

const dist = path.join(outDir, 'static');
const PREFIX = '/docs/weft';

before(() => {
  execFileSync(path.join(repoRoot, 'scripts/build-static.sh'), [dist], { env: { ...process.env, WEFT_SKIP_WASM: '1' }, stdio: 'pipe' });
});

/** A server for trace files: with `cors` it sends Access-Control-Allow-Origin; bodies go out in slow pieces. */
function traceServer(files, { cors }) {
  const server = http.createServer((req, res) => {
    const body = files[new URL(req.url, 'http://x').pathname];
    const allow = cors ? { 'access-control-allow-origin': '*' } : {};
    if (!body) { res.writeHead(404, allow).end('not found'); return; }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, ...allow });
    let at = 0;
    const step = Math.ceil(body.length / 8);
    const next = () => {
      if (at >= body.length) { res.end(); return; }
      res.write(body.subarray(at, at + step));
      at += step;
      setTimeout(next, 40);
    };
    next();
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, base: `http://127.0.0.1:${server.address().port}` })));
}

async function staticServer() {
  const server = await serve({ root: dist, prefix: PREFIX });
  return { server, url: `http://127.0.0.1:${server.address().port}${PREFIX}/` };
}

function stop(server) {
  server.closeAllConnections();
  return new Promise((ok) => server.close(ok));
}

const frames = (page, n = 2) => page.evaluate((k) => new Promise((r) => {
  const step = (i) => (i ? requestAnimationFrame(() => step(i - 1)) : r());
  step(k);
}), n);

test('the static build opens from a sub-path, then again offline with the server stopped', { timeout: 180_000 }, async () => {
  const index = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  assert.doesNotMatch(index, /(src|href)="\//, 'only relative URLs');
  const { server, url } = await staticServer();
  const { browser, page, problems, requests } = await openPage('webgpu', url);
  try {
    assert.equal(await page.evaluate(() => window.weft.state), 'ready');
    assert.match(await page.textContent('#file-name'), /sample/);
    const local = requests.filter((u) => u.startsWith('http://127.0.0.1'));
    assert.ok(local.length > 0 && local.every((u) => new URL(u).pathname.startsWith(`${PREFIX}/`)), `all under ${PREFIX}: ${local}`);
    await page.waitForFunction(() => window.weft.offline === true, null, { timeout: 60_000 });
    assert.equal(await page.textContent('#offline'), 'available offline');
    await stop(server);
    await page.reload();
    await waitReady(page, 1);
    assert.equal(await page.evaluate(() => window.weft.state), 'ready', 'the page runs with the server stopped');
    assert.ok((await page.evaluate(() => window.weft.viewer.view_state())).rows.length > 0);
    assert.equal(await page.textContent('#offline'), 'available offline');
    const shot = await screenshot(page, 'hosting-offline');
    assert.ok(shot.width > 0);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    if (server.listening) await stop(server);
  }
});

test('?trace= and #trace= download with progress; a server without CORS gets a message that says what to do', { timeout: 180_000 }, async () => {
  const grid = gridTrace();
  const big = Buffer.concat([grid.bytes.subarray(0, grid.bytes.length - 2), Buffer.from(`,${' '.repeat(3 << 20)}]}`)]);
  const withCors = await traceServer({ '/runs/grid.json': big }, { cors: true });
  const noCors = await traceServer({ '/grid.json': grid.bytes }, { cors: false });
  const { server, url } = await staticServer();
  const trace = `${withCors.base}/runs/grid.json`;
  const { browser, page, problems } = await openPage('webgpu', `${url}?trace=${encodeURIComponent(trace)}`);
  try {
    assert.equal(await page.evaluate(() => window.weft.state), 'ready', await page.textContent('#error-text'));
    assert.equal(await page.textContent('#file-name'), 'grid.json');
    assert.equal((await viewState(page)).rows.length, 6, '3 processes x 2 threads');
    // Progress was shown while downloading (the server sends 8 slow pieces).
    await page.evaluate((t) => {
      window.seen = [];
      new MutationObserver(() => window.seen.push(document.getElementById('progress-text').textContent))
        .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true });
      location.hash = `trace=${encodeURIComponent(t)}&view=moments`;
    }, `${trace}?again`);
    await waitReady(page, 2);
    const seen = await page.evaluate(() => window.seen);
    assert.ok(seen.some((s) => /^downloading \d/.test(s)), `progress while downloading: ${seen}`);
    assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'moments', '#trace= with a view');

    const blocked = `${noCors.base}/grid.json`;
    await page.goto(`${url}#trace=${encodeURIComponent(blocked)}`);
    await page.waitForFunction(() => window.weft.state === 'error' || window.weft.errors.length > 0, null, { timeout: 60_000 });
    const message = await page.textContent('#error-text');
    assert.ok(message.includes(blocked), message);
    assert.match(message, /Access-Control-Allow-Origin/);
    assert.match(message, /download it and drop it/);
    await page.goto(`${url}?trace=${encodeURIComponent(`${withCors.base}/missing.json`)}`);
    await page.waitForFunction(() => window.weft.errors.length > 0, null, { timeout: 60_000 });
    assert.match(await page.textContent('#error-text'), /404/);
    // The browser itself reports the blocked and missing fetches; nothing else may go wrong.
    assert.deepEqual(problems.filter((p) => !/CORS|Failed to load resource|ERR_FAILED/.test(p)), []);
  } finally {
    await browser.close();
    await stop(server);
    await stop(withCors.server);
    await stop(noCors.server);
  }
});

test('permalinks round-trip; the view switcher keeps the time range; SVG export parses', { timeout: 180_000 }, async () => {
  const { server, url } = await staticServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}#sample=timeline`);
  try {
    // Zoom the timeline, then switch: the moments view shows the same time range.
    await page.keyboard.press('w');
    await page.keyboard.press('w');
    await page.keyboard.press('d');
    const tl = await viewState(page);
    await page.click('#views button[data-view="moments"]');
    await frames(page);
    const mo = await viewState(page);
    assert.equal(mo.view, 'moments');
    assert.ok(Math.abs(mo.t0_ns - tl.t0_ns) < 1e-6 * tl.span_ns && Math.abs(mo.t1_ns - tl.t1_ns) < 1e-6 * tl.span_ns, 'time range kept');
    await page.selectOption('#view-options select >> nth=1', 'm2');
    await page.mouse.move(300, 300);
    await page.mouse.wheel(0, 120);
    await page.waitForFunction(() => /sort=m2/.test(location.hash));
    await page.waitForFunction((t0) => !location.hash.includes(`t0=${t0}`), String(mo.t0_ns));
    await page.waitForTimeout(400);
    const want = await viewState(page);
    const link = await page.evaluate(() => location.href);
    assert.match(link, /#sample=timeline&view=moments&/);

    const copied = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await copied.goto(link);
    await waitReady(copied, 1);
    await frames(copied);
    const got = await viewState(copied);
    assert.equal(got.view, 'moments');
    assert.equal(got.sort, 'm2');
    for (const k of ['t0_ns', 't1_ns', 'first_row', 'row_height_px']) {
      assert.ok(Math.abs(got[k] - want[k]) <= 1e-6 * Math.max(1, Math.abs(want[k])), `${k}: ${got[k]} vs ${want[k]}`);
    }
    await copied.close();


    // Export: the download is an SVG that parses, with the view's rectangles and its location names.
    const [download] = await Promise.all([page.waitForEvent('download'), page.selectOption('#export', 'svg')]);
    const file = path.join(outDir, 'hosting-export.svg');
    await download.saveAs(file);
    const svg = fs.readFileSync(file, 'utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const root = doc.documentElement;
      return {
        error: doc.querySelector('parsererror') ? doc.querySelector('parsererror').textContent : null,
        root: root.localName, ns: root.namespaceURI,
        rects: doc.querySelectorAll('rect').length, texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      };
    }, svg);
    assert.equal(parsed.error, null);
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.ns, 'http://www.w3.org/2000/svg');
    assert.ok(parsed.rects > want.rows.length, `${parsed.rects} rects`);
    // Row labels are the locations' names, cut to fit (keeping the rank and thread: scene::row_names), each
    // piece of the label in its row's name, in order.
    const named = parsed.texts.filter((t) => t.startsWith('Rank '));
    assert.ok(named.length >= 8, `${named.length} row labels`);
    const pieces = (t) => t.split(/…| \/ /).map((x) => x.trim()).filter(Boolean);
    const within = (t, name) => { let at = 0; for (const x of pieces(t)) { const i = name.indexOf(x, at); if (i < 0) return false; at = i + x.length; } return true; };
    for (const t of named) assert.ok(want.rows.some((r) => within(t, r.name)), `label ${t} names a row`);

    // The grain graph: problem view, viewport and the selected grain come back too.
    await page.selectOption('#samples', 'grains');
    await waitReady(page, 2);
    await page.evaluate(() => { window.weft.grainPanel.select(3, true); window.weft.permalink.write(); });
    const grainLink = await page.evaluate(() => location.href);
    assert.match(grainLink, /#sample=grains&view=grains&.*sel=3/);
    const g = await viewState(page);
    const again = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await again.goto(grainLink);
    await waitReady(again, 1);
    const g2 = await viewState(again);
    assert.equal(await again.evaluate(() => window.weft.viewer.selected_grain()), 3);
    assert.equal(await again.getAttribute('#grain-properties', 'data-task'), String(g.selected.task), 'the panel shows it');
    for (const k of ['x0', 'y0', 'scale']) assert.ok(Math.abs(g2.viewport[k] - g.viewport[k]) <= 1e-4 * Math.max(1, Math.abs(g.viewport[k])), `${k}: ${JSON.stringify([g.viewport, g2.viewport])}`);
    await again.close();

    // The aggregated view: method, problem view, open groups and the selected group come back.
    await page.click('button[data-view="aggregate"]');
    await page.evaluate(() => {
      const v = window.weft.viewer;
      v.configure('method', 'family');
      v.configure('drill_depth', '2');
      const st = v.view_state();
      const closed = st.nodes.find((n) => n.grain === null && !n.open);
      v.configure('open', String(closed.id));
      v.configure('select', String(closed.id));
      window.weft.permalink.write();
    });
    const a = await viewState(page);
    const aggLink = await page.evaluate(() => location.href);
    assert.match(aggLink, /view=aggregate&.*method=family&.*open=\d+/);
    const third = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await third.goto(aggLink);
    await waitReady(third, 1);
    await third.waitForFunction(() => window.weft.viewer.view_state().view === 'aggregate');
    const a2 = await third.evaluate(() => window.weft.viewer.view_state());
    assert.equal(a2.method, 'family');
    assert.deepEqual(a2.open, a.open, 'the same groups are open');
    assert.equal(a2.visible, a.visible);
    assert.equal(a2.selected && a2.selected.id, a.selected.id, 'the same group is selected');
    await third.close();
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await stop(server);
  }
});

test('themes follow the system and reach the canvas; shortcut overlay; recent files', { timeout: 180_000 }, async () => {
  const { server, url } = await staticServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    const corner = async (name) => {
      const shot = await screenshot(page, name);
      const st = await viewState(page);
      const r = await page.evaluate(() => document.getElementById('stage').getBoundingClientRect().toJSON());
      // Below the last row and above the overview strip: the view's background, the renderer's clear colour.
      const bottom = st.overview ? st.overview.y : r.height;
      const y = Math.round(r.top + Math.min(bottom - 4, st.rows.at(-1).y + 120));
      return shot.pixel(Math.round(r.left + r.width - 8), y);
    };
    await page.emulateMedia({ colorScheme: 'light' });
    await frames(page);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    const lightPx = await corner('hosting-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await frames(page);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const darkPx = await corner('hosting-dark');
    assert.ok(lightPx.slice(0, 3).every((c) => c > 230), `light background ${lightPx}`);
    assert.ok(darkPx.slice(0, 3).every((c) => c < 40), `dark background ${darkPx}`);
    assert.match(await page.evaluate(() => window.weft.viewer.export_svg()), /<rect width="100%" height="100%" fill="#171717"/, "the export follows the theme");
    // The toggle overrides the system, and sticks.
    await page.click('#theme');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    assert.equal(await page.evaluate(() => localStorage.getItem('weft-theme')), 'light');

    await page.keyboard.press('?');
    assert.ok(await page.isVisible('#shortcuts'));
    assert.match(await page.textContent('#shortcuts'), /fit/);
    await page.keyboard.press('Escape');
    assert.ok(!(await page.isVisible('#shortcuts')));

    await page.selectOption('#samples', 'rsa');
    await waitReady(page, 2);
    const recent = await page.evaluate(() => JSON.parse(localStorage.getItem('weft-recent')));
    assert.deepEqual(recent.map((e) => e.name), ['sample: RSA workers (13 threads)', 'sample: MPI + threads']);
    assert.ok(recent.every((e) => Object.keys(e).every((k) => k === 'name' || k === 'sample')), 'names only');
    await page.selectOption('#recent', '1');
    await waitReady(page, 3);
    assert.equal(await page.textContent('#file-name'), 'sample: MPI + threads');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await stop(server);
  }
});

/** Wait until the viewer inside `frame` has loaded (or failed). */
async function frameReady(frame) {
  await frame.waitForFunction(() => window.weft && (window.weft.loads >= 1 || window.weft.state === 'error'), null, { timeout: 60_000 });
  await frames(frame);
  return frame.evaluate(() => ({
    state: window.weft.state, errors: window.weft.errors, view: window.weft.viewer.view(), theme: window.weft.theme,
    bare: document.body.classList.contains('bare'), barShown: !!document.getElementById('bar').offsetParent,
    st: window.weft.viewer.view_state(), name: document.getElementById('file-name').textContent,
  }));
}

test('embed.js turns a div on another site into a viewer with its options; the example page works', { timeout: 180_000 }, async () => {
  const grid = gridTrace();
  const traces = await traceServer({ '/grid.json': grid.bytes }, { cors: true });
  const { server, url } = await staticServer();
  const hostDir = path.join(outDir, 'embed-host');
  fs.mkdirSync(hostDir, { recursive: true });
  const t0 = 150_000, t1 = 600_000;
  fs.writeFileSync(path.join(hostDir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>host</title>
<h1>Someone's documentation</h1>
<div id="a" data-weft-trace="${traces.base}/grid.json" data-weft-view="moments" data-weft-theme="dark"
     data-weft-range="${t0},${t1}" data-weft-locations="Rank 1 / *" data-weft-height="300px"></div>
<div id="b" data-weft-sample="fib" data-weft-view="execgraph" data-weft-chrome="show" data-weft-theme="light"></div>
<script src="${url}www/embed.js"></script>`);
  const host = await serve({ root: hostDir });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgpu.args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`http://127.0.0.1:${host.address().port}/`);
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 2);
    const srcA = await page.getAttribute('#a iframe', 'src');
    assert.ok(srcA.startsWith(url), srcA);
    const a = await frameReady(await (await page.$('#a iframe')).contentFrame());
    assert.equal(a.state, 'ready', a.errors.join('; '));
    assert.equal(a.name, 'grid.json');
    assert.equal(a.view, 'moments');
    assert.equal(a.theme, 'dark');
    assert.ok(a.bare && !a.barShown, 'the chrome is hidden');
    assert.equal(a.st.t0_ns, t0);
    assert.equal(a.st.t1_ns, t1);
    assert.deepEqual(a.st.rows.map((r) => r.name).sort(), ['Rank 1 / worker 1.0', 'Rank 1 / worker 1.1'], 'location filter');
    const b = await frameReady(await (await page.$('#b iframe')).contentFrame());
    assert.equal(b.view, 'execgraph');
    assert.equal(b.theme, 'light');
    assert.ok(!b.bare && b.barShown, 'data-weft-chrome="show" keeps the bars');
    await page.screenshot({ path: path.join(outDir, 'hosting-embed.png') });

    // The example page in the repository (shipped in the static build): every viewer on it opens.
    await page.goto(`${url}www/embed-example.html`);
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 3);
    const shown = [];
    for (const f of await page.$$('iframe')) shown.push(await frameReady(await f.contentFrame()));
    assert.deepEqual(shown.map((x) => x.view), ['moments', 'timeline', 'execgraph']);
    assert.deepEqual([shown[1].st.t0_ns, shown[1].st.t1_ns], [20e6, 60e6], 'the range option of a div without a view');
    await page.screenshot({ path: path.join(outDir, 'hosting-embed-example.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await stop(host);
    await stop(server);
    await stop(traces.server);
  }
});
