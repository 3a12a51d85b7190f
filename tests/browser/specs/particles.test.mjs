// The particle animation in the page, on WebGPU and WebGL2: the pattern sample plays, pauses, a hovered
// particle's tooltip names an event the generator wrote (call, rank, start, duration), the history shows on
// screen where the model's density raster says it is after playing and goes after "Clear history", and the
// draw calls per frame stay constant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady, screenshot, viewState, stageOrigin, BACKENDS } from '../lib/harness.mjs';

// The generator's times (crates/samples/src/particles.rs, module `pattern`), in ns.
const P = {
  commSplit: [0, 50_000], commDup: [100_000, 30_000], sync: [1_000_000, 200_000],
  delay: 2_000_000, delayStep: 10_000, delayDur: 500_000,
  group: 4_000_000, phase: 1_000_000, waitOffset: 10_000, waitDur: 980_000,
  bursts: 10, burst: 90_000, burstOffset: 20_000, bcast: 20_000, isend: 5_000, waitall: 15_000,
};
const RANKS = 64;

/** Every (start, duration) the generator wrote for `call` on `rank`. */
function patternEvents(call, rank) {
  const out = [];
  if (call === 'MPI_Comm_split') out.push(P.commSplit);
  if (call === 'MPI_Comm_dup') out.push(P.commDup);
  if (call === 'MPI_Allreduce') out.push(P.sync);
  if (call === 'MPI_Recv') out.push([P.delay + rank * P.delayStep, P.delayDur]);
  for (let k = 0; k < 8; k++) {
    const s = P.group + k * P.phase;
    if (Math.floor(rank / 8) === k) {
      for (let b = 0; b < P.bursts; b++) {
        const t = s + P.burstOffset + b * P.burst;
        if (call === 'MPI_Bcast') out.push([t, P.bcast]);
        if (call === 'MPI_Isend') out.push([t + P.bcast, P.isend]);
        if (call === 'MPI_Waitall') out.push([t + P.bcast + P.isend, P.waitall]);
      }
    } else if (call === 'MPI_Recv') out.push([s + P.waitOffset, P.waitDur]);
  }
  return out;
}

const frames = (page, n = 2) => page.evaluate((n) => new Promise((r) => {
  const f = (k) => (k === 0 ? r() : requestAnimationFrame(() => f(k - 1)));
  f(n);
}), n);
const BG = [0x14, 0x17, 0x1c];
const isBg = (p) => Math.abs(p[0] - BG[0]) + Math.abs(p[1] - BG[1]) + Math.abs(p[2] - BG[2]) < 12;

