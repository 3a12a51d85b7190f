// A store's timeline asks the worker again whenever its view needs another answer, and never loses one it
// wants (issue #58, `views::store::StorePane::request`, www/store.js, www/store-worker.js):
// - an answer for a view left for one that the exact answer held draws (panned past its margin and back)
//   is dropped: it would replace the answer covering the view with one that does not, and the view would be
//   asked for a second time;
// - another view's answer (Utilization & moments) does not stop the timeline's exact answer being made
//   drawable: the timeline, shown again, draws it (before, it kept the coarser answer and never asked again).
// Hooks on `weft.viewer` make the order of events certain: a move at the moment of an ask, an exact answer
// held half built until the other view's answer came (its tab clicked as the exact answer is begun).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, repoRoot } from '../lib/harness.mjs';
import { generatedStore } from '../lib/store-gen.mjs';
import { zoomStep } from '../lib/zoom.mjs';

const frames = (page, n) => page.evaluate((n) => new Promise((resolve) => {
  const one = (k) => (k ? requestAnimationFrame(() => one(k - 1)) : resolve());
  one(n);
}), n);

test('the timeline drops answers for views it left and keeps its answers across views', { timeout: 600_000 }, async () => {
  const { store } = generatedStore(Number(process.env.STORE_EVENTS || 20_000_000));
  const manifest = JSON.parse(fs.readFileSync(path.join(store, 'manifest.json'), 'utf8'));
  const { server, url } = await startServer();
  // `PAGE_DIR`: another page build to run this against (an older commit's index.html and www/ under the
  // repository), to see it fail there.
  const base = process.env.PAGE_DIR ? `${url}${process.env.PAGE_DIR.replace(/\/?$/, '/')}` : url;
  const { browser, page, problems } = await openPage('webgpu', `${base}index.html?store=${url}${path.relative(repoRoot, store)}/`);
  try {
    await page.waitForFunction(() => window.weft.store.answers >= 1, null, { timeout: 120_000 });
    const span = manifest.span_ns;
    const mid = span / 2;
    // Zoom in about the middle to the second exact window (the first may be answered without its margin).
    let exact = 0;
    let w = span / 4;
    for (; w > 1000; w /= 4) {
      if ((await zoomStep(page, { op: 'range', a: mid - w / 2, b: mid + w / 2 })).shown === 'exact' && ++exact === 2) break;
    }
    assert.equal(exact, 2, 'zoomed in to exact windows');
    let st = await page.evaluate(() => window.weft.viewer.view_state());
    const held = st.store.covered;
    assert.ok(held.t0_ns < mid - w / 2 && held.t1_ns > mid + w / 2, `the answer held reaches past the view: ${JSON.stringify(held)}`);

    // 1. Panned past the answer's margin (D), and at the moment D is asked, back inside it (C).
    const C = [held.t0_ns + w / 8, held.t0_ns + w / 8 + w];
    const D = [Math.min(held.t1_ns + 2 * w, span - w), Math.min(held.t1_ns + 3 * w, span)];
    assert.ok(D[0] - w / 2 > C[1], 'the answer for D does not reach C');
    const r1 = await page.evaluate(async ([C, D]) => {
      const s = window.weft.store;
      const v = window.weft.viewer;
      const ask = v.store_request.bind(v);
      let askedD = null;
      v.store_request = () => {
        const vp = ask();
        if (vp && askedD === null) {
          askedD = (s.asked || 0) + 1;
          v.set_time_range(C[0], C[1]);
        }
        return vp;
      };
      const dropped0 = s.dropped || 0;
      v.set_time_range(D[0], D[1]);
      const end = performance.now() + 60_000;
      // D's answer came: applied (a page that takes it) or dropped.
      while (!(askedD !== null && (s.answered >= askedD || (s.dropped || 0) > dropped0)) && performance.now() < end) {
        await new Promise((r) => requestAnimationFrame(r));
      }
      const came = askedD !== null && (s.answered >= askedD || (s.dropped || 0) > dropped0);
      // A few frames for any ask that follows.
      for (let k = 0; k < 10; k++) await new Promise((r) => requestAnimationFrame(r));
      delete v.store_request;
      return { came, askedD, askedAfter: s.asked, dropped: (s.dropped || 0) - dropped0, st: v.view_state() };
    }, [C, D]);
    assert.ok(r1.came, 'the answer for D came');
    assert.equal(r1.askedAfter, r1.askedD, 'nothing asked after D: the view C is drawn from the answer held');
    assert.equal(r1.dropped, 1, 'the answer for D was dropped');
    assert.equal(r1.st.store.shown, 'exact');
    assert.deepEqual(r1.st.store.covered, held, 'the answer held is still the one drawn');

    // 2. From the whole run, zoomed in to an exact window; its answer held half built until the Utilization &
    // moments view, switched to meanwhile, has its answer; back on the timeline, the exact answer is drawn.
    await zoomStep(page, { op: 'fit' });
    const E = [mid - w / 2 + 3 * w, mid + w / 2 + 3 * w];
    const r2 = await page.evaluate(async (E) => {
      const v = window.weft.viewer;
      const begin = v.store_exact_begin.bind(v);
      const step = v.store_step.bind(v);
      const answer = v.store_answer.bind(v);
      let other = false;
      let begun = false;
      // The page's steps yield by scheduler.yield, whose continuations come before other tasks: held back by
      // the step hook below they would starve the tab click, frames and the worker's answer. Timers meanwhile.
      const yielding = globalThis.scheduler && scheduler.yield;
      if (yielding) scheduler.yield = () => new Promise((r) => setTimeout(r, 10));
      const tab = (view) => document.querySelector(`#views button[data-view="${view}"]`).click();
      let begunWith = null;
      // (The first exact answer only: the second part of the same ask, its margin, comes after it is drawn.)
      v.store_exact_begin = (...a) => {
        const first = !begun;
        begun = true;
        begunWith ??= [a[2], a[3], a[4]];
        const r = begin(...a);
        if (first) setTimeout(() => tab('moments'), 0);
        return r;
      };
      v.store_step = () => (other ? step() : false);
      v.store_answer = (kind, ...a) => { const r = answer(kind, ...a); if (kind === 'busy') other = true; return r; };
      v.set_time_range(E[0], E[1]);
      const until = async (f, ms) => {
        const end = performance.now() + ms;
        while (!f() && performance.now() < end) await new Promise((r) => requestAnimationFrame(r));
        return f();
      };
      const busy = await until(() => begun && other, 60_000);
      tab('timeline');
      const drawn = await until(() => v.view_state().store.shown === 'exact', 30_000);
      if (yielding) scheduler.yield = yielding;
      delete v.store_exact_begin;
      delete v.store_step;
      delete v.store_answer;
      return { begun, busy, drawn, st: v.view_state(), view: v.view(), asked: window.weft.store.asked, answered: window.weft.store.answered, dropped: window.weft.store.dropped, begunWith, E, log: window.weft.store.zoomLog.map((e) => [e.id, e.kind]), last: window.weft.store.last && [window.weft.store.last.t0, window.weft.store.last.t1] };
    }, E);
    assert.ok(r2.begun && r2.busy, `the exact answer was begun and the moments view answered meanwhile: ${JSON.stringify({ ...r2, st: r2.st.store })}`);
    assert.ok(r2.drawn, `back on the timeline its exact answer is drawn (shown: ${r2.st.store.shown})`);
    assert.ok(r2.st.store.covered.t0_ns <= E[0] + 1 && r2.st.store.covered.t1_ns >= E[1] - 1, 'for the view');
    await frames(page, 2);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
