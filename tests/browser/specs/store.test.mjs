// Stores on the page (issue #17): a store generated and indexed once into tests/out/store-gen (reused while
// the same weft build indexed it: `weft generate otf2` then `weft index --threads 2`) is opened from a URL (`?store=URL/`), drawn from
// the pyramid at the whole run, zoomed to level 0 and to one interval, whose hover must equal the store read
// whole natively (examples/store_at.rs); the worker's decoded tiles stay within the cache budget and its memory
// within that plus a fixed overhead, also with a budget smaller than a level-0 view's tiles; zooming and panning over cached tiles is timed; a damaged tile is named
// and the rest drawn; a manifest of another version is refused by name. Run with STORE_EVENTS=N to change the
// generated trace's size (default 20 M events: 16 windows, 3 pyramid levels).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, repoRoot, outDir, viewState, screenshot, cargoArgs } from '../lib/harness.mjs';
import { frames, settled } from '../lib/store-page.mjs';

const EVENTS = Number(process.env.STORE_EVENTS || 20_000_000);
const gen = path.join(outDir, `store-gen-${EVENTS}`);
const weftBin = path.join(repoRoot, 'target/debug/weft');
const CACHE_MB = 256; // the default budget
// What the store worker may hold beyond its cache's budget: the module, the store's definitions, one tile
// being decoded and the answer being built (BENCHMARKS.md, "Stores on the page").
const OVERHEAD_MB = Number(process.env.STORE_OVERHEAD_MB || 192);

function ensureStore() {
  const store = path.join(gen, 'store');
  const trace = path.join(gen, 'trace');
  const stamp = path.join(gen, 'indexed-by');
  const costs = {};
  if (!fs.existsSync(weftBin)) execFileSync('cargo', cargoArgs('build', '--bin', 'weft'), { cwd: repoRoot, stdio: 'inherit' });
  // A store indexed by another build of weft is indexed again (the generated trace is kept): its tiles or
  // manifest may lack what this build writes.
  const built = String(fs.statSync(weftBin).mtimeMs);
  const current = fs.existsSync(path.join(store, 'manifest.json')) && fs.existsSync(stamp)
    && fs.readFileSync(stamp, 'utf8') === built;
  if (!current) {
    let t = Date.now();
    if (!fs.existsSync(path.join(trace, 'traces.otf2'))) {
      fs.rmSync(gen, { recursive: true, force: true });
      fs.mkdirSync(gen, { recursive: true });
      execFileSync(weftBin, ['generate', 'otf2', '-o', trace, '--ranks', '16', '--threads-per-rank', '2',
        '--events', String(EVENTS), '--jobs', '2']);
    }
    costs.generateMs = Date.now() - t;
    t = Date.now();
    execFileSync(weftBin, ['index', trace, '-o', store, '--threads', '2', '--block', '8', '--force']);
    costs.indexMs = Date.now() - t;
    fs.writeFileSync(stamp, built);
  }
  execFileSync('cargo', cargoArgs('build', '-q', '--example', 'store_at'), { cwd: repoRoot, stdio: 'inherit' });
  return { store, costs };
}

function copyStore(from, to, damage) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, { recursive: true });
  damage(to);
}