for (const backend of Object.keys(BACKENDS)) {
  test(`particle animation on ${backend}`, { timeout: 240_000 }, async () => {
    const { server, url } = await startServer();
    const { browser, page, problems } = await openPage(backend, url);
    try {
      await page.selectOption('#samples', 'particles');
      await waitReady(page, 2);
      await page.click('#views button[data-view="particles"]');
      await frames(page);
      let st = await viewState(page);
      assert.equal(st.view, 'particles');
      assert.equal(st.events, RANKS * (4 + 7 + 3 * P.bursts));
      assert.equal(st.processes, RANKS);
      assert.deepEqual(st.legend.map((l) => l.name).sort(),
        ['MPI_Allreduce', 'MPI_Bcast', 'MPI_Comm_dup', 'MPI_Comm_split', 'MPI_Isend', 'MPI_Recv', 'MPI_Waitall']);
      assert.equal(await page.locator('#particle-legend .legend-item').count(), 7);
      const origin = await stageOrigin(page);
      const before = await screenshot(page, `particles-${backend}-start`);

      // Fast playback: 50 us of data per 50 ms of animation (1 ms/s), so particles fade over 2 ms of data.
      await page.fill('#particles-step-ns', '50000');
      await page.dispatchEvent('#particles-step-ns', 'change');
      await page.fill('#particles-interval', '50');
      await page.dispatchEvent('#particles-interval', 'change');
      st = await viewState(page);
      assert.equal(st.step_ns, 50_000);
      assert.equal(st.fade_ns, 2_000_000);
      assert.equal(st.speed, '1.000 ms/s');

      await page.click('#particles-play');
      // Into the second group phase (5 ms): the first phases' events have faded into the history.
      const calls = [];
      await page.waitForFunction((calls) => {
        calls.push(window.weft.viewer.stats().draw_calls);
        return window.weft.viewer.view_state().t_ns > 5_300_000;
      }, calls, { timeout: 60_000, polling: 'raf' });
      const playing = await viewState(page);
      assert.ok(playing.playing && playing.splatted > 0, `playing advances data time and fills the history: ${JSON.stringify({ ...playing, running: undefined, legend: undefined })}`);
      const drawCalls = await page.evaluate(() => window.weft.viewer.stats().draw_calls);
      assert.ok(drawCalls >= 4 && drawCalls <= 5, `history, rects, lines, particles (+ splats): ${drawCalls} draw calls`);

      // Pause: time stands still.
      await page.click('#particles-play');
      const paused = await viewState(page);
      await screenshot(page, `particles-${backend}-paused`);
      await page.waitForTimeout(300);
      await frames(page, 3);
      let still = await viewState(page);
      assert.equal(still.playing, false);
      assert.equal(still.t_ns, paused.t_ns, 'paused: data time stands still');
      // Between two phases nothing runs: step on (one data time step each) to the next running call.
      for (let i = 0; i < 20 && !still.running.length; i++) {
        await page.click('#particles-step');
        still = await viewState(page);
        assert.equal(still.t_ns, paused.t_ns + (i + 1) * 50_000, 'Step advances one data time step');
      }

      // Hover running particles: the tooltip names an event the generator wrote.
      assert.ok(still.running.length > 0, `running particles at ${still.t_ns} ns`);
      for (const r of still.running.slice(0, 5)) {
        const hit = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [r.x, r.y]);
        await page.mouse.move(origin.x + r.x, origin.y + r.y);
        await page.waitForSelector('#tooltip:not([hidden])');
        assert.ok(hit, `a particle at (${r.x}, ${r.y})`);
        const d = hit.detail;
        const known = patternEvents(d.call, d.rank);
        assert.ok(known.some(([s, dur]) => s === d.start_ns && dur === d.dur_ns),
          `${d.call} on rank ${d.rank} at ${d.start_ns} for ${d.dur_ns} is one the generator wrote`);
        assert.ok(d.start_ns <= still.t_ns && d.end_ns === d.start_ns + d.dur_ns);
        const tip = await page.textContent('#tooltip');
        assert.ok(tip.includes(d.call) && tip.includes(`${d.process} · `) && tip.includes('duration'), tip);
      }
      await page.mouse.move(origin.x + 2, origin.y + 2);

      // The history is on screen where the model's raster has density (and was background before playing).
      await page.click('#particles-clear-fading');
      await frames(page, 3);
      const hist = await viewState(page);
      assert.ok(hist.max_density >= 1 && hist.history.length > 0, 'the history has density');
      const shot = await screenshot(page, `particles-${backend}-history`);
      const wasBg = hist.history.filter(([x, y]) => isBg(before.pixel(origin.x + x, origin.y + y)));
      assert.ok(wasBg.length > 0, 'history samples on background');
      const shown = wasBg.filter(([x, y]) => !isBg(shot.pixel(origin.x + x, origin.y + y)));
      assert.ok(shown.length >= wasBg.length * 0.9, `history drawn at ${shown.length} of ${wasBg.length} sampled pixels`);

      // Clear history: those pixels are background again (running particles aside).
      await page.click('#particles-clear-history');
      await frames(page, 5);
      const cleared = await screenshot(page, `particles-${backend}-cleared`);
      // Running particles stay drawn (the view is paused, not cleared): samples under one do not count.
      const live = (await viewState(page)).running;
      const underParticle = ([x, y]) => live.some((r) => Math.hypot(r.x - x, r.y - y) <= 8);
      const free = wasBg.filter((p) => !underParticle(p));
      const left = free.filter(([x, y]) => !isBg(cleared.pixel(origin.x + x, origin.y + y)));
      assert.ok(free.length > 0 && left.length <= free.length * 0.1, `cleared: ${left.length} of ${free.length} still drawn`);
      assert.equal((await viewState(page)).max_density, 0);

      // Dragging the timeline cursor seeks.
      const tl = hist.timeline;
      await page.mouse.move(origin.x + (tl.x0 + tl.x1) / 2, origin.y + tl.y0 + 40);
      await page.mouse.down();
      await page.mouse.up();
      const sought = await viewState(page);
      assert.ok(Math.abs(sought.t_ns - sought.span_ns / 2) < sought.span_ns * 0.01, `cursor at the middle: ${sought.t_ns}`);

      // The stacked timeline zooms about the pointer with the wheel, as the timeline does; 'f' fits it again.
      await page.mouse.move(origin.x + (tl.x0 + tl.x1) / 2, origin.y + tl.y0 + 40);
      await page.mouse.wheel(0, -400);
      await frames(page);
      const zoomed = await viewState(page);
      assert.ok(zoomed.t1_ns - zoomed.t0_ns < zoomed.span_ns / 2, `zoomed: ${zoomed.t0_ns}..${zoomed.t1_ns}`);
      assert.ok(Math.abs((zoomed.t0_ns + zoomed.t1_ns) / 2 - zoomed.span_ns / 2) < zoomed.span_ns * 0.01, 'about the pointer');
      await screenshot(page, `particles-${backend}-strip-zoomed`);
      await page.keyboard.press('f');
      const fitted = await viewState(page);
      assert.deepEqual([fitted.t0_ns, fitted.t1_ns], [0, fitted.span_ns]);
      // Playback began at the first event; the legend's entries have a colour each.
      assert.equal(st.first_event_ns, 0, 'the sample starts with MPI_Comm_split');
      assert.equal(new Set(st.legend.map((l) => l.color)).size, st.legend.length);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      server.close();
    }
  });
}
