// Frame time of the timeline while dragging, with counter tracks shown (issue 18). Not a test; figures go in
// BENCHMARKS.md ("Counter tracks in the timeline").
//   node tests/browser/bench/bench-counters.mjs [webgl|webgpu]
// The input: 64 ranks (Chrome JSON, generated into tests/out/counters64.json): 400 intervals each and one
// counter event with two values (two series) every 2 us, 10,000 per rank: 1.28 M samples in 128 series.
// Each measured frame pans by 7 px (a drag) and draws: `Viewer::frame` wall time, and the scene's build and
// draw times from `Viewer::stats`, median of 60; scrolled to the rows (no track on screen), to the counter
// tracks, and with every track hidden.
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, outDir } from '../lib/harness.mjs';

const backend = process.argv[2] || 'webgl';
const file = path.join(outDir, 'counters64.json');
if (!fs.existsSync(file)) {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, '{"traceEvents":[\n');
  let first = true;
  const put = (s) => { fs.writeSync(out, (first ? '' : ',\n') + s); first = false; };
  for (let p = 0; p < 64; p++) {
    put(`{"ph":"M","name":"process_name","pid":${p},"tid":0,"args":{"name":"Rank ${p}"}}`);
    for (let k = 0; k < 400; k++) put(`{"ph":"X","name":"${k % 2 ? 'MPI_Allreduce' : 'solve'}","pid":${p},"tid":0,"ts":${k * 50},"dur":${k % 2 ? 10 : 40}}`);
    const lines = [];
    for (let k = 0; k < 10_000; k++) {
      const spike = (k * 7919 + p * 104729) % 997 === 0 ? 40 : 0;
      lines.push(`{"ph":"C","name":"hw","pid":${p},"tid":0,"ts":${k * 2},"args":{"ipc":${(1 + Math.sin(k / 300 + p) + spike).toFixed(3)},"mem":${1000 + ((k * 13) % 700)}}}`);
    }
    put(lines.join(',\n'));
  }
  fs.writeSync(out, '\n]}\n');
  fs.closeSync(out);
}

const { server, url } = await startServer();
const { browser, page } = await openPage(backend, url);
try {
  await page.setInputFiles('#file-input', file);
  await waitReady(page, 2, 600_000);
  const measure = (label, setup) => page.evaluate(async ([label, setup]) => {
    const v = window.weft.viewer;
    v.fit();
    v.zoom(700, 8);
    const st = v.timeline_counters();
    if (setup === 'hidden') for (const s of st.series) v.timeline_set_counter_shown(s.series, false);
    if (setup === 'counters') v.scroll(st.top - 40 - v.view_state().scroll_y);
    if (setup === 'rows') v.scroll(-1e9);
    const frames = [], build = [], draw = [];
    for (let i = 0; i < 60; i++) {
      v.pan(i < 30 ? 7 : -7);
      const t0 = performance.now();
      v.frame();
      frames.push(performance.now() - t0);
      const s = v.stats();
      build.push(s.build_ms); draw.push(s.draw_ms);
      await new Promise((r) => requestAnimationFrame(r));
    }
    const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    const s = v.stats();
    if (setup === 'hidden') for (const x of st.series) v.timeline_set_counter_shown(x.series, true);
    return { label, frame_ms: med(frames), build_ms: med(build), draw_ms: med(draw), rects: s.rects, lines: s.lines, labels: s.labels, tracks_on_screen: setup === 'counters' };
  }, [label, setup]);
  for (const [label, setup] of [['rows (tracks below, off screen)', 'rows'], ['counter tracks on screen', 'counters'], ['every track hidden', 'hidden']]) {
    console.log(`${backend} (chromium ${browser.version()}):`, JSON.stringify(await measure(label, setup)));
  }
} finally {
  await browser.close();
  server.close();
}
