// Rows that fit, on the real 32-rank Score-P stencil from ../shared/traces (skipped, saying so, when absent)
// and on a generated Chrome trace of 4 processes x 3 threads: the compact-rows checkbox puts every rank in
// the viewport; a click on a process header folds its threads into one row and another click restores them;
// the Rows panel's filter and checklist hide a location (kept in the link as `hide`) and "Show all" brings it
// back; a click on the overview strip centres the window there; zoomed in, the axis labels times relative to
// the window's start, which it shows once. Screenshots go to tests/out/rows-*.png. WebGL2 only: nothing here
// depends on the backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { startServer, openPage, waitReady, viewState, stageOrigin, screenshot, dropFile, repoRoot } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const STENCIL = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** 4 processes of 3 threads, each thread busy in its own third of every 3 ms. */
function threadsTrace() {
  const events = [];
  for (let p = 0; p < 4; p++) {
    events.push({ ph: 'M', name: 'process_name', pid: p, tid: 0, args: { name: `Proc ${p}` } });
    for (let t = 0; t < 3; t++) {
      events.push({ ph: 'M', name: 'thread_name', pid: p, tid: t, args: { name: `worker ${t}` } });
      for (let k = 0; k < 10; k++) events.push({ ph: 'X', name: `step${t}`, pid: p, tid: t, ts: k * 3000 + t * 1000, dur: 900 });
    }
  }
  return Buffer.from(JSON.stringify({ traceEvents: events }));
}

test('rows fit, fold, filter; the overview moves the window; the axis is relative zoomed in', { timeout: 240_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1400, height: 800 });
  try {
    // ---- fold and expand, filter, overview: a generated trace (a fresh machine tests it) ----
    await dropFile(page, 'threads.json', threadsTrace());
    await waitReady(page, 2);
    const o = await stageOrigin(page);
    let vs = await viewState(page);
    assert.equal(vs.row_count, 12);
    const before = vs.rows;
    const proc1 = vs.rows.filter((r) => r.process === 'Proc 1');
    assert.equal(proc1.length, 3);
    // The header's band is just above the process's first row.
    await page.mouse.click(o.x + 40, o.y + proc1[0].y - 11);
    await frames(page);
    vs = await viewState(page);
    const folded = vs.rows.filter((r) => r.process === 'Proc 1');
    assert.ok(folded.every((r) => r.folded && r.y === folded[0].y && r.lanes === 1), JSON.stringify(folded));
    assert.equal(vs.folded, '1');
    assert.ok(vs.rows.filter((r) => r.process !== 'Proc 1').every((r) => !r.folded));
    await screenshot(page, 'rows-folded');
    // The folded row's label expands it again.
    await page.mouse.click(o.x + 40, o.y + folded[0].y + 8);
    await frames(page);
    vs = await viewState(page);
    assert.deepEqual(vs.rows, before, 'expanding restores every row where it was');

    // The Rows panel: filter, uncheck a location, the link keeps it, Show all.
    await page.click('#rows-toggle');
    await page.fill('#rows-filter', 'proc 2');
    await page.waitForFunction(() => /of 3$/.test(document.getElementById('rows-count').textContent));
    const boxes = await page.$$('#rows-list input[type=checkbox]');
    assert.equal(boxes.length, 3);
    await boxes[1].click(); // the list is drawn again after the change
    await frames(page);
    vs = await viewState(page);
    assert.equal(vs.row_count, 11);
    assert.ok(!vs.rows.some((r) => r.process === 'Proc 2' && r.name === 'worker 1'));
    await page.waitForFunction(() => /hide=\d/.test(location.hash), null, { timeout: 5000 });
    await screenshot(page, 'rows-panel');
    await page.click('#rows-show-all');
    await frames(page);
    assert.equal((await viewState(page)).row_count, 12);

    // The overview strip: a click at a quarter of its width centres the window at a quarter of the run.
    await page.evaluate(() => { const v = window.weft.viewer; v.set_time_range(0, 2000); v.invalidate(); });
    await frames(page);
    vs = await viewState(page);
    const ov = vs.overview;
    await page.mouse.click(o.x + ov.x0 + 0.25 * (ov.x1 - ov.x0), o.y + ov.y + 10);
    await frames(page);
    vs = await viewState(page);
    const mid = (vs.t0_ns + vs.t1_ns) / 2;
    assert.ok(Math.abs(mid - 0.25 * vs.span_ns) < 0.01 * vs.span_ns, `window centred at ${mid} of ${vs.span_ns}`);
    assert.ok(Math.abs(vs.t1_ns - vs.t0_ns - 2000) < 1, 'the window keeps its width');

    // ---- the real 32-rank stencil: compact rows and the relative axis ----
    if (!fs.existsSync(STENCIL)) {
      console.log(`SKIPPED the stencil part: ${STENCIL} is absent`);
    } else {
      await page.setInputFiles('#folder-input', STENCIL);
      await waitReady(page, 3);
      vs = await viewState(page);
      assert.equal(vs.row_count, 32);
      assert.ok(vs.rows.some((r) => r.y > vs.overview.y), 'normal rows do not all fit');
      await page.click('#timeline-compact');
      await frames(page);
      vs = await viewState(page);
      assert.equal(vs.compact, true);
      for (const r of vs.rows) assert.ok(r.y >= vs.axis_px - 0.01 && r.y + r.height <= vs.overview.y + 0.01, `rank row ${r.name} at ${r.y}`);
      await page.waitForFunction(() => /compact=on/.test(location.hash), null, { timeout: 5000 });
      await screenshot(page, 'rows-compact-stencil');
      // Zoomed to 1 ms in the middle of the run: "+200 us"-style labels and the start once.
      await page.evaluate(() => {
        const v = window.weft.viewer; const s = v.view_state();
        const mid = s.span_ns / 2; v.set_time_range(mid, mid + 1e6); v.invalidate();
      });
      await frames(page);
      const svg = await page.evaluate(() => window.weft.viewer.export_svg());
      const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
      assert.equal(texts.filter((t) => t.startsWith('from ')).length, 1, texts.slice(0, 40).join(' | '));
      assert.ok(texts.filter((t) => /^\+[\d.]+ (us|ms|ns)$/.test(t)).length >= 3, texts.slice(0, 40).join(' | '));
      await screenshot(page, 'rows-relative-axis');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
