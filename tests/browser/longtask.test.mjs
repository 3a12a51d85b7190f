// The page's main thread stays free while large inputs load and every view of them opens (issue 16): the
// worker builds the analyses (aggregation tree, moments) and layouts and the page only decodes and draws.
// Observed with the Long Tasks API (`PerformanceObserver`, type 'longtask', buffered): no task over 50 ms from
// the moment a file is chosen until every tab of it has been shown; and requestAnimationFrame timestamps: no
// gap over 100 ms in the second after the first draw (headless chromium runs rAF at 60 Hz).
// Inputs: fib(45)'s MIR profile (8,192 grains; ../shared/traces, or the same program generated), a generated
// 131,072-grain profile (which opens aggregated first) and, where ../shared/traces is present, the 32-rank
// OTF2 stencil trace (timeline, moments, particles).
// Always asserted: the page computed none of the analyses itself (`Viewer::built_on_page` is empty: the
// aggregation and the moments came from the worker). The wall-clock bounds (no task over 50 ms, no frame gap
// over 100 ms) are asserted with WEFT_TIMING=strict, on a quiet machine: on the shared 2-core VM at a load
// average of 12 the same page shows 250 ms tasks that take 10 ms when it is quiet. Without it they are printed.
// A frame gap can also come from the GPU process: SwiftShader (software Vulkan) takes 0.5-0.9 s to rasterize a
// frame of 15,000 rects, and rAF waits for it; these inputs draw a few thousand.
// Each input's load steps (the page decodes and builds in steps, yielding between them: `weft.loadSteps`) are
// printed with their main-thread times.
// WEFT_PAGE_ROOT=/path/to/another/checkout serves that checkout's page instead (to show the test fails there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, repoRoot, outDir } from './harness.mjs';

const LONG_TASK_MS = 50;
const FRAME_GAP_MS = 100;
const AFTER_DRAW_MS = 1000;

const traces = path.join(repoRoot, '../shared/traces');

// A generated fib profile (samples::grains::fib_profile through examples/grain_profile.rs), written once.
function generatedProfile(n, cutoff, cores) {
  const file = path.join(outDir, `fib${n}-c${cutoff}.csv`);
  if (!fs.existsSync(file)) {
    execFileSync('cargo', ['run', '-q', '--example', 'grain_profile', '--', String(n), String(cutoff), String(cores), file],
      { cwd: repoRoot, stdio: 'inherit' });
  }
  return file;
}

// Long tasks and frame timestamps from now on; `__loaded` gets the time each input is shown.
const observe = (page) => page.evaluate(() => {
  const w = window;
  w.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__long.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  w.__frames = [];
  const tick = (t) => { w.__frames.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  w.__loaded = [];
  w.weft.hooks.loaded.push(() => w.__loaded.push(performance.now()));
});

const now = (page) => page.evaluate(() => performance.now());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Load with `open`, then show every view tab; returns what the main thread did meanwhile. */
async function visit(page, label, loads, open) {
  const t0 = await now(page);
  await open();
  await waitReady(page, loads, 180_000);
  const st = await page.evaluate(() => ({ state: window.weft.state, errors: document.getElementById('error').textContent }));
  assert.notEqual(st.state, 'error', `${label}: ${st.errors}`);
  await sleep(AFTER_DRAW_MS + 200);
  const frames = await page.evaluate((span) => {
    const loaded = window.__loaded[window.__loaded.length - 1];
    const after = window.__frames.filter((t) => t >= loaded);
    const first = after[0];
    const inside = after.filter((t) => t <= first + span);
    let gap = 0;
    let at = first;
    for (let i = 1; i < inside.length; i++) {
      if (inside[i] - inside[i - 1] > gap) { gap = inside[i] - inside[i - 1]; at = inside[i - 1]; }
    }
    return { count: inside.length, gap, at: at - first };
  }, AFTER_DRAW_MS);
  const steps = await page.evaluate(() => window.weft.loadSteps || []);
  const views = await page.evaluate(() => window.weft.viewer.views());
  for (const v of views) {
    await page.click(`button[data-view="${v}"]`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => window.weft.viewer.view()), v, `${label}: the ${v} tab opens`);
    await sleep(300);
  }
  const built = await page.evaluate(() => (window.weft.viewer.built_on_page ? window.weft.viewer.built_on_page() : ['unknown']));
  const long = await page.evaluate((t0) => window.__long.filter((e) => e.start >= t0), t0);
  const worst = long.reduce((m, e) => Math.max(m, e.ms), 0);
  console.log(`${label}: views ${views.join(', ')}; longest main-thread task ${Math.round(worst)} ms ` +
    `(${long.length} over 50 ms); ${frames.count} frames in the second after the first draw, largest gap ` +
    `${Math.round(frames.gap)} ms (at +${Math.round(frames.at)} ms); load steps: ` +
    steps.map((s) => `${s.step} ${s.ms.toFixed(1)} ms`).join(', '));
  assert.deepEqual(built, [], `${label}: the page computed ${built.join(', ')} itself`);
  return { long, worst, frames };
}

test('no long task and no frame gap while large inputs load and every view opens', { timeout: 900_000 }, async (t) => {
  const root = process.env.WEFT_PAGE_ROOT;
  const { server, url } = await startServer(root ? { root } : {});
  const { browser, page, problems } = await openPage('webgpu', url);
  const failures = [];
  const check = (label, r) => {
    if (r.worst > LONG_TASK_MS) failures.push(`${label}: main-thread tasks of ${r.long.map((e) => Math.round(e.ms)).join(', ')} ms`);
    if (r.frames.gap > FRAME_GAP_MS) failures.push(`${label}: no frame for ${Math.round(r.frames.gap)} ms after the first draw`);
  };
  try {
    await observe(page);
    let loads = 1;
    const real45 = path.join(traces, 'grain-graphs/anamud-test-data/fib/task-stats.merged');
    const fib45 = fs.existsSync(real45) ? real45 : generatedProfile(45, 12, 48);
    const big = generatedProfile(45, 16, 48);
    for (const [label, file] of [['fib(45), 8,192 grains', fib45], ['generated fib, 131,072 grains', big]]) {
      loads += 1;
      check(label, await visit(page, label, loads, () => page.setInputFiles('#file-input', file)));
    }
    const stencil = path.join(traces, 'otf2/tracer-stencil4d-mpi-32');
    if (fs.existsSync(stencil)) {
      loads += 1;
      const label = 'OTF2 stencil, 32 ranks';
      check(label, await visit(page, label, loads, () => page.setInputFiles('#folder-input', stencil)));
    } else {
      console.log(`SKIPPED the real OTF2 trace: ${stencil} is absent (the generated inputs above still ran)`);
    }
    if (process.env.WEFT_TIMING === 'strict') assert.deepEqual(failures, []);
    else if (failures.length) console.log(`over the bounds (asserted with WEFT_TIMING=strict):\n  ${failures.join('\n  ')}`);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
  t.diagnostic('main thread observed with PerformanceObserver(longtask) and requestAnimationFrame');
});
