// Counter tracks in the timeline: a generated Chrome trace with `C` events (so a fresh machine tests it) and
// the real traces with counters in ../shared/traces (Score-P OTF2 with PAPI metrics, a Chrome trace with `C`
// events; skipped, saying so, when absent). The tracks are drawn where the values say (the step line's pixels
// at the series' maximum and minimum), hovering a track at a sample's time gives that sample's value (equal to
// the page's model and to the fixture, or to the official OTF2 reader's first values), and the Counters menu
// hides and shows a track. Screenshots go to tests/out/counters-*.png. WebGL2 only: nothing here depends on
// the backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { startServer, openPage, waitReady, viewState, stageOrigin, screenshot, dropFile, repoRoot } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');

/** Two ranks busy from 0 to 1000 us; rank 0 counts a queue (5, 9, 2, 7 at 100, 300, 500, 700 us) and its
 *  memory (heap and rss, two args: two series); rank 1 counts its queue (3, 4 at 0, 500 us). */
function counterTrace() {
  const events = [];
  const samples = { 'Rank 0 · queue': [[100, 5], [300, 9], [500, 2], [700, 7]], 'Rank 1 · queue': [[0, 3], [500, 4]] };
  for (const p of [0, 1]) {
    events.push({ ph: 'M', name: 'process_name', pid: p, tid: 0, args: { name: `Rank ${p}` } });
    events.push({ ph: 'X', name: 'work', pid: p, tid: 0, ts: 0, dur: 1000 });
    for (const [ts, v] of samples[`Rank ${p} · queue`]) events.push({ ph: 'C', name: 'queue', pid: p, tid: 0, ts, args: { items: v } });
  }
  for (let k = 0; k < 10; k++) events.push({ ph: 'C', name: 'mem', pid: 0, tid: 0, ts: 50 + 100 * k, args: { heap: 1000 + k, rss: 5000 - k } });
  return { bytes: Buffer.from(JSON.stringify({ traceEvents: events })), samples };
}

const counters = (page) => page.evaluate(() => window.weft.viewer.timeline_counters());
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Show [t0, t1] ns and wait for it to be drawn. */
async function showRange(page, t0, t1) {
  await page.evaluate(([a, b]) => { window.weft.viewer.set_time_range(a, b); window.weft.viewer.invalidate(); }, [t0, t1]);
  await frames(page);
  return viewState(page);
}

const xOf = (vs, t) => vs.track_x0 + ((t - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);

/** The hover of canvas point (x, y) through the page's Viewer. */
const hoverAt = (page, x, y) => page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [x, y]);

/** The series of `process · name`, its track's y, and its samples from the page's model. */
async function seriesOf(page, label) {
  const st = await counters(page);
  const s = st.series.find((x) => `${x.process} · ${x.name}` === label);
  assert.ok(s, `a series ${label} among ${st.series.map((x) => `${x.process} · ${x.name}`).join(', ')}`);
  const track = st.tracks.find((t) => t.series === s.series);
  const model = await page.evaluate((k) => window.weft.viewer.timeline_counter_samples(k, 0, 1 << 20), s.series);
  return { s, track, model, trackPx: st.track_px };
}

/** Rows of the screenshot column x (page pixels) between y0 and y1 whose colour is the step line's. */
function lineRows(png, x, y0, y1) {
  const rows = [];
  for (let y = Math.max(0, Math.round(y0)); y < Math.min(png.height, Math.round(y1)); y++) {
    const [r, g, b] = png.pixel(x, y);
    // The line (#1f5fa8, anti-aliased) is dark blue; the area under it is pale, the band paler still.
    if (r < 130 && b - r > 50 && g < b) rows.push(y);
  }
  return rows;
}

