// Never a blank view without a reason (issue 14): every view of every input the page offers either draws
// something of the data or says on the pane why it does not. Inputs: the built-in samples, a generated trace
// whose every region is MPI (the busy definition "compute" finds nothing; the pane says so and offers "any
// region"), and every trace in ../shared/traces that weft reads (skipped, saying so, when the folder is absent).
// Each view is screenshot into tests/out/every-view/ (look at them). WebGPU only, small viewport: software
// rendering is slow, and what is checked does not depend on the backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, repoRoot, outDir } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const SHOTS = path.join(outDir, 'every-view');
const SAMPLES = ['timeline', 'fib', 'rsa', 'mergesort', 'grains', 'particles'];

/** A Chrome trace of `ranks` MPI processes whose every slice is an MPI call. */
function allMpiTrace(ranks = 4) {
  const ev = [];
  for (let r = 0; r < ranks; r++) {
    ev.push({ ph: 'M', name: 'process_name', pid: r, tid: 0, args: { name: `rank ${r}` } });
    let t = 0;
    for (const [name, dur] of [['MPI_Init', 40], ['MPI_Irecv', 5], ['MPI_Send', 10 + r], ['MPI_Wait', 30 - r], ['MPI_Allreduce', 25], ['MPI_Finalize', 15]]) {
      ev.push({ ph: 'X', name, cat: 'mpi', pid: r, tid: 0, ts: t, dur });
      t += dur + 2;
    }
  }
  return Buffer.from(JSON.stringify({ traceEvents: ev }));
}

/** Inputs from ../shared/traces in formats weft reads: [name, kind ('file' | 'folder'), path]. */
function sharedInputs() {
  const out = [];
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
  if (fs.existsSync(sub('grain-graphs'))) {
    for (const f of walk(sub('grain-graphs')).filter((f) => /\.graphml$|task-stats\.merged$/.test(f))) out.push([path.relative(SHARED, f), 'file', f]);
  }
  for (const d of ['mpe-clog-slog2', 'projections', 'hpctoolkit', 'nsys']) {
    if (fs.existsSync(sub(d))) console.log(`SKIPPED shared/traces/${d}: not a format weft reads`);
  }
  return out;
}

const slug = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Run `act`, then wait until the page has loaded something new or reported an error; the error, if any. */
async function load(page, act) {
  const before = await page.evaluate(() => ({ loads: window.weft.loads, errors: window.weft.errors.length }));
  await act();
  await page.waitForFunction((b) => window.weft.loads > b.loads || window.weft.errors.length > b.errors, before, { timeout: 120_000 });
  await frames(page);
  return page.evaluate((b) => (window.weft.errors.length > b.errors ? window.weft.errors[window.weft.errors.length - 1] : null), before);
}

/** What the shown view draws: data marks, the pane's notice, and any offer in the view's options. */
const drawn = (page) => page.evaluate(() => {
  const v = window.weft.viewer;
  v.invalidate();
  v.frame();
  const s = v.stats();
  const offer = document.querySelector('#view-options .offer');
  return { view: v.view(), marks: s.marks, rects: s.rects, notice: s.notice || null, offer: offer ? offer.textContent : null };
});

/** Visit every view of what is loaded (and the file's other views, built on demand); returns what each drew. */
async function everyView(page, name, seen) {
  const results = [];
  const visit = async (label) => {
    for (const view of await page.evaluate(() => window.weft.viewer.views())) {
      await page.click(`#views button[data-view="${view}"]`);
      await frames(page);
      const d = await drawn(page);
      await page.screenshot({ path: path.join(SHOTS, `${slug(name)}${label}-${view}.png`) });
      results.push({ name, view: `${label.replace(/^-/, '')}${label ? '/' : ''}${view}`, ...d });
      seen.add(view);
    }
  };
  await visit('');
  const fileViews = await page.evaluate(() => (window.weft.fileViews || []).filter((k) => k !== window.weft.lastKind));
  for (const kind of fileViews) {
    const err = await load(page, () => page.click(`button[data-file-view="${kind}"]`));
    if (err) { results.push({ name, view: kind, error: err }); continue; }
    await visit(`-${kind}`);
  }
  return results;
}

