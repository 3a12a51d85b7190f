// Rows, labels and panels a person can read (issue 50), checked on generated fixtures and over every shared
// trace where each applies: counter tracks whose labels tell them apart (distinguishing short labels, the
// same strings the scene draws), extremes that read apart, no "nothing here" notice over drawn counters,
// METRIC-only OTF2 locations (ROCm SMI) with their counters and no timeline or moments rows, constant series
// folded into one band that opens, flows faded by density with the hovered one highlighted, collective
// members' starts at the precision that separates them, the communication matrix's axes labelled, the
// profile table's names told apart, the grain header's critical path with its unit, and an OTF2 task
// program's execution graph with columns for threads and tasks inside them. Screenshots go to
// tests/out/readable-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, screenshot, repoRoot, outDir } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const PY = path.join(repoRoot, '.venv/bin/python');
const ORACLE = path.join(repoRoot, 'tests/oracle/otf2_oracle.py');

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const counters = (page) => page.evaluate(() => window.weft.viewer.timeline_counters());
const stats = (page) => page.evaluate(() => { window.weft.viewer.invalidate(); window.weft.viewer.frame(); return window.weft.viewer.stats(); });

/** Load a file or an OTF2 folder; returns once the page shows it. */
async function load(page, file, timeout = 60_000) {
  const n = await page.evaluate(() => window.weft.loads);
  const folder = fs.statSync(file).isDirectory();
  await page.setInputFiles(folder ? '#folder-input' : '#file-input', file);
  await waitReady(page, n + 1, timeout);
  return page.evaluate(() => ({ kind: window.weft.lastKind, state: window.weft.state, summary: window.weft.lastSummary }));
}

/** Every shared trace a timeline opens: files under chrome-json, nsys, paraver, mpe, projections, and the
 *  OTF2 archives (their folders). */
function sharedTraces() {
  if (!fs.existsSync(SHARED)) return [];
  const out = [];
  for (const d of ['chrome-json', 'paraver', 'nsys']) {
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(json|json\.gz|prv|sqlite)$/.test(e.name)) out.push(p);
      }
    };
    if (fs.existsSync(path.join(SHARED, d))) walk(path.join(SHARED, d));
  }
  for (const e of fs.readdirSync(path.join(SHARED, 'otf2'), { withFileTypes: true })) {
    if (e.isDirectory()) out.push(path.join(SHARED, 'otf2', e.name));
  }
  return out;
}

/** Counter tracks: every pair of tracks whose series differ (name or process) differs in what the track
 *  shows (its label and its process), and every label is drawn; the extremes read apart where they differ. */
async function checkCounterLabels(page, what) {
  const st = await counters(page);
  if (!st || !st.tracks.length) return 0;
  const byId = new Map(st.series.map((s) => [s.series, s]));
  const seen = new Map();
  for (const t of st.tracks) {
    const s = byId.get(t.series);
    assert.equal(typeof t.label, 'string', `${what}: track ${t.series} has a label`);
    const shown = `${t.label}\n${s.process}`;
    const full = `${s.name}\n${s.process}`;
    const other = seen.get(shown);
    assert.ok(other === undefined || other === full, `${what}: tracks "${full}" and "${other}" both read "${shown}"`);
    seen.set(shown, full);
    if (s.min !== s.max) assert.notEqual(t.min_label, t.max_label, `${what}: ${s.name} min ${s.min} and max ${s.max} read alike`);
  }
  // The labels are what the scene draws (the SVG export is the same scene).
  const svg = await page.evaluate(() => window.weft.viewer.export_svg());
  const vs = await viewState(page);
  const esc = (x) => x.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  for (const t of st.tracks.filter((x) => x.y >= 28 && x.y + st.track_px <= vs.height)) {
    assert.ok(svg.includes(`>${esc(t.label)}<`), `${what}: the label "${t.label}" is drawn`);
  }
  return st.tracks.length;
}