test('counter tracks of a generated Chrome trace: drawn where the values are, hover gives the sample', { timeout: 120_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    const { bytes, samples } = counterTrace();
    await dropFile(page, 'counters.json', bytes);
    await waitReady(page, 2);
    const st = await counters(page);
    const labels = st.series.map((x) => `${x.process} · ${x.name}`).sort();
    assert.deepEqual(labels, ['Rank 0 · mem.heap', 'Rank 0 · mem.rss', 'Rank 0 · queue', 'Rank 1 · queue']);
    assert.equal(st.tracks.length, 4, 'every series has a track');
    const vs0 = await viewState(page);
    const lastRow = vs0.rows[vs0.rows.length - 1];
    assert.ok(st.tracks.every((t) => t.y >= lastRow.y + lastRow.lanes * vs0.lane_px), 'tracks below the rows');

    const vs = await showRange(page, 0, 1_000_000);
    const q = await seriesOf(page, 'Rank 0 · queue');
    assert.deepEqual(q.model.time_ns, samples['Rank 0 · queue'].map(([t]) => t * 1000), 'the model holds the fixture');
    assert.deepEqual(q.model.value, samples['Rank 0 · queue'].map(([, v]) => v));
    const o = await stageOrigin(page);
    const png = await screenshot(page, 'counters-generated');
    // The step line: at 400 us the value is the maximum (9, top of the track), at 600 us the minimum (2, bottom).
    const [top, bottom] = [o.y + q.track.y, o.y + q.track.y + q.trackPx];
    const at = (t) => lineRows(png, o.x + xOf(vs, t), top, bottom);
    const hi = at(400_000), lo = at(600_000), mid = at(200_000);
    assert.ok(hi.length && lo.length && mid.length, `line pixels at 200/400/600 us: ${mid} ${hi} ${lo}`);
    assert.ok(Math.min(...hi) - top <= 8, `the maximum at the top: ${hi} (track ${top}..${bottom})`);
    assert.ok(bottom - Math.max(...lo) <= 8, `the minimum at the bottom: ${lo}`);
    assert.ok(Math.min(...hi) < Math.min(...mid) && Math.min(...mid) < Math.min(...lo), 'value 5 between 9 and 2');

    // Hover 2 px after each sample: that sample, as the model and the fixture have it.
    for (const [k, [tus, v]] of samples['Rank 0 · queue'].entries()) {
      const h = await hoverAt(page, xOf(vs, tus * 1000) + 2, q.track.y + q.trackPx / 2);
      assert.ok(h, `a hover at sample ${k}`);
      assert.equal(h.title, 'queue');
      assert.equal(h.detail.value, v, `sample ${k}`);
      assert.equal(h.detail.value, q.model.value[k]);
      assert.equal(h.detail.time_ns, q.model.time_ns[k]);
    }
    // The pointer over the track: the tooltip says the value.
    await page.mouse.move(o.x + xOf(vs, 350_000), o.y + q.track.y + q.trackPx / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    // The value and its time at the zoom's precision: a tenth of a microsecond where a pixel spans less than
    // one (about 0.9 us at the page's width before the side column), whole microseconds where it spans more.
    const nsPerPx = (vs.t1_ns - vs.t0_ns) / (vs.width - vs.track_x0);
    const tip = await page.textContent('#tooltip');
    if (nsPerPx < 1000) assert.match(tip, /^queue[\s\S]*Rank 0[\s\S]*9\s+since 300\.0 us[\s\S]*at 35\d\.\d us/);
    else assert.match(tip, /^queue[\s\S]*Rank 0[\s\S]*9\s+since 300 us[\s\S]*at 35\d us/, `${nsPerPx} ns a pixel`);

    // The Counters menu hides a track and shows it again.
    await page.click('#counter-tracks > summary');
    const box = `#counter-tracks input[data-series="${q.s.series}"]`;
    await page.uncheck(box);
    let after = await counters(page);
    assert.equal(after.tracks.length, 3);
    assert.ok(!after.tracks.some((t) => t.series === q.s.series), 'its track is gone');
    assert.match(await page.textContent('#counter-tracks > summary'), /Counters 3\/4/);
    await page.check(box);
    after = await counters(page);
    assert.equal(after.tracks.length, 4);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('counter tracks of real traces: hover gives the model\'s and the official reader\'s values', { timeout: 180_000 }, async (t) => {
  if (!fs.existsSync(SHARED)) { t.skip(`${SHARED} is absent`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    // Score-P with PAPI counters: the official OTF2 reader's first two PAPI_TOT_CYC values of rank 0
    // (tests/otf2_metrics.rs checks every value against it).
    await page.setInputFiles('#folder-input', path.join(SHARED, 'otf2/pipit-ping-pong-mpi-papi'));
    await waitReady(page, 2);
    const st = await counters(page);
    assert.equal(st.series.length, 6, '3 PAPI counters x 2 ranks');
    const c = await seriesOf(page, 'MPI Rank 0 · PAPI_TOT_CYC [#]');
    assert.deepEqual(c.model.value.slice(0, 2), [98850, 122765]);
    const [t0, t1] = c.model.time_ns.slice(0, 2);
    let vs = await showRange(page, t0 - (t1 - t0), t1 + (t1 - t0));
    for (const k of [0, 1]) {
      const h = await hoverAt(page, xOf(vs, c.model.time_ns[k]) + 2, c.track.y + c.trackPx / 2);
      assert.equal(h.detail.value, c.model.value[k], `sample ${k}`);
      assert.equal(h.detail.time_ns, c.model.time_ns[k]);
    }
    await page.click('#fit');
    await frames(page);
    await screenshot(page, 'counters-papi');

    // Chrome `C` events of a real Chrome trace.
    await page.setInputFiles('#file-input', path.join(SHARED, 'chrome-json/catapult/x_event_trace.json'));
    await waitReady(page, 3);
    const cs = await counters(page);
    assert.ok(cs.series.length >= 1 && cs.tracks.length === cs.series.length, `counter series: ${cs.series.length}`);
    const busiest = cs.series.reduce((a, b) => (b.samples > a.samples ? b : a));
    const r = await seriesOf(page, `${busiest.process} · ${busiest.name}`);
    const ts = r.model.time_ns;
    // A sample apart from its neighbours (several at one time: the last is in effect).
    const k = ts.findIndex((x, i) => i > 0 && i + 1 < ts.length && ts[i - 1] < x && x < ts[i + 1]);
    assert.ok(k > 0, 'a sample with distinct neighbours');
    const gap = Math.max(1000, r.model.time_ns[k + 1] - r.model.time_ns[k]);
    vs = await showRange(page, r.model.time_ns[k] - gap, r.model.time_ns[k] + gap);
    await page.evaluate((y) => window.weft.viewer.scroll(y), r.track.y - 200);
    await frames(page);
    const track = (await counters(page)).tracks.find((x) => x.series === busiest.series);
    const h = await hoverAt(page, xOf(vs, r.model.time_ns[k]) + 1, track.y + r.trackPx / 2);
    assert.equal(h.detail.time_ns, r.model.time_ns[k]);
    assert.equal(h.detail.value, r.model.value[k]);
    await screenshot(page, 'counters-chrome');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
