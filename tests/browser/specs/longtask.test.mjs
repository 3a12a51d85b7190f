// The page's main thread stays free while large inputs load and every view of them opens (issue 16): the
// worker builds the analyses (aggregation tree, moments) and layouts, and the page decodes and builds its views
// in steps of a few ms (`Viewer::load_step`, `Viewer::begin_view`), yielding to the browser between them.
// Observed with the Long Tasks API (`PerformanceObserver`, type 'longtask', buffered) from the moment a file is
// chosen until every tab of it has been clicked and shown, and with requestAnimationFrame timestamps in the
// second after the first draw (headless chromium runs rAF at 60 Hz).
// Inputs: fib(45)'s MIR profile (8,192 grains; ../shared/traces, or the same program generated), a generated
// 131,072-grain profile (which opens aggregated first), where ../shared/traces is present the 32-rank OTF2
// stencil trace (timeline, moments, particles), a generated 2,000-rank OTF2 archive (4,002 files, 158 k
// intervals: what grows with the locations), and a generated 100 MB Chrome trace (1,449,985 intervals: its
// decode, moments and particle index, the steps that were one long task each before).
//
// Asserted by default, for every input: no main-thread task over 50 ms in which the engine ran (a `Viewer`
// call; the same for a task with none, FOREIGN_TASK_MS; a task delivering a file chooser's reply from its
// `change` event on, the browser's building of the chosen Files before it excluded), and no frame gap over 100 ms in the
// second after the first draw (the display's rate with room for one late frame; not for the 100 MB trace, whose
// single 15,000-rect frame takes SwiftShader, the software Vulkan these tests run on, 0.5-0.9 s of GPU-process
// time to rasterize: a GPU's cost, not the main thread's). What makes the bound fair on the shared 2-core VM,
// where five other engineers build and test: a long task's duration is wall time, so a step of 20 ms that the
// OS deschedules can read 60 ms, and the browser's own tasks (garbage collection, style and layout of a large
// DOM change, the compositor) land on the same thread. So an input that breaks a bound is loaded and visited
// once more, and the test fails only when the second visit breaks a bound too: load spikes rarely repeat at the
// same place, an engine step that takes too long does every time. Each long task is printed with the
// `Viewer` calls inside it (every method of the wasm Viewer is wrapped and timed), so a failure says whether
// the engine (a `Viewer` call that long) or the page's JavaScript and the browser (no such call) took the time.
// And the machine's load is measured, not guessed: before and after each visit the test runs a busy loop of
// ~200 ms in this Node process and compares its wall time with the CPU time it got (`process.cpuUsage`); on an
// idle machine they are equal, with N runnable threads per core the wall time is about N times the CPU time.
// The bounds are multiplied by that contention factor (at least 1): 50 ms on an idle machine, 250 ms at a
// factor of 5, where a 20 ms step reads 100 ms. The test still fails where a step is long by itself: the
// 100 MB trace's particle index as one task (200-300 ms idle) breaks the bound unless the machine is more than
// 4x contended, twice in a row.
// WEFT_TIMING=loose prints the bounds' failures instead of asserting them (for a machine loaded beyond that).
// Always asserted: the page computed none of the analyses itself (`Viewer::built_on_page` is empty: the
// aggregation and the moments came from the worker). Each input's load steps and view steps are printed.
// WEFT_PAGE_ROOT=/path/to/another/checkout serves that checkout's page instead (to show the test fails there:
// main before issue 16's smooth branch builds the 100 MB trace's particle index in one 200-300 ms task).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, repoRoot, outDir, cargoArgs } from '../lib/harness.mjs';
import { writeBigChromeTrace } from '../lib/bigtrace.mjs';

const LONG_TASK_MS = 50;
// A task in which no `Viewer` call ran (the page's JavaScript, the browser's garbage collection, style and
// layout, its first compile of a shader or of the wasm module) is held to the same bound. The OTF2 stencil's
// first visit showed one of 59-63 ms (session 5): the folder picker's reply (28 ms, the browser's) and the
// page posting the 67 Files to the worker in one message (27 ms); the page now posts them in slices
// (`postSet`, BENCHMARKS.md "The 59-63 ms task with no engine call").
const FOREIGN_TASK_MS = LONG_TASK_MS;
// The task that delivers the browser's reply to a file chooser (`blink.mojom.FileChooser`) builds the chosen
// `File` objects before it dispatches the input's `change` event: 96 ms of a 99 ms task for the stencil's 67
// files in a DevTools trace (`trace-longtasks.mjs`, session 32; 28 ms in session 5), the page's handler 2 ms.
// The page cannot split the browser's part, and a person's own folder pick costs the same in any page, so a
// long task holding a file input's `change` is held to the bounds from that event on (the page's part); the
// browser's part before it is printed, not bounded. CI's run of session 31 failed on that task alone (66 and
// 72 ms, both visits, no Viewer call).
const FRAME_GAP_MS = 100;
const AFTER_DRAW_MS = 1000;

