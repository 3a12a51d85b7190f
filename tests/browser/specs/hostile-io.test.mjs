// Hostile input in the page, kept cheap: a trap inside the session reading a file (a panic, memory running out,
// as a 950 MiB Paraver file did) is reported with the file's name and what happened, never as wasm-bindgen's
// "attempted to take ownership of Rust value while it was borrowed", and the page goes on with a fresh worker;
// a `?trace=` download without a Content-Length is held to the byte budget (lowered here through
// `weft.limits`) and stops with the budget's message naming the URL, for a file read whole and for an endless
// JSON string alike; a stalled download is given up with a message; progress shows the bytes and the rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, openPage, waitReady, dropFile } from '../lib/harness.mjs';
import { gridTrace } from '../lib/fixtures.mjs';

/** A server that never says how long its bodies are: endless ones, one that stalls, and a slow finite one. */
function hostileServer(grid) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const head = { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' };
    const endless = (first, piece) => {
      res.writeHead(200, head);
      res.write(first);
      const timer = setInterval(() => res.write(piece), 2);
      res.on('close', () => clearInterval(timer));
    };
    if (path === '/endless.prv') {
      let t = 0;
      let lines = '';
      while (lines.length < 64 << 10) { lines += `1:1:1:1:1:${t}:${t + 5}:1\n`; t += 5; }
      endless('#Paraver (01/01/2026 at 00:00):1000000000_ns:1(1):1:1(1:1)\n', lines);
    } else if (path === '/endless-string.json') {
      endless('[{"ph":"X","name":"', 'a'.repeat(64 << 10));
    } else if (path === '/stall.json') {
      res.writeHead(200, head);
      res.write(grid.subarray(0, 1000));
    } else if (path === '/slow.json') {
      res.writeHead(200, head);
      let at = 0;
      const step = Math.ceil(grid.length / 16);
      const next = () => {
        if (at >= grid.length) { res.end(); return; }
        res.write(grid.subarray(at, at + step));
        at += step;
        setTimeout(next, 60);
      };
      next();
    } else {
      res.writeHead(404, head).end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, base: `http://127.0.0.1:${server.address().port}` })));
}

const errorText = (page) => page.textContent('#error-text');

async function waitError(page, re, timeout = 60_000) {
  await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('error-text').textContent)
    && !document.getElementById('error').hidden, re.source, { timeout });
  return errorText(page);
}

/** Open `url` as `#trace=` with test limits, after clearing the last error. */
async function openTrace(page, url, limits) {
  await page.evaluate(({ url, limits }) => {
    window.weft.limits = limits;
    document.getElementById('error').hidden = true;
    document.getElementById('error-text').textContent = '';
    location.hash = `trace=${encodeURIComponent(url)}`;
  }, { url, limits });
}

test('traps name the file; downloads without a length are held to the budget; stalls time out', { timeout: 300_000 }, async () => {
  const grid = gridTrace();
  const hostile = await hostileServer(grid.bytes);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    let loads = await page.evaluate(() => window.weft.loads);

    // A panic inside the session reading a file: the file is named, the worker restarts, no "borrowed".
    await page.evaluate(() => window.weft.induceFault('panic', new File([new Uint8Array(64)], 'panicky.prv')));
    let msg = await waitError(page, /restarted/);
    assert.match(msg, /^panicky\.prv: the reader failed/);
    assert.doesNotMatch(msg, /borrowed/);
    // Memory running out inside the session (what a 950 MiB Paraver file did): said so, with the file's name.
    await page.evaluate(() => window.weft.induceFault('oom', new File([new Uint8Array(64)], 'huge-950m.prv')));
    msg = await waitError(page, /restarted/, 120_000);
    assert.match(msg, /^huge-950m\.prv: the reader ran out of memory/);
    assert.doesNotMatch(msg, /borrowed/);
    await dropFile(page, 'after-oom.json', grid.bytes);
    await waitReady(page, ++loads);
    assert.equal(await page.textContent('#file-name'), 'after-oom.json');

    // The downloads come from a second origin. A page opened with it in `?trace=` may connect to it (csp.js);
    // opening it from a page that may not would take a fresh page, which drops the test's lowered limits.
    await page.goto(`${url}?trace=${encodeURIComponent(`${hostile.base}/slow.json?first`)}`);
    await waitReady(page, 1);
    loads = await page.evaluate(() => window.weft.loads);

    // No Content-Length, no end: refused once past the (lowered) budget, naming the URL.
    for (const name of ['endless.prv', 'endless-string.json']) {
      const endless = `${hostile.base}/${name}`;
      await openTrace(page, endless, { bytes: 4 << 20 });
      msg = await waitError(page, /too large/);
      assert.ok(msg.startsWith(`Could not open ${endless}: ${name}: too large`), msg);
      assert.match(msg, /more than the 4 MiB/);
    }

    // A download that stalls is given up, with a message that says so.
    const stall = `${hostile.base}/stall.json`;
    await openTrace(page, stall, { stallMs: 1500 });
    msg = await waitError(page, /stalled/);
    assert.ok(msg.startsWith(`Could not open ${stall}: the download stalled`), msg);
    assert.match(msg, /nothing arrived for 2 s after 1000 bytes/);

    // Progress of a download of unknown size: the bytes so far and the rate, several times while it runs.
    await page.evaluate(() => {
      window.seen = [];
      new MutationObserver(() => window.seen.push(document.getElementById('progress-text').textContent))
        .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true });
    });
    await openTrace(page, `${hostile.base}/slow.json`, {});
    await waitReady(page, ++loads);
    assert.equal(await page.textContent('#file-name'), 'slow.json', await errorText(page));
    const seen = (await page.evaluate(() => window.seen)).filter((s) => /^downloading \d/.test(s));
    assert.ok(seen.length >= 3, `progress updates while downloading: ${seen}`);
    for (const s of seen) assert.match(s, /^downloading [\d.,]+\u00a0(B|KiB) · [\d.,]+\u00a0(B|KiB|MiB)\/s$/, `no total, a rate: ${s}`);
    assert.deepEqual(problems.filter((p) => !/induced fault|unreachable|memory|RuntimeError|Aborted|Failed to load resource/i.test(p)), []);
  } finally {
    await browser.close();
    server.closeAllConnections();
    server.close();
    hostile.server.closeAllConnections();
    hostile.server.close();
  }
});
