// Several files of one run on the page (issue #57): a folder of OTF2 archives (the folder picker) and three
// Perfetto traces dropped together open as one run, each file a rank, with the figures of `weft info` on the
// same files and the merge note saying how the clocks were aligned; a rocprofv3 pftrace (written by
// tests/oracle/perfetto_traces.py's Rocprof generator with Perfetto's own protos) shows its HIP API, kernel
// queue and copy rows, a kernel under the pointer and a HIP call's flow to its kernel; a Darshan log given in
// the folder of the OTF2 trace of its job shows its I/O rows under the trace's ranks, with the merge note.
// The Python halves need the repository's .venv (the `perfetto` package, pydarshan's shipped logs); each part
// skips, saying so, without it. Screenshots: tests/out/run-sets-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, screenshot, viewState, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const PYTHON = path.join(repoRoot, '.venv/bin/python');
const SCRIPT = path.join(repoRoot, 'tests/oracle/perfetto_traces.py');

/** Drop `files` ([name, bytes]) together on the page. */
async function dropFiles(page, files) {
  await page.evaluate((files) => {
    const dt = new DataTransfer();
    for (const [name, b64] of files) {
      const bin = atob(b64);
      const arr = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
      dt.items.add(new File([arr], name));
    }
    const target = document.getElementById('stage');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map(([n, b]) => [n, Buffer.from(b).toString('base64')]));
}

/** The merge note of the trace shown (its Merged warning's example). */
const mergeNote = (page) => page.evaluate(() => {
  const kinds = (window.weft.lastSummary && window.weft.lastSummary.warning_kinds) || [];
  return kinds.flatMap((k) => k.examples || []).find((e) => / merged/.test(e)) || '';
});

/** The page's summary figures beside `weft info --json`'s. */
async function sameAsInfo(page, info, what) {
  const s = await page.evaluate(() => window.weft.lastSummary);
  for (const k of ['processes', 'locations', 'intervals', 'messages', 'flows', 'collectives']) assert.equal(s[k], info[k], `${what}: ${k}`);
}

test('OTF2 archives in a folder and Perfetto traces dropped together are one run', { timeout: 600_000 }, async () => {
  const dir = path.join(outDir, 'run-sets');
  fs.rmSync(dir, { recursive: true, force: true });
  const archives = path.join(dir, 'archives');
  for (let k = 0; k < 3; k++) weft('generate', 'otf2', '-o', path.join(archives, `job${k}`, 'traces'), '--ranks', String(2 + (k % 2)), '--events', '3000', '--seed', String(k + 1));
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1400, height: 900 });
  try {
    let loads = 1;
    await page.setInputFiles('#folder-input', archives);
    await waitReady(page, ++loads, 120_000);
    assert.equal(await page.evaluate(() => window.weft.state), 'ready', await page.textContent('#error').catch(() => ''));
    await sameAsInfo(page, JSON.parse(weft('info', archives, '--json')), 'OTF2 archives');
    assert.match(await mergeNote(page), /3 ranks merged \(3 OTF2 archives, each a rank\); clocks aligned by first event/);
    const vs = await viewState(page);
    const processes = [...new Set(vs.rows.map((r) => r.process))];
    assert.deepEqual(processes, [0, 1, 2].map((k) => `rank ${k}: job${k}/traces/traces.otf2`), 'each archive a rank');
    await screenshot(page, 'run-sets-otf2');

    if (!fs.existsSync(PYTHON)) {
      console.log(`SKIPPED the Perfetto half: no ${PYTHON} (tests/oracle/requirements.txt)`);
    } else {
      const pf = path.join(dir, 'pftrace');
      execFileSync(PYTHON, [SCRIPT, pf, 'rank_0', 'rank_1', 'rank_2']);
      const names = ['rank_0', 'rank_1', 'rank_2'].map((n) => `${n}.pftrace`);
      await dropFiles(page, names.map((n) => [n, fs.readFileSync(path.join(pf, n))]));
      await waitReady(page, ++loads, 120_000);
      await sameAsInfo(page, JSON.parse(weft('info', ...names.map((n) => path.join(pf, n)), '--json')), 'Perfetto traces');
      assert.match(await mergeNote(page), /3 ranks merged \(3 Perfetto traces, each a rank\); clocks aligned by each trace's clock snapshot/);
      const rows = (await viewState(page)).rows;
      assert.deepEqual([...new Set(rows.map((r) => r.process))], names.map((n, k) => `rank ${k}: ${n}`));
      await screenshot(page, 'run-sets-perfetto');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a rocprofv3 pftrace: its rows, a kernel under the pointer and a HIP call\'s flow', { timeout: 300_000 }, async (t) => {
  if (!fs.existsSync(PYTHON)) { t.skip(`no ${PYTHON} with the perfetto package (tests/oracle/requirements.txt)`); return; }
  const dir = path.join(outDir, 'run-sets-rocprof');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(PYTHON, [SCRIPT, dir, 'rocprofv3_queues']);
  const want = JSON.parse(fs.readFileSync(path.join(dir, 'rocprofv3_queues.json'), 'utf8'));
  const bytes = fs.readFileSync(path.join(dir, 'rocprofv3_queues.pftrace'));
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1400, height: 1000 });
  try {
    await dropFiles(page, [['rocprofv3_queues.pftrace', bytes]]);
    await waitReady(page, 2, 120_000);
    let vs = await viewState(page);
    // Every readable location rocprofv3's layout gives: HIP/HSA API and markers per thread, kernels per agent
    // and queue, copies per agent and thread.
    const rowNames = vs.rows.map((r) => `${r.process}/${r.name}`);
    for (const loc of Object.keys(want.locations)) assert.ok(rowNames.includes(loc), `a row for ${loc}: ${rowNames}`);
    for (const part of ['HIP API', 'queue 0 · kernels', 'queue 1 · kernels', 'memory copies']) {
      assert.ok(vs.rows.some((r) => r.name.includes(part)), `rows of ${part}`);
    }
    await screenshot(page, 'run-sets-rocprof');

    // The trace's origin: its first event (slices and counter samples, as built).
    const origin = Math.min(...want.slices.map((s) => s[4]), ...Object.values(want.counters).flatMap((v) => v.map((x) => x[0])));
    const rowOf = (track) => vs.rows.find((r) => r.name === track);
    // Zoom on a HIP call and its kernel (the flow's ends), then hover the kernel's middle and the flow's.
    const flow = want.flows.find((f) => f[2].includes('kernels'));
    assert.ok(flow, 'a flow from a HIP call to a kernel');
    const kernel = want.slices.find((s) => s[1] === flow[2] && s[4] === flow[3]);
    const call = want.slices.find((s) => s[1] === flow[0] && s[4] === flow[1]);
    const t0 = call[4] - origin - (kernel[4] + kernel[5] - call[4]) * 0.2;
    const t1 = kernel[4] + kernel[5] - origin + (kernel[4] + kernel[5] - call[4]) * 0.2;
    await page.evaluate(([a, b]) => { window.weft.viewer.set_time_range(a, b); }, [t0, t1]);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    vs = await viewState(page);
    const xOf = (ns) => vs.track_x0 + ((ns - origin - vs.t0_ns) / (vs.t1_ns - vs.t0_ns)) * (vs.width - vs.track_x0);
    const yOf = (track, depth) => rowOf(track).y + (depth + 0.5) * vs.lane_px;
    const kx = xOf(kernel[4] + kernel[5] / 2), ky = yOf(kernel[1], kernel[6]);
    const hk = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [kx, ky]);
    assert.ok(hk && JSON.stringify(hk).includes(kernel[2]), `the kernel ${kernel[2]} under the pointer: ${JSON.stringify(hk)}`);
    const from = { x: xOf(call[4]), y: yOf(call[1], call[6]) }, to = { x: xOf(kernel[4]), y: yOf(kernel[1], kernel[6]) };
    let hf = null;
    for (const u of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {
      const h = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [from.x + u * (to.x - from.x), from.y + u * (to.y - from.y)]);
      if (h && h.detail && h.detail.to !== undefined) { hf = h; break; }
    }
    assert.ok(hf, 'the flow under the pointer somewhere along it');
    assert.equal(hf.detail.from, call[2]);
    assert.equal(hf.detail.to, kernel[2]);
    await page.mouse.move(5, 5);
    await screenshot(page, 'run-sets-rocprof-flow');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The .darshan file pydarshan ships named `name`, or null. */
function shippedLog(name) {
  const lib = path.join(repoRoot, '.venv/lib');
  if (!fs.existsSync(lib)) return null;
  for (const py of fs.readdirSync(lib)) {
    const stack = [path.join(lib, py, 'site-packages/darshan')];
    while (stack.length) {
      const d = stack.pop();
      let entries = [];
      try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { continue; }
      for (const e of entries) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) stack.push(p);
        else if (e.name === name) return p;
      }
    }
  }
  return null;
}

test('a Darshan log in the folder of its job\'s OTF2 trace: I/O rows under the trace\'s ranks', { timeout: 300_000 }, async (t) => {
  const log = shippedLog('ior_hdf5_example.darshan');
  if (!log) { t.skip('pydarshan\'s ior_hdf5_example.darshan is absent under .venv (tests/oracle/requirements.txt)'); return; }
  const nprocs = JSON.parse(weft('info', log, '--json')).processes;
  const dir = path.join(outDir, 'run-sets-io');
  fs.rmSync(dir, { recursive: true, force: true });
  weft('generate', 'otf2', '-o', path.join(dir, 'traces'), '--ranks', String(nprocs), '--events', '4000');
  fs.copyFileSync(log, path.join(dir, 'ior_hdf5_example.darshan'));
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1400, height: 1000 });
  try {
    await page.setInputFiles('#folder-input', dir);
    await waitReady(page, 2, 120_000);
    await sameAsInfo(page, JSON.parse(weft('info', dir, '--json')), 'trace and log');
    const note = await mergeNote(page);
    assert.match(note, new RegExp(`the Darshan log .*ior_hdf5_example\\.darshan merged onto its ${nprocs} ranks: \\d+ I/O intervals`));
    assert.match(note, /clocks aligned by job start/);
    const vs = await viewState(page);
    // Each rank's process holds its trace rows and, below, its I/O rows.
    // (Records of files shared by every rank, Darshan's rank -1, are a process of their own.)
    const processes = [...new Set(vs.rows.map((r) => r.process))].filter((p) => !p.startsWith('all ranks'));
    assert.equal(processes.length, nprocs, `the trace's ranks, no other process: ${processes}`);
    for (const p of processes) {
      const rows = vs.rows.filter((r) => r.process === p).map((r) => r.name);
      assert.ok(rows.some((n) => /^(POSIX|MPIIO|STDIO|H5)/.test(n)), `${p}: its I/O rows: ${rows}`);
      assert.ok(rows.some((n) => !/^(POSIX|MPIIO|STDIO|H5)/.test(n)), `${p}: its trace rows: ${rows}`);
    }
    await screenshot(page, 'run-sets-darshan');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