const traces = path.join(repoRoot, '../shared/traces');

// A generated fib profile (samples::grains::fib_profile through examples/grain_profile.rs), written once.
function generatedProfile(n, cutoff, cores) {
  const file = path.join(outDir, `fib${n}-c${cutoff}.csv`);
  if (!fs.existsSync(file)) {
    execFileSync('cargo', cargoArgs('run', '-q', '--example', 'grain_profile', '--', String(n), String(cutoff), String(cores), file),
      { cwd: repoRoot, stdio: 'inherit' });
  }
  return file;
}

// A generated OTF2 archive of `ranks` MPI ranks (`weft generate otf2`: a definitions and an events file a
// rank), written once.
const WEFT = path.join(repoRoot, 'target/debug/weft');
function generatedArchive(ranks, events) {
  const dir = path.join(outDir, `otf2-${ranks}-ranks`);
  if (!fs.existsSync(path.join(dir, 'traces.otf2'))) {
    if (!fs.existsSync(WEFT)) execFileSync('cargo', cargoArgs('build', '--bin', 'weft'), { cwd: repoRoot, stdio: 'inherit' });
    execFileSync(WEFT, ['generate', 'otf2', '-o', dir, '--ranks', String(ranks), '--events', String(events)]);
  }
  return dir;
}

// Long tasks, frame timestamps and every Viewer call from now on; `__loaded` gets the time each input is shown.
const observe = (page) => page.evaluate(() => {
  const w = window;
  w.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__long.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  w.__frames = [];
  const tick = (t) => { w.__frames.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  // When each file input's `change` is dispatched (a capture listener on the window runs before the page's).
  w.__changes = [];
  window.addEventListener('change', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'file') w.__changes.push(performance.now());
  }, true);
  w.__loaded = [];
  w.weft.hooks.loaded.push(() => w.__loaded.push(performance.now()));
  // Every method of the wasm Viewer, timed (calls of 1 ms or more kept): what of a long task is the engine's.
  w.__calls = [];
  const proto = Object.getPrototypeOf(w.weft.viewer);
  for (const name of Object.getOwnPropertyNames(proto)) {
    const f = proto[name];
    if (name === 'constructor' || typeof f !== 'function') continue;
    proto[name] = function (...args) {
      const t0 = performance.now();
      try { return f.apply(this, args); } finally {
        const ms = performance.now() - t0;
        if (ms >= 1) w.__calls.push({ name, start: t0, ms });
      }
    };
  }
});

// Wall time over the CPU time this process gets for a busy loop of ~200 ms wall: 1 on an idle machine, about
// the number of runnable threads per core on a loaded one.
function contention() {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let x = 0;
  while (Number(process.hrtime.bigint() - t0) < 200e6) for (let k = 0; k < 1e5; k++) x = (x + Math.sqrt(k)) % 1e9;
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return Math.max(1, wall / Math.max(1, (c.user + c.system) / 1000)) + (x < 0 ? 1 : 0);
}

const now = (page) => page.evaluate(() => performance.now());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Load with `open`, then show every view tab; returns what the main thread did meanwhile. */
async function visit(page, label, loads, open) {
  const before = contention();
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
  const viewSteps = [];
  for (const v of views) {
    await page.click(`button[data-view="${v}"]`);
    // A view built in steps (a large trace's particle index) is shown at its last step.
    await page.waitForFunction((v) => window.weft.viewer.view() === v, v, { timeout: 60_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => window.weft.viewer.view()), v, `${label}: the ${v} tab opens`);
    const vs = await page.evaluate(() => { const s = window.weft.viewSteps || []; window.weft.viewSteps = []; return s; });
    if (vs.length) viewSteps.push(`${v}: ${vs.length} steps, longest ${Math.max(...vs.map((s) => s.ms)).toFixed(1)} ms`);
    await sleep(300);
  }
  const built = await page.evaluate(() => (window.weft.viewer.built_on_page ? window.weft.viewer.built_on_page() : ['unknown']));
  // Each long task with the Viewer calls that ran inside it.
  // `page`: the task's part from a file chooser's `change` on (all of it when it holds none); `chooser`: the
  // browser's part before that event.
  const long = await page.evaluate((t0) => window.__long.filter((e) => e.start >= t0).map((e) => {
    const change = window.__changes.find((t) => t >= e.start && t <= e.start + e.ms);
    const chooser = change === undefined ? 0 : change - e.start;
    return {
      ...e,
      chooser,
      page: e.ms - chooser,
      calls: window.__calls.filter((c) => c.start >= e.start - 1 && c.start + c.ms <= e.start + e.ms + 1)
        .map((c) => `${c.name} ${Math.round(c.ms)} ms`),
    };
  }), t0);
  const worst = long.reduce((m, e) => Math.max(m, e.ms), 0);
  const described = (e) => `${Math.round(e.ms)} ms [${e.calls.join(', ') || 'no Viewer call'}` +
    `${e.chooser ? `; the file chooser's reply ${Math.round(e.chooser)} ms, then the page ${Math.round(e.page)} ms` : ''}]`;
  const factor = Math.max(before, contention());
  console.log(`${label}: contention ${factor.toFixed(2)}x (bounds ${Math.round(LONG_TASK_MS * factor)} / ` +
    `${Math.round(FRAME_GAP_MS * factor)} ms); views ${views.join(', ')}; longest main-thread task ${Math.round(worst)} ms ` +
    `(${long.length} over 50 ms${long.length ? `: ${long.map(described).join('; ')}` : ''}); ` +
    `${frames.count} frames in the second after the first draw, largest gap ${Math.round(frames.gap)} ms ` +
    `(at +${Math.round(frames.at)} ms); load steps: ` + steps.map((s) => `${s.step} ${s.ms.toFixed(1)} ms`).join(', ') +
    (viewSteps.length ? `; view steps: ${viewSteps.join('; ')}` : ''));
  assert.deepEqual(built, [], `${label}: the page computed ${built.join(', ')} itself`);
  return { long, worst, frames, factor };
}