/** No notice that nothing is here while counter tracks with data are on screen. */
async function checkNoNoticeOverCounters(page, what) {
  const st = await counters(page);
  const vs = await viewState(page);
  const onScreen = st && st.tracks.some((t) => t.y + st.track_px > 28 && t.y < vs.height);
  if (!onScreen) return false;
  const s = await stats(page);
  assert.ok(s.marks > 0, `${what}: counter tracks on screen draw marks`);
  assert.ok(!s.notice || !/Nothing here|no intervals/.test(s.notice), `${what}: notice "${s.notice}" over drawn counter tracks`);
  return true;
}

test('ROCm SMI METRIC-only locations: counters with their group, no empty rows; labels, extremes, notices, constants', { timeout: 240_000 }, async (t) => {
  if (!fs.existsSync(PY)) { t.skip('no .venv with the official otf2 package (scripts/setup.sh --browser)'); return; }
  const dir = path.join(outDir, 'readable-rocm');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(PY, [ORACLE, 'rocm', dir]);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    await load(page, path.join(dir, 'rocm'));
    const vs = await viewState(page);
    // Two ranks compute; the 9 METRIC locations (8 GPUs, cpuinfo) record metrics only: no rows of theirs.
    assert.deepEqual(vs.rows.map((r) => r.name).filter((n) => /ROCm|cpuinfo/.test(n)), [], 'no row for a METRIC-only location');
    assert.equal(vs.rows.length, 2, `rows: ${vs.rows.map((r) => r.name)}`);
    const st = await counters(page);
    assert.equal(st.series.length, 8 * 4 + 12, 'every GPU counter and cpuinfo field is a series');
    // The GPUs of rank 0's group sit with rank 0; those of the metric-only group "rocm_smi" are named by it.
    const procs = new Set(st.series.map((s) => s.process));
    assert.ok(procs.has('MPI Rank 0') && procs.has('rocm_smi'), `processes: ${[...procs]}`);
    // The counters are on the first screen, right below the two rows.
    assert.ok(st.top < vs.height / 3, `counter header at ${st.top} px of ${vs.height}`);
    // cpuinfo's 12 constant fields are one closed band; the 32 GPU counters are tracks.
    assert.ok(st.constants, 'a group of constant series');
    assert.equal(st.constants.series.length, 12);
    assert.equal(st.constants.open, false);
    assert.equal(st.tracks.length, 32);
    await checkCounterLabels(page, 'rocm');
    // Energy (132.52e12 to 132.54e12 uJ): its extremes read apart.
    const energy = st.series.find((s) => /energy_count/.test(s.name));
    const et = st.tracks.find((x) => x.series === energy.series);
    assert.notEqual(et.min_label, et.max_label, `energy extremes ${et.min_label} / ${et.max_label}`);
    assert.ok(/13[23]\.\d{2,} T/.test(et.max_label), et.max_label);
    await screenshot(page, 'readable-rocm-timeline');

    // Between two compute intervals (85..95 us) only the counters have data: drawn, and no notice.
    await page.evaluate(() => { window.weft.viewer.set_time_range(85_000, 95_000); window.weft.viewer.invalidate(); });
    await frames(page);
    assert.ok(await checkNoNoticeOverCounters(page, 'rocm 85..95 us'), 'counter tracks on screen');
    await screenshot(page, 'readable-rocm-between-intervals');
    await page.click('#fit');
    await frames(page);

    // A click on the constant band (scrolled into view: it follows the 32 tracks) opens it: 12 more tracks;
    // again closes it.
    const o = await stageOrigin(page);
    await page.evaluate((dy) => window.weft.viewer.scroll(dy), (await counters(page)).constants.y - 300);
    await frames(page);
    const band = (await counters(page)).constants;
    assert.ok(band.y > 28 && band.y < vs.height - 40, `the band on screen at ${band.y}`);
    await page.mouse.click(o.x + 300, o.y + band.y + band.height / 2);
    await frames(page);
    let after = await counters(page);
    assert.equal(after.constants.open, true);
    assert.equal(after.tracks.length, 44);
    await checkCounterLabels(page, 'rocm, constants open');
    await screenshot(page, 'readable-rocm-constants-open');
    await page.mouse.click(o.x + 300, o.y + after.constants.y + after.constants.height / 2);
    await frames(page);
    after = await counters(page);
    assert.equal(after.tracks.length, 32);

    // Moments: rows for the two computing locations only, none for the METRIC ones.
    await page.click('#views button[data-view="moments"]');
    await frames(page);
    const ms = await viewState(page);
    assert.equal(ms.view, 'moments');
    assert.deepEqual(ms.rows.map((r) => r.name).filter((n) => /ROCm|cpuinfo|\/\s*$/.test(n)), []);
    assert.equal(ms.rows.length, 2, `moments rows: ${ms.rows.map((r) => r.name)}`);
    await screenshot(page, 'readable-rocm-moments');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('every shared trace: counter labels tell tracks apart, no notice over counters, flows faded, matrix axes labelled', { timeout: 900_000 }, async (t) => {
  const files = sharedTraces();
  if (!files.length) { t.skip(`${SHARED} is absent`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  const report = { counters: [], flows: [], matrices: [], unloaded: [] };
  try {
    for (const f of files) {
      const what = path.relative(SHARED, f);
      let r;
      try {
        r = await load(page, f, 20_000);
      } catch (e) {
        // Not this test's question (a load that never ends is reported here and left to its own test).
        report.unloaded.push(`${what}: ${String(e).split('\n')[0]}`);
        await page.reload();
        await waitReady(page, 1);
        continue;
      }
      if (r.state === 'error' || r.kind !== 'trace') continue;
      const n = await checkCounterLabels(page, what);
      if (n) {
        report.counters.push(`${what}: ${n}`);
        await checkNoNoticeOverCounters(page, what);
      }
      // Flows and messages at fit: faded so no pixel column is solid. Each line's opacity a falls as 3/n
      // past 3 lines over its busiest column, so a column of n lines is at most 1 - (1 - a)^3 dark: 0.875 for
      // flows (a = 0.5), 0.948 for messages (a = 0.63); a fan drawn unfaded is black (1.0).
      const vs = await viewState(page);
      if (vs.flows && vs.flows.drawn > 0) {
        assert.ok(vs.flows.darkest < 0.95, `${what}: ${vs.flows.drawn} lines leave a column ${vs.flows.darkest.toFixed(3)} dark`);
        report.flows.push(`${what}: ${vs.flows.drawn} lines, darkest ${vs.flows.darkest.toFixed(2)}`);
      }
      // The communication matrix names its senders and receivers.
      const m = await page.evaluate(() => { try { return window.weft.viewer.timeline_comm_matrix(true, 'process'); } catch { return null; } });
      if (m && m.senders.length) {
        assert.equal(m.sender_labels.length, m.senders.length, `${what}: a label per sender`);
        assert.equal(new Set(m.sender_labels).size, new Set(m.senders).size, `${what}: sender labels tell senders apart: ${m.sender_labels}`);
        assert.ok(m.sender_labels.every((x) => x.length > 0 && x.length <= 14), `${what}: ${m.sender_labels}`);
        report.matrices.push(`${what}: ${m.senders.length}`);
      }
    }
    console.log(JSON.stringify(report, null, 1));
    assert.ok(report.counters.length >= 2, 'traces with counters were checked');
    assert.ok(report.flows.length >= 2, 'traces with flows were checked');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

/** A Kineto-shaped run with 9,200 launch flows (the fitted Kineto run had 9,258): 40 bursts of 230
 *  cudaLaunchKernel calls within 40 us on the CPU thread, their kernels queued on one stream over the next
 *  700 us: a fan of flows from each burst. */
function kinetoFans() {
  const cpu = 4242;
  const events = [
    { ph: 'M', name: 'process_name', pid: cpu, tid: cpu, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: cpu, tid: cpu, args: { name: 'main thread' } },
    { ph: 'M', name: 'process_name', pid: 0, tid: 7, args: { name: 'GPU 0' } },
    { ph: 'M', name: 'thread_name', pid: 0, tid: 7, args: { name: 'stream 7' } },
  ];
  let id = 0;
  for (let b = 0; b < 40; b++) {
    const t0 = 1_000_000 + b * 1000;
    events.push({ ph: 'X', cat: 'cpu_op', name: 'aten::step', pid: cpu, tid: cpu, ts: t0, dur: 45 });
    for (let k = 0; k < 230; k++) {
      id += 1;
      const ts = t0 + 1 + k * 0.17, kt = t0 + 50 + k * 3;
      events.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: cpu, tid: cpu, ts, dur: 0.1, args: { correlation: id } });
      events.push({ ph: 's', id, pid: cpu, tid: cpu, ts, cat: 'ac2g', name: 'ac2g' });
      events.push({ ph: 'X', cat: 'kernel', name: `kernel_${k % 7}`, pid: 0, tid: 7, ts: kt, dur: 2.5, args: { correlation: id } });
      events.push({ ph: 'f', id, pid: 0, tid: 7, ts: kt, cat: 'ac2g', name: 'ac2g', bp: 'e' });
    }
  }
  return Buffer.from(JSON.stringify({ schemaVersion: 1, traceEvents: events }));
}

test('Kineto flows: faded by density at fit, the hovered one highlighted', { timeout: 180_000 }, async () => {
  const file = path.join(outDir, 'readable-kineto-fans.json');
  fs.writeFileSync(file, kinetoFans());
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    const r = await load(page, file);
    assert.equal(r.summary.flows, 9200, 'every launch flow is matched');
    let vs = await viewState(page);
    assert.ok(vs.flows.drawn > 100, `flows drawn: ${vs.flows.drawn}`);
    assert.ok(vs.flows.darkest <= 0.9, `darkest column ${vs.flows.darkest}`);
    const o = await stageOrigin(page);
    const png = await screenshot(page, 'readable-kineto-fit');
    // No solid black fan: few near-black pixels in the plot (labels are the only black there).
    let black = 0, all = 0;
    for (let y = Math.round(o.y + 40); y < Math.round(o.y + vs.height - 30); y += 2) {
      for (let x = Math.round(o.x + vs.track_x0 + 2); x < Math.round(o.x + vs.width - 2); x += 2) {
        const [r, g, b] = png.pixel(x, y);
        all += 1;
        if (Math.max(r, g, b) < 60) black += 1;
      }
    }
    assert.ok(black / all < 0.02, `near-black pixels: ${black} of ${all}`);
    // Zoomed to the first burst's fan: hover the middle of a flow; it is the hovered one, drawn in the
    // highlight colour over the others.
    await page.evaluate(() => { window.weft.viewer.set_time_range(0, 800_000); window.weft.viewer.invalidate(); });
    await frames(page);
    await screenshot(page, 'readable-kineto-fan');
    const pick = await page.evaluate(() => {
      const v = window.weft.viewer;
      for (let j = 0; j < 230; j += 7) {
        const s = v.timeline_message_segment(j);
        if (s && Math.hypot(s[2] - s[0], s[3] - s[1]) > 40) return { j, s };
      }
      return null;
    });
    assert.ok(pick, 'a flow at least 40 px long');
    // Zoom to the flow so it stands alone.
    const [x0, y0, x1, y1] = pick.s;
    const mx = (x0 + x1) / 2, my = (y0 + y1) / 2;
    await page.mouse.move(o.x + mx, o.y + my);
    await frames(page);
    vs = await viewState(page);
    assert.notEqual(vs.flows.hovered, null, 'a flow is hovered');
    const seg = await page.evaluate((j) => window.weft.viewer.timeline_message_segment(j), vs.flows.hovered);
    const shot = await screenshot(page, 'readable-kineto-hover');
    let orange = 0;
    for (let u = 0.2; u <= 0.8; u += 0.1) {
      const px = Math.round(o.x + seg[0] + u * (seg[2] - seg[0])), py = Math.round(o.y + seg[1] + u * (seg[3] - seg[1]));
      for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
        const [r, g, b] = shot.pixel(px + dx, py + dy);
        if (r > 170 && g > 60 && g < 160 && b < 90) { orange += 1; dx = 2; dy = 2; }
      }
    }
    assert.ok(orange >= 5, `the hovered flow is drawn highlighted (${orange} of 7 points)`);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('stencil: collective members read in their order of arrival; matrix axes; profile names told apart', { timeout: 240_000 }, async (t) => {
  const dir = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');
  if (!fs.existsSync(dir)) { t.skip(`${dir} is absent`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1600, height: 900 });
  try {
    await load(page, dir);
    // The matrix beside the timeline, its axes labelled (looked at before a selection grows the panel).
    await page.click('#messages-toggle');
    await page.locator('.matrix-grid').scrollIntoViewIfNeeded();
    await screenshot(page, 'readable-matrix');
    // A collective call: found by the region search (which zooms to it), clicked where it is drawn.
    const hit = await page.evaluate(() => {
      const v = window.weft.viewer;
      for (const name of ['MPI_Allreduce', 'MPI_Barrier', 'MPI_Bcast', 'MPI_Reduce', 'MPI_Alltoall']) {
        if (v.timeline_search(name) > 0) return { name, h: v.timeline_search_step(true) };
      }
      return null;
    });
    assert.ok(hit, 'a collective call');
    await frames(page);
    const vs = await viewState(page);
    const row = vs.rows.find((r) => r.location === hit.h.location);
    assert.ok(row, 'its row is shown');
    const x = vs.track_x0 + ((hit.h.start_ns + hit.h.dur_ns / 2 - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);
    // Its lane: the one whose hover names it.
    const y = await page.evaluate(([x, row, lane, name]) => {
      for (let k = 0; k < row.lanes; k++) {
        const y = row.y + (k + 0.5) * lane;
        const h = window.weft.viewer.hover(x, y);
        if (h && h.title === name) return y;
      }
      return null;
    }, [x, row, vs.lane_px, hit.name]);
    assert.ok(y !== null, `${hit.name} is under the pointer in some lane`);
    const sel = await page.evaluate(([x, y]) => window.weft.commPanel.click(x, y), [x, y]);
    assert.ok(sel && sel.collective, `a collective selected by clicking ${hit.name}`);
    const m = sel.collective.members;
    assert.ok(m.length >= 2, `${m.length} members`);
    // Different starts read differently; offsets from the first; places follow the starts.
    for (let a = 0; a < m.length; a++) for (let b = a + 1; b < m.length; b++) {
      if (m[a].start_ns !== m[b].start_ns) assert.notEqual(m[a].start, m[b].start, `${m[a].name} ${m[a].start_ns} and ${m[b].name} ${m[b].start_ns} both read ${m[a].start}`);
      if (m[a].start_ns < m[b].start_ns) assert.ok(m[a].arrival < m[b].arrival);
    }
    const first = Math.min(...m.map((x) => x.start_ns));
    for (const x of m) {
      assert.equal(x.offset_ns, x.start_ns - first);
      assert.equal(x.offset === '+0', x.start_ns === first, `${x.name}: ${x.offset}`);
    }
    const cells = await page.$$eval('#collective-members tbody tr', (rows) => rows.map((r) => [r.children[1].textContent, r.children[2].textContent]));
    assert.deepEqual(cells, m.map((x) => [x.start, x.offset]), 'the panel shows the Viewer\'s texts');

    // The matrix names its rows and columns beside the heat map.
    const mx = await page.evaluate(() => window.weft.commPanel.matrix);
    assert.ok(mx.senders.length >= 2);
    const rowsText = await page.$$eval('#matrix-rows .matrix-row', (e) => e.map((x) => [x.textContent, x.title]));
    const colsText = await page.$$eval('#matrix-cols .matrix-col', (e) => e.map((x) => [x.textContent, x.title]));
    assert.equal(rowsText.length, mx.senders.length);
    assert.equal(colsText.length, mx.receivers.length);
    assert.deepEqual(rowsText.map((x) => x[1]), mx.senders, 'full names on hover');
    const shownRows = rowsText.filter((x) => x[0]);
    assert.ok(shownRows.length >= Math.ceil(mx.senders.length / 4), `labels shown: ${shownRows.length} of ${mx.senders.length}`);
    assert.equal(new Set(shownRows.map((x) => x[0])).size, shownRows.length, 'row labels tell senders apart');
    await page.locator('#comm-panel').screenshot({ path: path.join(outDir, 'readable-collective.png') });

    // The profile table: names sharing a prefix (TRACER_WallTime_*) read apart; the full name on hover.
    await page.click('#profile-toggle');
    await frames(page);
    const names = await page.$$eval('#profile-table td.source', (e) => e.map((x) => [x.textContent.trim(), x.title]));
    assert.ok(names.length > 3, `profile rows: ${names.length}`);
    const byShort = new Map();
    for (const [short, full] of names) {
      assert.ok(short.length <= 13, `"${short}" fits`);
      assert.ok(!byShort.has(short) || byShort.get(short) === full, `"${full}" and "${byShort.get(short)}" both read "${short}"`);
      byShort.set(short, full);
    }
    assert.ok(names.some(([, full]) => /^TRACER_WallTime_/.test(full)), 'the TRACER_WallTime_ regions are listed');
    await page.locator('#profile-panel').screenshot({ path: path.join(outDir, 'readable-profile.png') });
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('grain header: the critical path with its unit', { timeout: 120_000 }, async (t) => {
  const dir = path.join(SHARED, 'grain-graphs');
  const files = [];
  const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (/\.graphml$/.test(e.name)) files.push(p); } };
  if (fs.existsSync(dir)) walk(dir);
  if (!files.length) { t.skip(`no GraphML under ${dir}`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    const r = await load(page, files[0]);
    assert.equal(r.kind, 'grains');
    const text = await page.textContent('#summary');
    assert.match(text, /critical path [\d,.]+\u00a0(cycles|ns|us|ms|s)\b/, text);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('execution graph of an OpenMP task program: columns are threads, tasks drawn inside them', { timeout: 240_000 }, async (t) => {
  if (!fs.existsSync(PY)) { t.skip('no .venv with the official otf2 package'); return; }
  const dir = path.join(outDir, 'readable-threads');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(PY, [ORACLE, 'threads', dir]);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url);
  try {
    for (const name of ['fib8_fork_implicit', 'omp_tasks']) {
      const anchor = path.join(dir, name, 'trace');
      const r = await load(page, anchor);
      if (r.kind !== 'execgraph') {
        const n = await page.evaluate(() => window.weft.loads);
        await page.click('button[data-file-view="execgraph"]');
        await waitReady(page, n + 1);
      }
      const vs = await viewState(page);
      assert.equal(vs.view, 'execgraph');
      // One column per thread (location), not per task: far fewer columns than threads of the graph.
      const locations = fs.readdirSync(path.join(dir, name, 'trace', 'traces')).filter((f) => f.endsWith('.evt')).length;
      assert.ok(vs.columns <= locations * 4, `${name}: ${vs.columns} columns for ${locations} locations (${vs.threads} graph threads)`);
      assert.ok(vs.threads > vs.columns, `${name}: tasks share their thread's column (${vs.threads} threads, ${vs.columns} columns)`);
      assert.ok(vs.lanes >= 1, `${name}: tasks drawn in lanes`);
      // Columns wide enough to read at fit.
      assert.ok(vs.column_px >= 20, `${name}: columns ${vs.column_px} px`);
      await screenshot(page, `readable-execgraph-${name}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
