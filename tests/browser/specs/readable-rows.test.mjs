// Rows and labels a person can read (issue 50), over every built-in sample, generated traces that show each
// defect, and every trace in ../shared/traces that weft reads (skipped, saying so, when absent):
// - row labels tell rows apart: the timeline's labels within a process and its process headers, the moments
//   view's row labels, all as drawn (Viewer.drawn_labels: cut to their width as the overlay cuts them);
// - "compact rows" gives every location at least a pixel (a trace with one very deep location made the others
//   0.05 px), scrolling when they do not fit;
// - zooming out and panning never show time past the trace's end (timeline, moments); particle playback
//   stops at the end;
// - the side panels leave the timeline at least 70 % of the width, and fold;
// - keys typed after a search go to the view, and a new file clears the pattern;
// - the legend colours MPI collectives, waits and point-to-point calls apart, by function group, and a colour
//   chosen there is drawn and kept in the link;
// - a `?store=` on a host without CORS says what header to set.
// Screenshots go to tests/out/readable-rows/ (look at them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer, openPage, repoRoot, outDir } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const SHOTS = path.join(outDir, 'readable-rows');
const SAMPLES = ['timeline', 'fib', 'rsa', 'mergesort', 'particles'];
const slug = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** APEX-like: 12 locations, one with a stack 1,200 deep (compact rows made the other 11 0.05 px each). */
function deepTrace() {
  const ev = [{ ph: 'M', name: 'process_name', pid: 0, args: { name: 'HPX locality 0' } }];
  for (let t = 0; t < 12; t++) {
    ev.push({ ph: 'M', name: 'thread_name', pid: 0, tid: t, args: { name: `worker-thread#${t}` } });
    ev.push({ ph: 'X', name: 'hpx_main', pid: 0, tid: t, ts: 0, dur: 10_000 });
    if (t > 0) ev.push({ ph: 'X', name: 'task', pid: 0, tid: t, ts: 100 + t, dur: 50 });
  }
  for (let d = 0; d < 1200; d++) ev.push({ ph: 'X', name: `nested_${d % 7}`, pid: 0, tid: 0, ts: 1 + d * 4, dur: 9000 - d * 7 });
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

/** PyTorch-like: a CPU and two GPU processes, all named "python", told apart by `process_labels`; MPI calls of
 *  three groups side by side. */
function labelledTrace() {
  const ev = [];
  for (const [pid, label] of [[4037, 'CPU'], [0, 'GPU 0'], [1, 'GPU 1']]) {
    ev.push({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name: 'python' } });
    ev.push({ ph: 'M', name: 'process_labels', pid, tid: 0, args: { labels: label } });
    ev.push({ ph: 'M', name: 'process_sort_index', pid, tid: 0, args: { sort_index: pid === 4037 ? 0 : 16777216 + pid } });
    for (const tid of [7, 8]) {
      ev.push({ ph: 'M', name: 'thread_name', pid, tid, args: { name: pid === 4037 ? `python thread ${tid}` : `stream ${tid}` } });
      let t = 0;
      for (const name of ['MPI_Alltoall', 'MPI_Allreduce', 'MPI_Waitall', 'MPI_Isend', 'compute']) {
        ev.push({ ph: 'X', name, pid, tid, ts: t, dur: 40 });
        t += 45;
      }
    }
  }
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

/** Inputs from ../shared/traces in formats weft reads: [name, kind ('file' | 'folder'), path]. */
function sharedInputs() {
  const out = [];
  if (!fs.existsSync(SHARED)) { console.log(`SKIPPED real traces: ${SHARED} does not exist`); return out; }
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  }).sort();
  const sub = (d) => path.join(SHARED, d);
  if (fs.existsSync(sub('chrome-json'))) {
    for (const f of walk(sub('chrome-json')).filter((f) => /\.json(\.gz)?$/.test(f))) out.push([path.relative(SHARED, f), 'file', f]);
  }
  for (const d of ['otf2', 'paraver']) {
    if (!fs.existsSync(sub(d))) continue;
    for (const e of fs.readdirSync(sub(d), { withFileTypes: true }).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push([`${d}/${e.name}`, 'folder', path.join(sub(d), e.name)]);
    }
  }
  return out;
}

