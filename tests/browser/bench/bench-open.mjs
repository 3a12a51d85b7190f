// The first view of a whole Chrome trace: weft's page against speedscope's, alternated in one run (issue #58's
// "whole files too"). Not a test; see BENCHMARKS.md "Session 41: whole files (#58)".
//   node bench/bench-open.mjs FILE... [--rounds N] [--speedscope DIR] [--only weft|speedscope] [--pages DIR,DIR]
// --pages: weft's page from each of these folders (relative to the repository: `.` is this tree's; another
// holds an index.html and www/ of another version), each run in turn where weft runs, labelled by its folder.
// Each run starts a fresh headless chromium (WebGPU/WebGL on SwiftShader, as the browser tests), opens the
// page, sets FILE on its file input and times until the view is drawn: for weft, the two animation frames after
// the page has shown the file (`waitReady`, all ranks drawn); for speedscope, its "Time Order" flame chart shown,
// then two animation frames. Rounds alternate which goes first, so the machine's load falls on both.
// speedscope: the npm package's built app (`npm install --no-save speedscope@1.25.0` in tests/browser, or its
// `dist/release` folder named by --speedscope), served from 127.0.0.1.
// One JSON line a run: the wall time from the file set to drawn, `cpu` (the CPU time all of chromium's
// processes took meanwhile, from /proc: less changed by the machine's load; `cpuByProcess` by process type:
// browser, renderer (the page and its workers), gpu-process, utility), the load average, and for weft its
// steps from the page's own log (`weft.openLog`: reader.js, worker.js, loading.js, app.js):
//   worker: post (the File to the worker), io (File.slice read), parse (the reader fed), read (the model
//   built at finish), summary, moments, encode, copy (to JS); transfer (posted to received);
//   page: receive (the buffers copied into the page's wasm), the Viewer's load steps by name (decode, views);
//   frame: ready to the first frame built and drawn (buildMs: its scene and layout; drawMs: issued to the GPU),
//   shown: to the next animation frame.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, openPage, waitReady, BACKENDS, repoRoot } from '../lib/harness.mjs';
import { serve } from '../../../scripts/serve.mjs';
import { contention } from '../lib/zoom.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : dflt; };
const rounds = Number(opt('--rounds', '3'));
const only = opt('--only', '');
const pages = opt('--pages', '.').split(',');
const ssDir = path.resolve(opt('--speedscope', path.join(repoRoot, 'tests/browser/node_modules/speedscope/dist/release')));
const files = args.map((f) => path.resolve(f));
if (!files.length || files.some((f) => !fs.existsSync(f))) {
  console.error('usage: bench-open.mjs FILE... [--rounds N] [--speedscope DIR] [--only weft|speedscope]');
  process.exit(2);
}
const useSpeedscope = only !== 'weft';
if (useSpeedscope && !fs.existsSync(path.join(ssDir, 'index.html'))) {
  console.error(`no speedscope at ${ssDir}: npm install --no-save speedscope@1.25.0 in tests/browser, or --speedscope DIR`);
  process.exit(2);
}

const load = () => os.loadavg().map((x) => +x.toFixed(2));

/** CPU time (user + system, ms) of this process's descendants (the chromium it launched: browser, renderer,
 *  GPU and utility processes), from /proc: a figure the machine's load changes far less than wall time. */
function childrenCpu() {
  const TICK_MS = 10; // USER_HZ 100
  const parent = new Map();
  const cpu = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(d), Number(f[1]));
    cpu.set(Number(d), (Number(f[11]) + Number(f[12])) * TICK_MS);
  }
  // By chromium's process type (--type=renderer, gpu-process, utility; none: the browser process).
  const by = { total: 0 };
  for (const [pid, ms] of cpu) {
    for (let p = parent.get(pid), hops = 0; p && hops < 16; p = parent.get(p), hops++) {
      if (p !== process.pid) continue;
      let type = 'other';
      try { const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'); const m = /--type=([a-z-]+)/.exec(cmd); type = m ? m[1] : /chrom/.test(cmd) ? 'browser' : 'other'; } catch { /* gone */ }
      by[type] = (by[type] || 0) + ms;
      by.total += ms;
      break;
    }
  }
  return by;
}
const cpuSince = (a) => { const b = childrenCpu(); return Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] || 0)])); };
const round1 = (x) => (Number.isFinite(x) ? +x.toFixed(1) : null);

async function weft(url, file) {
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    // The page shows a sample at its start: the file is the next load.
    const loads = await page.evaluate(() => window.weft.loads);
    const c0 = childrenCpu();
    const t0 = Date.now();
    await page.setInputFiles('#file-input', file);
    await waitReady(page, loads + 1, 600_000);
    const wall = Date.now() - t0;
    const byProcess = cpuSince(c0);
    const cpu = byProcess.total;
    // The page's log of the load, once its first frame after it has been shown.
    await page.waitForFunction(() => window.weft.openLog && window.weft.openLog.shown, null, { timeout: 30_000 });
    const log = await page.evaluate(() => ({ ...window.weft.openLog, summary: window.weft.lastSummary && { intervals: window.weft.lastSummary.intervals, locations: window.weft.lastSummary.locations } }));
    if (problems.length) throw new Error(problems.join('; '));
    return { wall, cpu, cpuByProcess: byProcess, ...steps(log) };
  } finally {
    await browser.close();
  }
}