test('a store opened from a URL: whole run to one interval, hover, memory, faults', { timeout: 600_000 }, async (t) => {
  const { store, costs } = ensureStore();
  console.log(`# store ${path.relative(repoRoot, store)} (${EVENTS} events asked): generate+index ${JSON.stringify(costs)}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  const { server, url } = await startServer();
  // Closed however the test ends: a server left open keeps the runner waiting after a failure.
  t.after(() => server.close());
  const rel = path.relative(repoRoot, store);
  const path0 = []; // the zoom path from the whole run to one interval
  const { browser, page, problems } = await openPage('webgpu', `${url}?store_cache_mb=${CACHE_MB}&store=${url}${rel}/`);
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
    await settled(page);
    const timings = await page.evaluate(() => window.weft.store.timings);
    let st = await viewState(page);
    assert.match(st.store.shown, /^level \d+$/, 'the whole run is drawn from the pyramid');
    let stats = await page.evaluate(() => window.weft.viewer.stats());
    assert.ok(stats.marks > 0, `the whole run draws marks (${JSON.stringify(stats)})`);
    assert.equal(st.span_ns, manifest.span_ns);
    // Hover at the pyramid level: a bin's figures, its busy time within the bin's length.
    const row0 = st.rows[0];
    const x = st.track_x0 + (st.width - st.track_x0) / 2;
    const gridHover = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, row0.y + 12]);
    assert.ok(gridHover && gridHover.detail.level >= 1, JSON.stringify(gridHover));
    assert.ok(gridHover.detail.busy_any_ns <= gridHover.detail.end_ns - gridHover.detail.start_ns);
    // The summary keeps lanes: lane 0 of the bin is the run-spanning interval the store has there (the CLI's
    // answer at the bin's middle), covering the whole bin.
    assert.equal(gridHover.detail.depth, 0, JSON.stringify(gridHover));
    assert.ok(gridHover.detail.lane_cover > 0.99, JSON.stringify(gridHover));
    const binMid = Math.round((gridHover.detail.start_ns + gridHover.detail.end_ns) / 2);
    const atBin = execFileSync(path.join(repoRoot, 'target/debug/examples/store_at'),
      [store, String(row0.location), String(binMid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const top = atBin.find((n) => n.depth === 0);
    assert.ok(top && gridHover.title === `${top.region} (depth 0)`, `${gridHover.title} vs ${JSON.stringify(atBin)}`);
    const deeper = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, row0.y + 9 + 18 * (row0.lanes - 1)]);
    assert.ok(deeper && deeper.detail.depth === row0.lanes - 1, `the deepest lane hovers: ${JSON.stringify(deeper)}`);

    // Zoom in about the middle, 4x a step, until level 0 shows; worst frame per step with tiles fetched.
    const zoomTo = async (t0, t1) => { await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [t0, t1]); await settled(page); };
    const mid = manifest.span_ns / 2;
    let w = manifest.span_ns;
    let hover = null;
    let exactAt = null;
    while (w > 1000 && !hover) {
      w /= 4;
      path0.push([mid - w / 2, mid + w / 2]);
      await zoomTo(mid - w / 2, mid + w / 2);
      st = await viewState(page);
      if (st.store.shown !== 'exact') continue;
      exactAt ??= w;
      // Zoomed in far enough, the exact intervals are drawn: one under the pointer on some row (slices
      // narrower than a pixel merge and do not hover, so this may take a few more steps).
      for (const r of st.rows.slice(0, 6)) {
        for (let d = r.lanes - 1; d >= 0 && !hover; d--) {
          hover = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, r.y + 9 + 18 * d]);
          if (!(hover && hover.detail && hover.detail.dur_ns > 0 && hover.detail.dur_ns < w / 2 && hover.detail.start_ns !== undefined)) hover = null;
        }
        if (hover) break;
      }
    }
    assert.ok(exactAt, 'zoomed in far enough, the exact intervals are drawn');
    assert.ok(hover, 'an interval under the pointer at level 0');
    const { start_ns: s0, dur_ns: d0 } = hover.detail;
    await zoomTo(s0 - d0 * 0.05, s0 + d0 * 1.05);
    st = await viewState(page);
    assert.equal(st.store.shown, 'exact');
    const row = st.rows.find((r) => r.location === hover.detail.location);
    const y = row.y + 9 + 18 * hover.detail.depth;
    const one = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, y]);
    assert.ok(one, 'the zoomed interval hovers');
    const tMid = Math.round((st.t0_ns + st.t1_ns) / 2);
    const native = execFileSync(path.join(repoRoot, 'target/debug/examples/store_at'),
      [store, String(one.detail.location), String(tMid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const same = native.find((n) => n.start_ns === one.detail.start_ns && n.dur_ns === one.detail.dur_ns && n.depth === one.detail.depth);
    assert.ok(same, `hover ${JSON.stringify(one)} is one of the store's intervals there: ${JSON.stringify(native)}`);
    assert.equal(one.title, same.region);

    // Pan and zoom back out over the same path: tiles cached now; the worst frame is measured.
    await page.evaluate(() => window.weft.viewer.fit());
    await settled(page);
    const worst = await page.evaluate(async (path0) => {
      const v = window.weft.viewer;
      let worst = 0;
      const gaps = [];
      let last = performance.now();
      const frame = () => new Promise((r) => requestAnimationFrame(() => { const t = performance.now(); gaps.push(t - last); last = t; r(); }));
      for (const [a, b] of path0) {
        const t = performance.now();
        v.set_time_range(a, b);
        v.frame();
        worst = Math.max(worst, performance.now() - t);
        await frame();
        for (let k = 0; k < 4; k++) { v.pan(40); await frame(); }
      }
      return { worstFrameMs: worst, worstGapMs: Math.max(...gaps) };
    }, path0);
    await settled(page);
    const last = await page.evaluate(() => window.weft.store.last);
    const memory = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
    console.log(`# first drawn ${timings.firstDrawn.toFixed(0)} ms (manifest ${timings.manifest.toFixed(0)} ms); cached zoom/pan: worst frame ${worst.worstFrameMs.toFixed(1)} ms, worst rAF gap ${worst.worstGapMs.toFixed(1)} ms; worker cache ${(last.cacheUsed / 2 ** 20).toFixed(1)} MB of ${(last.cacheBudget / 2 ** 20).toFixed(0)} MB (${last.cacheTiles} tiles), worker wasm memory ${(last.wasmBytes / 2 ** 20).toFixed(0)} MB, page JS heap ${(memory / 2 ** 20).toFixed(0)} MB`);
    assert.ok(last.cacheUsed <= last.cacheBudget, 'decoded tiles within the budget');
    assert.equal(last.cacheBudget, CACHE_MB * 2 ** 20);
    // The worker's wasm memory (it never shrinks: the last figure is the peak) stays under the cache's budget
    // plus a fixed overhead: tiles are gathered into the answer as they come and kept only within the budget.
    assert.ok(last.wasmBytes <= last.cacheBudget + OVERHEAD_MB * 2 ** 20,
      `worker wasm memory ${(last.wasmBytes / 2 ** 20).toFixed(0)} MB over ${CACHE_MB} MB + ${OVERHEAD_MB} MB`);
    assert.ok(memory === 0 || memory < 256 << 20, `page heap ${memory}`);

    // Particles play from the store a few seconds of playback at a time (views::particles: six seconds at the
    // current speed, at most a window): the slice held spans that, not a window's events, and the worker
    // stays within its budget plus the overhead.
    await page.click('#views button[data-view="particles"]');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.click('button:has-text("Play")');
    await page.waitForFunction(() => (window.weft.viewer.view_state().store || {}).held, null, { timeout: 60_000 });
    await page.waitForTimeout(2000);
    const ps = await page.evaluate(() => ({ st: window.weft.viewer.view_state(), last: window.weft.store.last }));
    const [from, end] = ps.st.store.held;
    const speed = ps.st.step_ns * 1000 / ps.st.interval_ms;
    console.log(`# particles: ${ps.st.particles} alive at ${ps.st.speed}; slice held ${from}..${end} ns (window ${ps.st.store.window_ns} ns); worker wasm memory ${(ps.last.wasmBytes / 2 ** 20).toFixed(0)} MB`);
    assert.ok(ps.st.particles > 0, 'particles play');
    assert.ok(end - from <= 6 * speed + 1 && end - from <= ps.st.store.window_ns + 1,
      `the slice held spans ${end - from} ns: six seconds of playback are ${6 * speed} ns`);
    assert.ok(ps.last.wasmBytes <= ps.last.cacheBudget + OVERHEAD_MB * 2 ** 20,
      `worker wasm memory ${(ps.last.wasmBytes / 2 ** 20).toFixed(0)} MB over ${CACHE_MB} MB + ${OVERHEAD_MB} MB while particles play`);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }

  // The same zoom path with a budget smaller than one level-0 view's tiles: they stream through the worker,
  // whose memory stays under that budget plus the same overhead.
  {
    const small = 32;
    const b = await openPage('webgpu', `${url}?store_cache_mb=${small}&store=${url}${rel}/`);
    try {
      await b.page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
      await settled(b.page);
      let fetched = 0;
      for (const [a, z] of path0) {
        await b.page.evaluate(([a, z]) => window.weft.viewer.set_time_range(a, z), [a, z]);
        await settled(b.page);
        fetched += (await b.page.evaluate(() => window.weft.store.last.fetchedBytes));
      }
      const last = await b.page.evaluate(() => window.weft.store.last);
      console.log(`# cache budget ${small} MB: worker wasm memory ${(last.wasmBytes / 2 ** 20).toFixed(0)} MB, cache ${(last.cacheUsed / 2 ** 20).toFixed(1)} MB (${last.cacheTiles} tiles), ${(fetched / 2 ** 20).toFixed(0)} MB fetched on the zoom path`);
      assert.ok(last.cacheUsed <= small * 2 ** 20);
      assert.ok(last.wasmBytes <= small * 2 ** 20 + OVERHEAD_MB * 2 ** 20,
        `worker wasm memory ${(last.wasmBytes / 2 ** 20).toFixed(0)} MB over ${small} MB + ${OVERHEAD_MB} MB`);
      assert.equal(last.kind, 'exact');
      assert.deepEqual(b.problems, []);
    } finally {
      await b.browser.close();
    }
  }

  // A damaged store: every summary tile of block 0 truncated: the view names them and draws the rest.
  const broken = path.join(gen, 'broken');
  copyStore(store, broken, (dir) => {
    for (const t of manifest.tiles.filter((t) => t.kind === 'summary' && t.block === 0)) {
      const f = path.join(dir, t.path);
      fs.writeFileSync(f, fs.readFileSync(f).subarray(0, 10));
    }
  });
  const other = path.join(gen, 'other-version');
  copyStore(store, other, (dir) => {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    m.version = 1; // a store written before tiles carried what is open at their window's start
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
  });
  for (const [dir, check] of [
    [broken, async (page) => {
      await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
      await frames(page, 3);
      const st = await viewState(page);
      assert.ok(st.store.errors.length > 0 && st.store.errors.every((e) => /s\/l\d+\/b0\/t\d+\.[0-9a-f]+\.wt/.test(e)), JSON.stringify(st.store.errors));
      // Rows keep the whole run's depths (four lanes here), so the first screen may hold block 0's rows
      // alone: scrolled to the last rows, the other blocks are drawn.
      const answers = await page.evaluate(() => window.weft.store.answers);
      await page.evaluate(() => window.weft.viewer.scroll(1e9));
      await page.waitForFunction((n) => window.weft.store.answers > n, answers, { timeout: 60_000 });
      await frames(page, 3);
      const stats = await page.evaluate(() => window.weft.viewer.stats());
      assert.ok(stats.marks > 0, 'the other blocks are drawn');
    }],
    [other, async (page) => {
      await page.waitForFunction(() => window.weft.errors.length > 0, null, { timeout: 60_000 });
      const errors = await page.evaluate(() => window.weft.errors);
      assert.match(errors.join(' '), /manifest\.json: store format version 1; this weft reads versions 2 to 8 \(index the trace again\)/);
    }],
  ]) {
    const b = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, dir)}/`).catch((e) => { throw e; });
    try { await check(b.page); } finally { await b.browser.close(); }
  }
});

// Utilization & moments on a store: the whole run's rows are the stored moments (`weft moments STORE/`);
// zoomed in past level 1 the visible window's moments equal `weft moments STORE/ --window S:E` (computed from
// the same level-0 records); in between they come from the pyramid's bins (m0 within two bins of the exact).
test('Utilization & moments on a store: stored moments, exact windows at level 0, bins between', { timeout: 600_000 }, async () => {
  const { store } = ensureStore();
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  const cli = (...args) => JSON.parse(execFileSync(weftBin, ['moments', store, '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  const byLoc = (rows) => new Map(rows.map((r) => [r.location, r]));
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, store)}/`);
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
    await settled(page);
    const tabs = await page.evaluate(() => window.weft.viewer.views());
    assert.deepEqual(tabs, ['timeline', 'moments', 'particles'], 'a store offers Utilization & moments and Particles');
    await page.click('#views button[data-view="moments"]');
    await settled(page);
    let st = await viewState(page);
    assert.equal(st.view, 'moments');
    assert.equal(st.rows.length, manifest.locations.process.length);
    assert.ok(st.store.exact, 'the whole run: the stored moments');
    const whole = byLoc(cli());
    for (const r of st.rows) {
      const w = whole.get(r.location);
      assert.equal(r.m0_ns, w.m0_ns, `location ${r.location} m0`);
      assert.ok(Math.abs(r.m1_ns - w.m1_ns) <= 1e-9 * Math.abs(w.m1_ns), `location ${r.location} m1 ${r.m1_ns} vs ${w.m1_ns}`);
    }
    const stats = await page.evaluate(() => window.weft.viewer.stats());
    assert.ok(stats.marks > 0, 'the Gantt chart and the moment view draw');

    // A window drawn from the pyramid's bins.
    const span = manifest.span_ns;
    const zoomTo = async (t0, t1) => { await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [t0, t1]); await settled(page); };
    await zoomTo(span * 0.05, span * 0.95);
    st = await viewState(page);
    assert.match(st.store.shown, /^level \d+$/);
    assert.equal(st.store.exact, false);
    const level = manifest.levels.find((l) => `level ${l.level}` === st.store.shown);
    const binned = byLoc(cli('--window', `${st.window.start_ns}:${st.window.end_ns}`));
    for (const r of st.rows) {
      assert.ok(Math.abs(r.m0_ns - binned.get(r.location).m0_ns) <= 2 * level.bin_ns, `m0 ${r.m0_ns} vs ${binned.get(r.location).m0_ns}, bins of ${level.bin_ns} ns`);
    }

    // Zoomed in past level 1: the exact records, the window's moments as the CLI computes them.
    await zoomTo(span * 0.41, span * 0.41 + manifest.levels[0].bin_ns * 150);
    st = await viewState(page);
    assert.equal(st.store.shown, 'exact');
    assert.equal(st.store.exact, true);
    const exact = byLoc(cli('--window', `${st.window.start_ns}:${st.window.end_ns}`));
    let busy = 0;
    for (const r of st.rows) {
      const w = exact.get(r.location);
      assert.equal(r.m0_ns, w.m0_ns, `location ${r.location} m0 in the window`);
      if (w.m0_ns > 0) {
        busy += 1;
        assert.ok(Math.abs(r.m1_ns - w.m1_ns) <= 1e-6 * Math.max(1, Math.abs(w.m1_ns)), `m1 ${r.m1_ns} vs ${w.m1_ns}`);
        assert.ok(Math.abs(r.m2_ns - w.m2_ns) <= 1e-6 * Math.max(1, Math.abs(w.m2_ns)), `m2 ${r.m2_ns} vs ${w.m2_ns}`);
      }
    }
    assert.ok(busy > 0, 'some location is busy in the window');
    // Another busy definition is asked of the store worker.
    await page.evaluate(() => window.weft.viewer.configure('busy', 'any'));
    await settled(page);
    st = await viewState(page);
    assert.equal(st.busy, 'any');
    const any = byLoc(cli('--busy', 'any', '--window', `${st.window.start_ns}:${st.window.end_ns}`));
    for (const r of st.rows) assert.equal(r.m0_ns, any.get(r.location).m0_ns);
    // Back to the timeline: it is drawn at the moments view's time range.
    await page.click('#views button[data-view="timeline"]');
    await settled(page);
    st = await viewState(page);
    assert.equal(st.view, 'timeline');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