async function load(page, act) {
  const before = await page.evaluate(() => ({ loads: window.weft.loads, errors: window.weft.errors.length }));
  await act();
  await page.waitForFunction((b) => window.weft.loads > b.loads || window.weft.errors.length > b.errors, before, { timeout: 120_000 });
  await frames(page);
  return page.evaluate((b) => (window.weft.errors.length > b.errors ? window.weft.errors[window.weft.errors.length - 1] : null), before);
}

const labels = (page) => page.evaluate(() => { const v = window.weft.viewer; v.invalidate(); v.frame(); return v.drawn_labels(); });
const state = (page) => page.evaluate(() => window.weft.viewer.view_state());

/** Pairs of drawn labels that read the same though they name different things: `[text, what1, what2]`. */
function clashes(items) {
  const seen = new Map();
  const out = [];
  for (const { text, what } of items) {
    if (!text) continue;
    const other = seen.get(text);
    if (other !== undefined && other !== what) out.push([text, other, what]);
    else seen.set(text, what);
  }
  return out;
}

/** The timeline's gutter as read: process headers (bold, x 16) and row labels (x 12), each row's label with the
 *  row it labels (by y). Returns the clashes: headers reading alike, or two rows of one process alike. */
async function timelineClashes(page) {
  const st = await state(page);
  const drawn = await labels(page);
  const headers = drawn.filter((l) => l.bold && l.x === 16 && l.y > st.axis_px && l.y < st.overview.y);
  const rowLabels = drawn.filter((l) => l.x === 12 && l.y > st.axis_px && l.y < st.overview.y);
  const rowAt = (y) => st.rows.find((r) => y >= r.y - 1 && y <= r.y + Math.max(r.height, st.lane_px) + 1);
  const byProcess = new Map();
  for (const l of rowLabels) {
    const r = rowAt(l.y);
    if (!r || r.folded) continue;
    const list = byProcess.get(r.process_id) || [];
    list.push({ text: l.text, what: `${r.process} / ${r.name}` });
    byProcess.set(r.process_id, list);
  }
  const processNames = new Map(st.rows.map((r) => [r.process_id, r.process]));
  const out = clashes(headers.map((h) => ({ text: h.text, what: h.y })));
  for (const list of byProcess.values()) out.push(...clashes(list));
  // Compact rows have no headers: a process's first row names the process ("▾ P · L"); those must differ too.
  if (st.compact) out.push(...clashes(rowLabels.filter((l) => l.text.startsWith('\u25be')).map((l) => ({ text: l.text, what: rowAt(l.y)?.process_id }))));
  return { out, processes: processNames.size, labelled: rowLabels.length };
}

/** The moments view's row labels (x 8, the left margin) as read: no two alike. */
async function momentsClashes(page) {
  const drawn = await labels(page);
  return clashes(drawn.filter((l) => l.x === 8).map((l) => ({ text: l.text, what: l.y })));
}

