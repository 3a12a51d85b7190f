// What the zoom-latency benchmark (bench/bench-zoom.mjs) and test (specs/zoom-latency.test.mjs) share: one
// move of a store's view on the page, timed to the frame that draws its answer (issue #58).

/** Change a store's view by `move` (`{op: 'range', a, b}`, `{op: 'fit'}` or `{op: 'pan', frac}` of the
 *  width), then wait for the answer to the viewport asked after it to be drawn: the first animation frame
 *  after the page says it was applied (`weft.store.answered`), which runs after the page's own frame callback
 *  has drawn it; or, where the page asked nothing (it held the answer), the first frame after the change.
 *  Returns `changeToDrawnMs`, `readyMs` (to the answer applied and its frame issued, without waiting for the
 *  frame before to be rasterised), `changeToRasteredMs`, `held`, the frame's `Viewer.stats`, what is shown, and
 *  the page's log entry for the answer (`weft.store.zoomLog`), where it keeps one. */
export const zoomStep = (page, move, timeout = 120_000) => page.evaluate(async ([move, timeout]) => {
  const s = window.weft.store;
  // Animation frames come once the GPU process has drawn the frames before (SwiftShader rasterises them on
  // the CPU: a dense view ~0.2-2 s on this machine). Wait until it is idle (two frames 40 ms or less apart),
  // as a person's next move after looking finds it, then time from the change; `rasterMs`: to when it is
  // idle again (the frame drawn and shown).
  const idle = async (limit) => {
    let last = performance.now();
    let short = 0;
    const end = last + limit;
    while (short < 2 && performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
      const t = performance.now();
      short = t - last <= 40 ? short + 1 : 0;
      last = t;
    }
    return last;
  };
  // A page that redraws every frame (the store view before session 38) is never idle: 2 s at most.
  await idle(2000);
  const askedBefore = s.asked || 0;
  const logged = s.zoomLog ? s.zoomLog.length : 0;
  const t0 = performance.now();
  const v = window.weft.viewer;
  if (move.op === 'range') v.set_time_range(move.a, move.b);
  else if (move.op === 'fit') v.fit();
  else v.pan(move.frac * v.view_state().width);
  let first = true;
  let held = false;
  // The frame that drew it (Viewer.stats: its scene built, then drawn; rects and lines).
  let stats = null;
  const drawn = await new Promise((resolve, reject) => {
    const until = t0 + timeout;
    const check = () => {
      const t = performance.now();
      const asked = s.asked || 0;
      // The first frame after the change drew it and asked for its viewport; nothing asked: the page drew it
      // from the answer it holds.
      if (first && asked === askedBefore) {
        held = true;
        stats = window.weft.viewer.stats();
        resolve(t);
      } else if (asked > askedBefore && s.answered >= asked && window.weft.viewer.view_state().store.in_flight === 0) {
        stats = window.weft.viewer.stats();
        resolve(t);
      } else if (t > until) reject(new Error(`no answer: asked ${asked}, answered ${s.answered}`));
      else requestAnimationFrame(check);
      first = false;
    };
    requestAnimationFrame(check);
  });
  // The page's own log entry for the answer drawn (logged a frame after it is drawn).
  let entry = null;
  if (s.zoomLog && !held) {
    const end = performance.now() + 10_000;
    while (!(entry = s.zoomLog.slice(logged).find((e) => e.id === s.answered)) && performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
    }
  }
  const rastered = await idle(2000);
  const st = window.weft.viewer.view_state();
  const frame = stats && { buildMs: +stats.build_ms.toFixed(1), drawMs: +stats.draw_ms.toFixed(1), rects: stats.rects, lines: stats.lines };
  // Ready: the answer applied and its frame built and issued (Viewer.frame), without the wait for the GPU
  // process to rasterise the frame before it (the stretched view drawn at the change), which is the software
  // rasteriser's, not the answer's.
  const frameMs = stats ? stats.build_ms + stats.draw_ms : 0;
  const readyMs = entry ? entry.times.applied - (performance.timeOrigin + t0) + frameMs : drawn - t0;
  return { changeToDrawnMs: +(drawn - t0).toFixed(1), readyMs: +readyMs.toFixed(1), changeToRasteredMs: +(rastered - t0).toFixed(1), shown: st.store.shown, held, frame, entry };
}, [move, timeout]);

/** A whole file's view (the page holds the trace: no worker, no transfer) changed by `move` (as [`zoomStep`]),
 *  timed on the page: the GPU process let go idle first (as zoomStep), then `sceneMs` (the frame's scene built:
 *  the rows' layout over the model, Viewer.stats build_ms), `drawMs` (issued to the GPU), `readyMs` (change to
 *  that frame built and issued: the answer, as a store's readyMs), `changeToDrawnMs` (to the animation frame
 *  after it: includes the wait for SwiftShader to rasterise the frame before), `changeToRasteredMs` (to the GPU
 *  process idle again: the new frame rasterised), and what the frame drew. */
export const fileZoomStep = (page, move, timeout = 120_000) => page.evaluate(async ([move, timeout]) => {
  const idle = async (limit) => {
    let last = performance.now();
    let short = 0;
    const end = last + limit;
    while (short < 2 && performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
      const t = performance.now();
      short = t - last <= 40 ? short + 1 : 0;
      last = t;
    }
    return last;
  };
  const v = window.weft.viewer;
  // Count the frames the page draws (Viewer.frame returns whether it drew).
  if (!v.framesDrawn) {
    const frame = v.frame.bind(v);
    v.framesDrawn = 0;
    v.frame = () => { const drew = frame(); if (drew) v.framesDrawn += 1; return drew; };
  }
  await idle(2000);
  const drawnBefore = v.framesDrawn;
  const t0 = performance.now();
  if (move.op === 'range') v.set_time_range(move.a, move.b);
  else if (move.op === 'fit') v.fit();
  else v.pan(move.frac * v.view_state().width);
  const changeMs = performance.now() - t0;
  // The page's frame loop (app.js) draws in the next animation frame, before this callback (registered later).
  const until = t0 + timeout;
  let stats = null;
  const drawn = await new Promise((resolve, reject) => {
    const check = () => {
      if (v.framesDrawn > drawnBefore) { stats = v.stats(); resolve(performance.now()); }
      else if (performance.now() > until) reject(new Error('no frame drawn after the move'));
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
  const rastered = await idle(2000);
  const st = v.view_state();
  return { changeMs: +changeMs.toFixed(1), sceneMs: +stats.build_ms.toFixed(1), drawMs: +stats.draw_ms.toFixed(1), readyMs: +(changeMs + stats.build_ms + stats.draw_ms).toFixed(1),
    changeToDrawnMs: +(drawn - t0).toFixed(1), changeToRasteredMs: +(rastered - t0).toFixed(1), rects: stats.rects, lines: stats.lines, windowNs: st.t1_ns - st.t0_ns };
}, [move, timeout]);

/** The `p`th percentile of the finite numbers of `xs` (nearest rank), or null. */
export const percentile = (xs, p) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return v.length ? +v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)].toFixed(1) : null;
};


/** Wall time over the CPU time this process gets for a busy loop of ~200 ms wall: 1 on an idle machine, about
 *  the number of runnable threads per core on a loaded one (specs/longtask.test.mjs measures the same). */
export function contention() {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let x = 0;
  while (Number(process.hrtime.bigint() - t0) < 200e6) for (let k = 0; k < 1e5; k++) x = (x + Math.sqrt(k)) % 1e9;
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return Math.max(1, wall / Math.max(1, (c.user + c.system) / 1000)) + (x < 0 ? 1 : 0);
}
