// An OTF2 trace of a threaded program offers its other views in the page: the timeline first, then the
// execution graph of its threads and the grain graph of its tasks as tabs built on demand by the worker;
// their figures equal the CLI's on the same archive, and the timeline comes back. Archives come from the
// official OTF2 writer (the test set-up's .venv).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { startServer, openPage, waitReady, screenshot, repoRoot, outDir, weftArgs } from '../lib/harness.mjs';

// The count of thread/task warnings the CLI prints on stderr for a graph view (0 when it prints none).
const cliWarnings = (...args) => {
  const r = spawnSync(...weftArgs(...args), { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const m = /warning: (\d+) thread or task events could not be paired/.exec(r.stderr);
  return m ? Number(m[1]) : 0;
};

const weft = (...args) => JSON.parse(execFileSync(...weftArgs(...args), { cwd: repoRoot }).toString());

test('threads and tasks of an OTF2 trace open as views of it', { timeout: 300_000 }, async (t) => {
  const py = path.join(repoRoot, '.venv/bin/python');
  if (!fs.existsSync(py)) {
    console.log('SKIPPED OTF2 thread views: .venv with the official otf2 package is missing (run scripts/setup.sh --browser)');
    t.skip('no .venv');
    return;
  }
  const dir = path.join(outDir, 'otf2-threads');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(py, [path.join(repoRoot, 'tests/oracle/otf2_oracle.py'), 'threads', dir]);
  const hybrid = path.join(dir, 'hybrid/trace');
  const tasks = path.join(dir, 'omp_tasks/trace');
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  const state = () => page.evaluate(() => ({ kind: window.weft.lastKind, views: window.weft.fileViews, s: window.weft.lastSummary, loads: window.weft.loads }));
  try {
    // MPI + OpenMP: a timeline with intervals, and the execution graph of its threads.
    await page.setInputFiles('#folder-input', hybrid);
    await waitReady(page, 2);
    let st = await state();
    assert.equal(st.kind, 'trace');
    assert.deepEqual(st.views, ['trace', 'execgraph']);
    const info = weft('info', '--json', hybrid);
    assert.equal(st.s.intervals, info.intervals);
    await page.click('button[data-file-view="execgraph"]');
    await waitReady(page, 3);
    st = await state();
    assert.equal(st.kind, 'execgraph');
    const eg = weft('execgraph', '--json', hybrid);
    for (const k of ['threads', 'nodes', 'columns', 'crossings']) assert.equal(st.s[k], eg[k], `execgraph ${k}`);
    // Threads are headed by short names (location.instance), not by the long ids the mapping gives them.
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.match(svg, />\d+\.\d+</, 'a team member headed location.instance');
    assert.doesNotMatch(svg, />T\d{6,}/, 'no long thread ids as headers');
    await screenshot(page, 'otf2-hybrid-execgraph');
    // Back to the timeline of the same file.
    await page.click('button[data-file-view="trace"]');
    await waitReady(page, 4);
    st = await state();
    assert.equal(st.kind, 'trace');
    assert.equal(st.s.intervals, info.intervals);

    // OpenMP tasks: the grain graph of its tasks.
    await page.setInputFiles('#folder-input', tasks);
    await waitReady(page, 5);
    st = await state();
    assert.ok(st.views.includes('grains'), `views: ${st.views}`);
    if (st.kind !== 'grains') {
      await page.click('button[data-file-view="grains"]');
      await waitReady(page, 6);
      st = await state();
    }
    assert.equal(st.kind, 'grains');
    const gr = weft('grains', '--json', tasks);
    for (const k of ['grains', 'nodes', 'edges', 'critical_path_length']) assert.equal(st.s[k], gr[k], `grains ${k}`);
    assert.deepEqual(st.s.problems, gr.problems);
    await screenshot(page, 'otf2-tasks-grains');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('the graph views of an OTF2 trace show the warnings of their mapping', { timeout: 300_000 }, async (t) => {
  const py = path.join(repoRoot, '.venv/bin/python');
  if (!fs.existsSync(py)) {
    console.log('SKIPPED OTF2 view warnings: .venv with the official otf2 package is missing (run scripts/setup.sh --browser)');
    t.skip('no .venv');
    return;
  }
  const dir = path.join(outDir, 'otf2-threads-warnings');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(py, [path.join(repoRoot, 'tests/oracle/otf2_oracle.py'), 'threads', dir]);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  const state = () => page.evaluate(() => ({
    kind: window.weft.lastKind, views: window.weft.fileViews, s: window.weft.lastSummary,
    text: document.getElementById('summary').textContent,
    button: document.getElementById('warnings').hidden ? null : document.getElementById('warnings').textContent,
    panel: document.getElementById('warnings-panel').textContent,
  }));
  // Do something that loads a view, and wait for it.
  const loading = async (action) => {
    const n = await page.evaluate(() => window.weft.loads);
    await action();
    await waitReady(page, n + 1);
  };
  try {
    // Unmatched thread records: the execution graph's header says how many and what.
    const bad = path.join(dir, 'bad/trace');
    await loading(() => page.setInputFiles('#folder-input', bad));
    await loading(() => page.click('button[data-file-view="execgraph"]'));
    let st = await state();
    assert.equal(st.kind, 'execgraph');
    const egWarnings = cliWarnings('execgraph', '--json', bad);
    assert.ok(egWarnings >= 5, `CLI warnings ${egWarnings}`);
    assert.equal(st.s.warnings, egWarnings, 'the page counts what the CLI counts');
    assert.equal(st.s.warnings_left_out + st.s.warnings_repaired, egWarnings);
    // The header's warnings button counts them by effect, its panel lists them (as for a timeline).
    assert.match(st.button || '', /left out|repaired/);
    assert.match(st.panel, /THREAD_CREATE|THREAD_WAIT|never created/);

    // Unmatched task records: the grain graph's header likewise.
    const tasksBad = path.join(dir, 'tasks_bad/trace');
    await loading(() => page.setInputFiles('#folder-input', tasksBad));
    st = await state();
    if (st.kind !== 'grains') {
      await loading(() => page.click('button[data-file-view="grains"]'));
      st = await state();
    }
    assert.equal(st.kind, 'grains');
    const grWarnings = cliWarnings('grains', '--json', tasksBad);
    assert.ok(grWarnings >= 3, `CLI warnings ${grWarnings}`);
    assert.equal(st.s.warnings, grWarnings);
    assert.equal(st.s.warnings_left_out + st.s.warnings_repaired, grWarnings);
    assert.match(st.button || '', /left out|repaired/);
    assert.match(st.panel, /never run/);

    // A clean trace shows none.
    await loading(() => page.setInputFiles('#folder-input', path.join(dir, 'fib8_nofork/trace')));
    st = await state();
    if (st.kind !== 'grains') {
      await loading(() => page.click('button[data-file-view="grains"]'));
      st = await state();
    }
    assert.equal(st.s.warnings, 0);
    assert.equal(st.button, null, 'no warnings button for a clean trace');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