test('row labels, compact rows and the view\'s end over every sample and shared trace', { timeout: 1_500_000 }, async () => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  const deep = path.join(outDir, 'deep-stack.json');
  fs.writeFileSync(deep, deepTrace());
  const labelled = path.join(outDir, 'python-labels.json');
  fs.writeFileSync(labelled, labelledTrace());
  const inputs = [
    ...SAMPLES.map((s) => [`sample-${s}`, 'sample', s]),
    ['generated-deep-stack', 'file', deep],
    ['generated-python-labels', 'file', labelled],
    ...sharedInputs(),
  ];
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1100, height: 640 });
  const failures = [];
  let checked = 0;
  try {
    for (const [name, kind, p] of inputs) {
      const err = await load(page, () => (kind === 'sample' ? page.selectOption('#samples', p)
        : page.setInputFiles(kind === 'folder' ? '#folder-input' : '#file-input', p)));
      if (err) { console.log(`not read: ${name}: ${err}`); continue; }
      const views = await page.evaluate(() => window.weft.viewer.views());
      if (!views.includes('timeline')) continue;
      checked += 1;
      await page.click('#views button[data-view="timeline"]');
      await frames(page);
      // Labels as drawn tell the rows apart.
      const t = await timelineClashes(page);
      for (const c of t.out) failures.push(`${name} timeline: "${c[0]}" labels both ${c[1]} and ${c[2]}`);
      await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-timeline.png`) });

      // Compact rows: every location at least a pixel; past the window, the rows scroll.
      await page.evaluate(() => { window.weft.viewer.configure('compact', 'on'); });
      await frames(page);
      let st = await state(page);
      const thin = st.rows.filter((r) => !r.folded && r.height < 1 - 1e-6);
      if (thin.length) failures.push(`${name} compact rows: ${thin.length} of ${st.rows.length} rows under a pixel (${thin[0].height.toFixed(3)} px)`);
      const tc = await timelineClashes(page);
      for (const c of tc.out) failures.push(`${name} compact timeline: "${c[0]}" labels both ${c[1]} and ${c[2]}`);
      const last = st.rows[st.rows.length - 1];
      if (last && last.y + last.height > st.overview.y) {
        await page.evaluate(() => window.weft.viewer.scroll(1e9));
        const after = await state(page);
        const end = after.rows[after.rows.length - 1];
        if (!(end.y + end.height <= after.overview.y + 1)) failures.push(`${name} compact rows: the last row cannot be scrolled to`);
      }
      await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-compact.png`) });
      await page.evaluate(() => { window.weft.viewer.configure('compact', 'off'); window.weft.viewer.fit(); });

      // Zoomed out and panned to the end and beyond: no time past the trace's end is shown.
      await page.evaluate(() => {
        const v = window.weft.viewer;
        for (let i = 0; i < 6; i++) v.zoom(600, 0.2, 200);
        for (let i = 0; i < 6; i++) v.pan(5000);
        v.zoom(900, 3, 200);
        for (let i = 0; i < 6; i++) v.pan(5000);
      });
      st = await state(page);
      const margin = 0.021 * Math.max(1, st.span_ns) + 1;
      if (st.t1_ns > st.span_ns + margin || st.t0_ns < -margin) {
        failures.push(`${name} timeline: the view shows ${(st.t0_ns / 1e6).toFixed(3)}..${(st.t1_ns / 1e6).toFixed(3)} ms of a ${(st.span_ns / 1e6).toFixed(3)} ms trace`);
      }
      await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-panned-to-end.png`) });
      await page.evaluate(() => window.weft.viewer.fit());

      if (views.includes('moments')) {
        await page.click('#views button[data-view="moments"]');
        await frames(page);
        for (const c of await momentsClashes(page)) failures.push(`${name} moments: "${c[0]}" labels two rows`);
        const m = await page.evaluate(() => {
          const v = window.weft.viewer;
          for (let i = 0; i < 6; i++) v.zoom(300, 0.2, 200);
          for (let i = 0; i < 6; i++) v.pan(5000);
          const b = v.view_brief();
          v.fit();
          return { t0: b.t0_ns, t1: b.t1_ns };
        });
        const span = Math.max(1, st.span_ns);
        if (m.t1 > span * 1.021 + 1 || m.t0 < -0.021 * span - 1) failures.push(`${name} moments: the view shows ${(m.t0 / 1e6).toFixed(3)}..${(m.t1 / 1e6).toFixed(3)} ms of a ${(span / 1e6).toFixed(3)} ms trace`);
        await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-moments.png`) });
      }
      if (views.includes('particles')) {
        await page.click('#views button[data-view="particles"]');
        await frames(page);
        const end = await page.evaluate(() => {
          const v = window.weft.viewer;
          const s0 = v.view_state();
          if (!s0.events) return null;
          v.configure('step_ns', String(Math.max(1, Math.ceil(s0.span_ns / 40))));
          v.configure('play', '');
          let now = performance.now();
          let most = 0;
          for (let i = 0; i < 400 && v.view_state().playing; i++) {
            now += 200;
            v.configure('tick', String(now));
            most = Math.max(most, v.view_state().t_ns);
          }
          const s = v.view_state();
          return { most, t: s.t_ns, span: s.span_ns, playing: s.playing };
        });
        if (end && (end.most > end.span || end.playing)) failures.push(`${name} particles: playback ran to ${end.most} ns of ${end.span} ns (playing: ${end.playing})`);
        await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-particles-end.png`) });
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`${checked} inputs with a timeline checked`);
  assert.ok(checked >= SAMPLES.length + 2);
  assert.deepEqual(failures, []);
  assert.deepEqual(problems, []);
});

test('the timeline keeps 70 % of the width beside its panels, which fold', { timeout: 300_000 }, async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1280, height: 720 });
  try {
    assert.equal(await load(page, () => page.selectOption('#samples', 'timeline')), null);
    for (const id of ['#profile-toggle', '#messages-toggle', '#rows-toggle']) {
      await page.click(id);
      await frames(page);
    }
    const width = () => page.evaluate(() => ({ stage: document.getElementById('stage').getBoundingClientRect().width, page: window.innerWidth }));
    let w = await width();
    await page.screenshot({ path: path.join(SHOTS, 'panels-open.png') });
    assert.ok(await page.isVisible('#profile-panel') && await page.isVisible('#comm-panel') && await page.isVisible('#rows-panel'), 'the three panels are open');
    assert.ok(w.stage >= 0.7 * w.page, `the timeline keeps ${(100 * w.stage / w.page).toFixed(0)} % of the width beside its panels`);
    const brief = await page.evaluate(() => window.weft.viewer.view_brief());
    assert.ok(Math.abs(brief.width - w.stage) < 2, 'the view is laid out for the stage it has');
    await page.click('#side-collapse');
    await frames(page);
    const folded = await width();
    assert.ok(folded.stage >= 0.95 * folded.page, `folded, the view takes the width (${folded.stage} of ${folded.page})`);
    assert.equal(await page.isVisible('#profile-panel'), false);
    await page.screenshot({ path: path.join(SHOTS, 'panels-folded.png') });
    await page.click('#side-collapse');
    await frames(page);
  } finally {
    await browser.close();
    server.close();
  }
  assert.deepEqual(problems, []);
});

test('keys after a search go to the view; a new file clears the pattern', { timeout: 300_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1280, height: 720 });
  try {
    assert.equal(await load(page, () => page.selectOption('#samples', 'timeline')), null);
    await page.click('#profile-toggle');
    await frames(page);
    // A search, Enter: the next keys zoom the view, not the box.
    await page.fill('#region-search', 'MPI');
    await page.press('#region-search', 'Enter');
    const hit = await page.evaluate(() => window.weft.viewer.view_brief().search);
    assert.ok(hit && hit.count > 0 && hit.at === 0, `the search found and showed a match: ${JSON.stringify(hit)}`);
    const before = await page.evaluate(() => window.weft.viewer.view_brief());
    await page.keyboard.press('s');
    await page.keyboard.press('s');
    const after = await page.evaluate(() => window.weft.viewer.view_brief());
    assert.equal(await page.inputValue('#region-search'), 'MPI', 'the keys did not go into the box');
    assert.ok(after.t1_ns - after.t0_ns > before.t1_ns - before.t0_ns, 'S zoomed the view out');
    // N steps to the next match from the view.
    await page.keyboard.press('n');
    assert.equal(await page.evaluate(() => window.weft.viewer.view_brief().search.at), 1, 'N went to the next match');
    // Escape leaves the box too (a search box's Escape also empties it, the browser's way); a press on the view
    // as well.
    await page.click('#region-search');
    await page.keyboard.press('Escape');
    await page.keyboard.press('w');
    assert.ok(!(await page.inputValue('#region-search')).includes('w'), 'after Escape the keys go to the view');
    await page.fill('#region-search', 'MPI');
    await page.click('#region-search');
    const stage = await page.evaluate(() => { const r = document.getElementById('stage').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
    await page.mouse.click(stage.x, stage.y);
    assert.notEqual(await page.evaluate(() => document.activeElement && document.activeElement.id), 'region-search', 'a press on the view leaves the box');

    // Another file: the pattern does not carry over.
    assert.equal(await load(page, () => page.selectOption('#samples', 'particles')), null);
    assert.equal(await page.inputValue('#region-search'), '', 'a new file clears the search box');
    assert.equal(await page.evaluate(() => window.weft.viewer.view_brief().search), null);
    assert.equal(await page.textContent('#region-hits'), '');
  } finally {
    await browser.close();
    server.close();
  }
  assert.deepEqual(problems, []);
});

test('the legend colours function groups apart; a colour chosen there is drawn and kept in the link', { timeout: 300_000 }, async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(outDir, 'python-labels.json');
  fs.writeFileSync(file, labelledTrace());
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1280, height: 720 });
  try {
    assert.equal(await load(page, () => page.setInputFiles('#file-input', file)), null);
    // Processes named by their labels, not three "python".
    const st = await state(page);
    const names = [...new Set(st.rows.map((r) => r.process))].sort();
    assert.deepEqual(names, ['python (CPU)', 'python (GPU 0)', 'python (GPU 1)']);
    assert.ok(await page.isVisible('#legend'), 'the timeline has a legend');
    const legend = await page.evaluate(() => window.weft.viewer.legend());
    const titles = legend.sections.map((s) => s.title);
    for (const t of ['MPI point-to-point', 'MPI collectives', 'MPI waits and tests', 'User code']) assert.ok(titles.includes(t), `${t} in ${titles}`);
    const colorOf = (n) => legend.sections.flatMap((s) => s.entries).find((e) => e.label === n).color;
    const hue = (hex) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
      const mx = Math.max(r, g, b), mn = Math.min(r, g, b), d = mx - mn;
      if (d === 0) return 0;
      const h = mx === r ? ((g - b) / d) % 6 : mx === g ? (b - r) / d + 2 : (r - g) / d + 4;
      return (h * 60 + 360) % 360;
    };
    const gap = (a, b) => { const d = Math.abs(hue(a) - hue(b)) % 360; return Math.min(d, 360 - d); };
    const [a2a, ar, wa] = ['MPI_Alltoall', 'MPI_Allreduce', 'MPI_Waitall'].map(colorOf);
    assert.ok(gap(a2a, ar) >= 12 && gap(a2a, wa) >= 12 && gap(ar, wa) >= 12, `distinct hues: ${a2a} ${ar} ${wa}`);
    // The profile table's colours are the drawn ones (Pane::region_color): the same as the legend's.
    const profile = await page.evaluate(() => window.weft.viewer.timeline_profile(true, ''));
    for (const r of profile.rows) assert.equal(r.color, colorOf(r.name).slice(0, 7), r.name);
    await page.screenshot({ path: path.join(SHOTS, 'legend-groups.png') });

    // Choose a colour for MPI_Waitall in the legend: drawn (the profile's colour), kept in the link.
    const entry = page.locator('#legend .legend-entry', { hasText: 'MPI_Waitall' }).locator('input[type="color"]');
    await entry.fill('#00aa55');
    await entry.dispatchEvent('change');
    await frames(page);
    const again = await page.evaluate(() => window.weft.viewer.timeline_profile(true, ''));
    assert.equal(again.rows.find((r) => r.name === 'MPI_Waitall').color, '#00aa55');
    const legend2 = await page.evaluate(() => window.weft.viewer.legend());
    assert.equal(legend2.sections.flatMap((s) => s.entries).find((e) => e.label === 'MPI_Waitall').color.slice(0, 7), '#00aa55');
    await page.waitForFunction(() => /(^|&)col=r\d/.test(location.hash.slice(1)), null, { timeout: 5000 });
    const hash = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('col'));
    assert.match(hash, /^r\d+:00aa55$/);
    // A group's colour: its functions are spread around it.
    const group = page.locator('#legend .legend-entry[data-edit="mpi_coll"] input[type="color"]');
    await group.fill('#2a9d8f');
    await group.dispatchEvent('change');
    const collOf = (l) => l.sections.find((s) => s.title === 'MPI collectives').entries.map((e) => e.color.slice(0, 7));
    const coll = collOf(await page.evaluate(() => window.weft.viewer.legend()));
    assert.ok(coll.includes('#2a9d8f'), coll.join(' '));
    const was = collOf(legend);
    assert.ok(coll.every((c) => !was.includes(c)), `every collective took a colour near the chosen one: ${was.join(' ')} -> ${coll.join(' ')}`);
    await page.screenshot({ path: path.join(SHOTS, 'legend-edited.png') });
  } finally {
    await browser.close();
    server.close();
  }
  assert.deepEqual(problems, []);
});

test('a ?store= on a host without CORS says which header to set', { timeout: 120_000 }, async () => {
  const host = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  const store = `http://127.0.0.1:${host.address().port}/runs/store/`;
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}?store=${encodeURIComponent(store)}`);
  try {
    await page.waitForFunction(() => window.weft.errors.length > 0, null, { timeout: 60_000 });
    const message = await page.textContent('#error-text');
    assert.match(message, /manifest\.json/);
    assert.match(message, /CORS/);
    assert.match(message, /Access-Control-Allow-Origin/, message);
    assert.deepEqual(problems.filter((p) => !/CORS|Failed to load resource|ERR_FAILED/.test(p)), []);
  } finally {
    await browser.close();
    server.close();
    host.close();
  }
});