test('no long task and no frame gap while large inputs load and every view opens', { timeout: 900_000 }, async (t) => {
  const root = process.env.WEFT_PAGE_ROOT;
  const { server, url } = await startServer(root ? { root } : {});
  const { browser, page, problems } = await openPage('webgpu', url);
  const failures = [];
  // What breaks the bounds in one visit ([] when nothing does).
  const over = (label, r, frameBound) => [
    ...(r.long.some((e) => e.page > (e.calls.length ? LONG_TASK_MS : FOREIGN_TASK_MS) * r.factor)
      ? [`${label}: main-thread tasks of ${r.long.map((e) => Math.round(e.page)).join(', ')} ms (bound ${Math.round(LONG_TASK_MS * r.factor)} ms)`] : []),
    ...(frameBound && r.frames.gap > FRAME_GAP_MS * r.factor
      ? [`${label}: no frame for ${Math.round(r.frames.gap)} ms after the first draw (bound ${Math.round(FRAME_GAP_MS * r.factor)} ms)`] : []),
  ];
  let loads = 1;
  // Visit an input; visit it again when the first visit breaks a bound, and keep the second's failures.
  const check = async (label, open, frameBound = true) => {
    let broken = over(label, await visit(page, label, ++loads, open), frameBound);
    if (broken.length) {
      console.log(`${label}: over the bounds once (${broken.join('; ')}): visiting it again`);
      broken = over(`${label} (second visit)`, await visit(page, `${label} (second visit)`, ++loads, open), frameBound);
    }
    failures.push(...broken);
  };
  try {
    await observe(page);
    const real45 = path.join(traces, 'grain-graphs/anamud-test-data/fib/task-stats.merged');
    const fib45 = fs.existsSync(real45) ? real45 : generatedProfile(45, 12, 48);
    const big = generatedProfile(45, 16, 48);
    for (const [label, file] of [['fib(45), 8,192 grains', fib45], ['generated fib, 131,072 grains', big]]) {
      await check(label, () => page.setInputFiles('#file-input', file));
    }
    const stencil = path.join(traces, 'otf2/tracer-stencil4d-mpi-32');
    if (fs.existsSync(stencil)) {
      await check('OTF2 stencil, 32 ranks', () => page.setInputFiles('#folder-input', stencil));
    } else {
      console.log(`SKIPPED the real OTF2 trace: ${stencil} is absent (the generated inputs still ran)`);
    }
    // Many locations: what grows with them (the view state the permalink reads after every interaction, the
    // overview strip where every location's outermost interval spans the run, the particle view's layout) in
    // steps or out of the page's way. Before session 33, at 2,000-5,000 ranks: view_state 35-120 ms a call,
    // the strip 60-70 ms in one step, the particle view 41-59 ms in one.
    // WEFT_LONGTASK_RANKS=5000 opens 5,000 ranks instead (BENCHMARKS.md "Session 33"), 200 events a rank.
    const ranks = Number(process.env.WEFT_LONGTASK_RANKS) || 2000;
    await check(`generated OTF2, ${ranks.toLocaleString('en')} ranks`,
      () => page.setInputFiles('#folder-input', generatedArchive(ranks, ranks * 200)));
    const n100 = path.join(outDir, 'n100.json');
    if (!fs.existsSync(n100)) await writeBigChromeTrace(n100, 100e6);
    await check('100 MB Chrome trace', () => page.setInputFiles('#file-input', n100), false);
    if (process.env.WEFT_TIMING === 'loose') {
      if (failures.length) console.log(`over the bounds (asserted unless WEFT_TIMING=loose):\n  ${failures.join('\n  ')}`);
    } else {
      assert.deepEqual(failures, [], 'main-thread tasks over 50 ms or frame gaps over 100 ms, twice in a row');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
  t.diagnostic('main thread observed with PerformanceObserver(longtask), requestAnimationFrame and timed Viewer calls');
});