// The Rows panel and row options on a store: a click on a process header folds it (in the summary rows and in
// the exact slice alike), compact rows fit every location in the window, a click on the summary rows selects
// nothing and the Profile and message panels say to zoom in rather than fail.
test('Rows on a store: fold by a header click, compact rows, clicks on summary rows', { timeout: 300_000 }, async () => {
  const { store } = ensureStore();
  const { server, url } = await startServer();
  const b = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, store)}/`);
  const page = b.page;
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
    await frames(page, 3);
    await page.click('#rows-toggle');
    const list = await page.evaluate(() => window.weft.viewer.timeline_locations('', 0, 100));
    assert.equal(list.matched, 32);
    const st0 = await viewState(page);
    const box = await page.locator('canvas').first().boundingBox();
    await page.mouse.click(box.x + 40, box.y + st0.axis_px + 8);
    const st1 = await viewState(page);
    assert.equal(st1.folded, '0', 'the first process folded by a click on its header');
    assert.equal(st1.rows.filter((r) => r.process_id === 0).every((r) => r.folded), true);
    // A click on the summary rows' track selects nothing and raises no error.
    await page.mouse.click(box.x + 600, box.y + st1.rows[3].y + 10);
    await page.evaluate(() => window.weft.viewer.configure('compact', 'true'));
    const st2 = await viewState(page);
    const bottom = Math.max(...st2.rows.map((r) => r.y + r.height));
    assert.ok(st2.rows.length === 32 && bottom <= st2.height, `compact rows fit: ${st2.rows.length} rows to ${bottom} px of ${st2.height}`);
    // Zoomed in to level 0: the exact slice keeps the fold and the compact rows, at the same places.
    const n = await page.evaluate(() => window.weft.store.answers);
    await page.evaluate(() => window.weft.viewer.set_time_range(1.9e9, 1.9e9 + 2e5));
    await page.waitForFunction((n) => window.weft.store.answers > n, n, { timeout: 60_000 });
    await page.waitForFunction(() => window.weft.viewer.view_state().store.shown === 'exact', null, { timeout: 60_000 });
    const st3 = await viewState(page);
    assert.deepEqual(st3.rows.map((r) => [r.location, r.y, r.height]), st2.rows.map((r) => [r.location, r.y, r.height]));
    assert.equal(st3.folded, '0');
    assert.deepEqual(await page.evaluate(() => window.weft.errors), []);
    assert.deepEqual(b.problems, []);
  } finally {
    await b.browser.close();
    server.close();
  }
});

// Counter tracks on a store (format 5): an archive with two PAPI counters per rank, indexed into small tiles
// (16 windows, 3 levels, one series per block), opened from a URL and scrolled to its counter tracks: zoomed
// out they are drawn from the counter pyramid (a track's hover names the bins' samples in the pixel, their
// extremes within the series' whole-run extremes); zoomed in, from the exact samples (hover: the sample in
// effect at the pointer, at or before its time); the tracks keep the whole run's scale; a damaged counter
// tile is named and the rest drawn.
test('Counter tracks on a store: pyramid bins zoomed out, exact samples zoomed in', { timeout: 300_000 }, async () => {
  const dir = path.join(outDir, 'store-counters');
  const store = path.join(dir, 'store');
  if (!fs.existsSync(weftBin)) execFileSync('cargo', cargoArgs('build', '--bin', 'weft'), { cwd: repoRoot, stdio: 'inherit' });
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(weftBin, ['generate', 'otf2', '-o', path.join(dir, 'trace'), '--ranks', '4', '--events', '1500000', '--metrics', '2']);
  execFileSync(weftBin, ['index', path.join(dir, 'trace'), '-o', store, '--block', '1', '--tile-intervals', '8000']);
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  assert.equal(manifest.version, 8);
  assert.ok(manifest.tiling.windows >= 8 && manifest.levels.length >= 3, JSON.stringify(manifest.tiling));
  const { server, url } = await startServer();
  const b = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, store)}/`);
  const page = b.page;
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
    await settled(page);
    let st = await viewState(page);
    assert.match(st.store.shown, /^level \d+$/);
    assert.equal(st.counters.series.length, 8, 'two counters on each of four ranks');
    // Scrolled to the bottom: the counter tracks on screen are asked for and drawn from their bins.
    await page.evaluate(() => window.weft.viewer.scroll(1e9));
    await settled(page);
    st = await viewState(page);
    const level = Number(st.store.shown.split(' ')[1]);
    assert.equal(st.counters.answer.level, level, 'the bins of the rows\' level');
    const onScreen = st.counters.tracks.filter((t) => t.y >= st.axis_px && t.y + st.counters.track_px <= st.height);
    assert.ok(onScreen.length >= 4, `tracks on screen: ${JSON.stringify(st.counters.tracks)}`);
    await screenshot(page, 'store-counters-bins');
    const x = st.track_x0 + (st.width - st.track_x0) * 0.6;
    const tr = onScreen[0];
    const series = st.counters.series[tr.series];
    assert.ok(series.samples > 0 && series.max > series.min, JSON.stringify(series));
    const h = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, tr.y + 20]);
    assert.ok(h && h.title === series.name, `hover ${JSON.stringify(h)} names ${series.name}`);
    assert.equal(h.detail.level, level);
    assert.ok(h.detail.column_samples > 0, JSON.stringify(h));
    assert.ok(h.detail.column_min >= series.min && h.detail.column_max <= series.max && h.detail.value >= series.min, JSON.stringify([h, series]));
    const stats = await page.evaluate(() => window.weft.viewer.stats());
    assert.ok(stats.marks > 100, JSON.stringify(stats));

    // Zoomed into a short window: exact samples, on the same scale.
    const t0 = manifest.span_ns * 0.4;
    await page.evaluate(([a, b]) => window.weft.viewer.set_time_range(a, b), [t0, t0 + 2e5]);
    await settled(page);
    st = await viewState(page);
    assert.equal(st.store.shown, 'exact');
    const exactSeries = st.counters.series[tr.series];
    assert.deepEqual([exactSeries.min, exactSeries.max], [series.min, series.max], 'the whole run\'s scale zoomed in');
    const ex = st.counters.tracks.find((t) => t.series === tr.series);
    const xe = st.track_x0 + (st.width - st.track_x0) * 0.5;
    const he = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [xe, ex.y + 20]);
    assert.ok(he && he.title === series.name && he.detail.counter === tr.series, JSON.stringify(he));
    const tPointer = st.t0_ns + (st.t1_ns - st.t0_ns) * 0.5;
    assert.ok(he.detail.time_ns <= tPointer + (st.t1_ns - st.t0_ns) / (st.width - st.track_x0), `the sample in effect at the pointer: ${JSON.stringify(he)}`);
    assert.ok(he.detail.value >= series.min && he.detail.value <= series.max, JSON.stringify(he));
    await screenshot(page, 'store-counters-exact');
    // The Counters menu's list and its hiding, zoomed in (the exact slice's tracks) and out.
    const menu = await page.evaluate(() => window.weft.viewer.timeline_counters());
    assert.equal(menu.series.length, 8);
    assert.ok(await page.evaluate((s) => window.weft.viewer.timeline_set_counter_shown(s, false), tr.series));
    st = await viewState(page);
    assert.ok(!st.counters.tracks.some((t) => t.series === tr.series) && st.counters.tracks.length === 7, JSON.stringify(st.counters.tracks));
    await page.evaluate(() => window.weft.viewer.fit());
    await settled(page);
    st = await viewState(page);
    assert.match(st.store.shown, /^level \d+$/);
    assert.ok(!st.counters.tracks.some((t) => t.series === tr.series) && st.counters.tracks.length === 7, JSON.stringify(st.counters.tracks));
    assert.deepEqual(await page.evaluate(() => window.weft.errors), []);
    assert.deepEqual(b.problems, []);
  } finally {
    await b.browser.close();
  }
  // The last series block's counter summary tiles damaged: named, the rest drawn.
  const broken = path.join(dir, 'broken');
  const lastBlock = Math.max(...manifest.tiles.filter((t) => t.kind === 'counter_summary').map((t) => t.block));
  assert.ok(lastBlock >= 1, 'several series blocks');
  copyStore(store, broken, (d) => {
    for (const t of manifest.tiles.filter((t) => t.kind === 'counter_summary' && t.block === lastBlock)) {
      const f = path.join(d, t.path);
      fs.writeFileSync(f, fs.readFileSync(f).subarray(0, 10));
    }
  });
  const c = await openPage('webgpu', `${url}?store=${url}${path.relative(repoRoot, broken)}/`);
  try {
    await c.page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 60_000 });
    await settled(c.page);
    await c.page.evaluate(() => window.weft.viewer.scroll(1e9));
    await settled(c.page);
    const st = await viewState(c.page);
    const named = new RegExp(`k/l\\d+/b${lastBlock}/t\\d+\\.[0-9a-f]+\\.wt`);
    assert.ok(st.store.errors.length > 0 && st.store.errors.every((e) => named.test(e)), JSON.stringify(st.store.errors));
    const stats = await c.page.evaluate(() => window.weft.viewer.stats());
    assert.ok(stats.marks > 100, 'the other tracks and the rows are drawn');
  } finally {
    await c.browser.close();
    server.close();
  }
});