test('every view of every input draws something or says why not', { timeout: 900_000 }, async () => {
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 960, height: 560 });
  const all = [];
  const seen = new Set();
  const notRead = [];
  try {
    // Built-in samples, generated in the worker.
    for (const s of SAMPLES) {
      const err = await load(page, () => page.selectOption('#samples', s));
      assert.equal(err, null, `sample ${s}`);
      all.push(...await everyView(page, `sample-${s}`, seen));
    }

    // Every region MPI: under "compute" both panes are empty, say so, and the page offers "any region".
    const mpiFile = path.join(outDir, 'all-mpi.json');
    fs.writeFileSync(mpiFile, allMpiTrace());
    assert.equal(await load(page, () => page.setInputFiles('#file-input', mpiFile)), null);
    all.push(...await everyView(page, 'generated-all-mpi', seen));
    await page.click('#views button[data-view="moments"]');
    await frames(page);
    let d = await drawn(page);
    assert.equal(d.marks, 0, 'no busy time under compute');
    assert.match(d.notice || '', /^No busy time/, 'the pane says why it is empty');
    assert.match(d.notice, /any region/);
    assert.ok(d.offer, 'the page offers the switch to any region');
    await page.click('#busy-any');
    await page.waitForFunction(() => window.weft.viewer.view_state().busy === 'any');
    await frames(page);
    d = await drawn(page);
    assert.ok(d.marks > 0, 'under any region the MPI calls are busy time');
    assert.equal(d.notice, null);
    assert.equal(d.offer, null, 'the offer goes once taken');
    assert.equal((await page.evaluate(() => window.weft.viewer.view_state())).busy, 'any');
    await page.screenshot({ path: path.join(SHOTS, 'generated-all-mpi-moments-any.png') });

    if (!fs.existsSync(SHARED)) {
      console.log(`SKIPPED real traces: ${SHARED} does not exist (set WEFT_SHARED_TRACES to its path)`);
    } else {
      for (const [name, kind, p] of sharedInputs()) {
        const err = await load(page, () => page.setInputFiles(kind === 'folder' ? '#folder-input' : '#file-input', p));
        if (err) { notRead.push(`${name}: ${err}`); continue; }
        const first = await page.evaluate(() => window.weft.viewer.view());
        if (/fib\/task-stats\.merged$/.test(name)) {
          // fib(45): 8,192 grains would be narrower than a pixel fitted; it opens aggregated and says so.
          assert.equal(first, 'aggregate', 'fib(45) opens in the Aggregated view');
          assert.match((await page.evaluate(() => window.weft.viewer.view_state())).intro || '', /8,192 grains/);
          await page.screenshot({ path: path.join(SHOTS, `${slug(name)}-opened.png`) });
        }
        all.push(...await everyView(page, name, seen));
      }
      if (notRead.length) console.log(`not read by weft (refused with a message):\n  ${notRead.join('\n  ')}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  const failed = all.filter((r) => r.error || (r.marks === 0 && !r.notice && !r.offer));
  const said = all.filter((r) => r.marks === 0 && (r.notice || r.offer));
  console.log(`${all.length} views of ${new Set(all.map((r) => r.name)).size} inputs; views seen: ${[...seen].join(', ')}`);
  for (const r of said) console.log(`  empty, says why: ${r.name} ${r.view}: ${r.notice || r.offer}`);
  assert.deepEqual(failed.map((r) => `${r.name} ${r.view}: ${r.error || 'draws nothing and says nothing'}`), []);
  for (const v of ['timeline', 'moments', 'particles', 'execgraph', 'grains', 'aggregate']) assert.ok(seen.has(v), `view ${v} was visited`);
  assert.deepEqual(problems, []);
});