/** weft.openLog as steps, ms. */
function steps(log) {
  const w = log.worker || {};
  const s = w.steps || {};
  const byName = {};
  for (const { step, ms } of log.steps || []) byName[step] = (byName[step] || 0) + ms;
  const page = Object.fromEntries(Object.entries(byName).map(([k, v]) => [k, round1(v)]));
  return {
    intervals: log.summary && log.summary.intervals,
    locations: log.summary && log.summary.locations,
    worker: {
      post: round1(w.started - log.picked), io: round1(w.io), parse: round1(w.parse), read: round1(s.read),
      summary: round1(s.summary), moments: round1(s.moments), encode: round1(s.encode), copy: round1(s.copy),
      finish: round1(w.finish),
    },
    transfer: round1(log.received - w.posted),
    page: { ...page, total: round1(log.ready - log.received) },
    frame: { wait: round1(log.frame.at - log.ready - log.frame.buildMs - log.frame.drawMs), build: round1(log.frame.buildMs), draw: round1(log.frame.drawMs), rects: log.frame.rects },
    shown: round1(log.shown - log.frame.at),
    pickedToShown: round1(log.shown - log.picked),
  };
}

async function speedscope(url, file) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgpu.args });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text().slice(0, 300)); });
    await page.goto(url);
    await page.waitForSelector('#file', { state: 'attached' });
    // Let its start-up settle (its WebGL set-up), as weft's page has by its first load.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForTimeout(500);
    const c0 = childrenCpu();
    const t0 = Date.now();
    await page.setInputFiles('#file', file);
    // Its flame chart shown: the view's toolbar ("Time Order", "Left Heavy", "Sandwich") and a canvas, then
    // two frames; or its error screen.
    const state = await page.waitForFunction(() => {
      const text = document.body.innerText;
      if (/Something went wrong|could not be|Unrecognized format/i.test(text)) return 'error';
      return text.includes('Time Order') && text.includes('Left Heavy') && document.querySelector('canvas') ? 'shown' : false;
    }, null, { timeout: 600_000, polling: 'raf' }).then((h) => h.jsonValue());
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const wall = Date.now() - t0;
    const byProcess = cpuSince(c0);
    const cpu = byProcess.total;
    const text = state === 'error' ? (await page.evaluate(() => document.body.innerText)).slice(0, 200) : null;
    return { wall, cpu, cpuByProcess: byProcess, state, error: text, problems: problems.slice(0, 3) };
  } finally {
    await browser.close();
  }
}

const { server, url } = await startServer();
const ss = useSpeedscope ? await serve({ root: ssDir }) : null;
const ssUrl = ss && `http://127.0.0.1:${ss.address().port}/`;
const results = [];
try {
  console.log(JSON.stringify({ chromium: (await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true }).then(async (b) => { const v = b.version(); await b.close(); return v; })), speedscope: useSpeedscope ? ssDir : null, files: files.map((f) => ({ file: path.relative(repoRoot, f), bytes: fs.statSync(f).size })), loadavg: load() }));
  for (let r = 0; r < rounds; r++) {
    for (const file of files) {
      const wefts = (r % 2 ? [...pages].reverse() : pages).map((p) => `weft:${p}`);
      const order = only === 'weft' ? wefts : only === 'speedscope' ? ['speedscope'] : r % 2 ? ['speedscope', ...wefts] : [...wefts, 'speedscope'];
      for (const who of order) {
        const before = load();
        const c = contention();
        const dir = who.startsWith('weft:') ? who.slice(5) : null;
        const res = dir ? await weft(dir === '.' ? url : `${url}${dir.replace(/\/?$/, '/')}`, file) : await speedscope(ssUrl, file);
        const line = { round: r, file: path.basename(file), who: dir ? (pages.length > 1 ? `weft ${dir}` : 'weft') : who, loadavg: before, contention: +c.toFixed(2), ...res };
        results.push(line);
        console.log(JSON.stringify(line));
      }
    }
  }
  const range = (xs) => (xs.length ? `${Math.min(...xs)}-${Math.max(...xs)} ms` : 'none');
  for (const file of files) {
    const mine = results.filter((x) => x.file === path.basename(file));
    const whos = [...new Set(mine.map((x) => x.who))];
    const summary = { file: path.basename(file) };
    for (const who of whos) {
      summary[who] = range(mine.filter((x) => x.who === who && x.state !== 'error').map((x) => x.wall));
      summary[`${who} cpu`] = range(mine.filter((x) => x.who === who && x.state !== 'error').map((x) => x.cpu));
      // Per round: speedscope's time over this page's in the same round.
      if (who !== 'speedscope') {
        summary[`ratios ${who}`] = [];
        for (let r = 0; r < rounds; r++) {
          const a = mine.find((x) => x.round === r && x.who === who);
          const b = mine.find((x) => x.round === r && x.who === 'speedscope' && x.state === 'shown');
          if (a && b) summary[`ratios ${who}`].push(+(b.wall / a.wall).toFixed(1));
        }
        summary[`cpu ratios ${who}`] = [];
        for (let r = 0; r < rounds; r++) {
          const a = mine.find((x) => x.round === r && x.who === who);
          const b = mine.find((x) => x.round === r && x.who === 'speedscope' && x.state === 'shown');
          if (a && b && a.cpu > 0) summary[`cpu ratios ${who}`].push(+(b.cpu / a.cpu).toFixed(1));
        }
      }
    }
    console.log(JSON.stringify({ ...summary, loadavg: load() }));
  }
} finally {
  server.close();
  if (ss) ss.close();
}
