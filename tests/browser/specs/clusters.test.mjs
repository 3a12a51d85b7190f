// The clusters panel (issue #55) on a generated Chrome trace of three known behaviours and a planted outlier
// (as crates/samples/src/behaviours.rs: computing, writing and waiting ranks; one that computes half and waits
// half) and on the real 32-rank Score-P stencil from ../shared/traces (skipped, saying so, when absent): the
// panel opens from the timeline's options and clusters the open trace in the worker; its words, clusters
// (size, representative, spread) and outliers equal `weft clusters --json`; on the generated run the three
// behaviours are recovered and the planted location is the outlier; "group ranks by behaviour" shows exactly
// one row per cluster (its representative, badged with size and spread) and the outliers, and turning it off
// brings every row back. Screenshots: tests/out/clusters-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { LOCATIONS, PLANTED, behaviourOf, behaviours } from '../lib/behaviours.mjs';
import { startServer, openPage, waitReady, viewState, repoRoot, screenshot, weftArgs } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const STENCIL = path.join(SHARED, 'otf2/tracer-stencil4d-mpi-32');

const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString();
const weftJson = (...args) => JSON.parse(weft(...args, '--json'));
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function clustered(page, act) {
  const before = await page.evaluate(() => window.weft.clusterings || 0);
  await act();
  await page.waitForFunction((n) => (window.weft.clusterings || 0) > n, before, { timeout: 120_000 });
  await frames(page);
}

async function checkTrace(page, file, name, loads, known) {
  if (fs.statSync(file).isDirectory()) await page.setInputFiles('#folder-input', file);
  else await page.setInputFiles('#file-input', file);
  await waitReady(page, loads);
  const open = await page.$eval('#clusters-toggle', (b) => b.getAttribute('aria-pressed')) === 'true';
  // The panel clusters the trace by itself once shown (on opening, or the open panel on a new trace).
  if (!open) await clustered(page, () => page.click('#clusters-toggle'));
  else await page.waitForFunction((n) => (window.weft.clusterings || 0) >= n, loads - 1, { timeout: 120_000 });
  await page.waitForSelector('#clusters-panel:not([hidden])');
  const cli = weftJson('clusters', file);
  assert.equal(await page.$eval('#clusters-summary', (e) => e.textContent), cli.summary, `${name}: the grouping in the words of weft clusters`);
  const rows = await page.$$eval('#clusters-table tr.cluster', (trs) => trs.map((t) => [Number(t.dataset.size), Number(t.dataset.medoid), Number(t.dataset.spread)]));
  assert.deepEqual(rows, cli.clusters.map((c) => [c.size, c.medoid, c.spread_ns]), `${name}: the clusters of weft clusters --json`);
  const outliers = await page.$$eval('#clusters-table tr.outlier', (trs) => trs.map((t) => [Number(t.dataset.location), Number(t.dataset.cluster), t.dataset.reason]));
  assert.deepEqual(outliers, cli.outliers.map((o) => [o.location, o.cluster, o.reason]), `${name}: the outliers of weft clusters --json`);

  const all = (await viewState(page)).rows;
  const nameOf = new Map(all.map((r) => [r.location, r.name]));
  if (known) {
    // Three clusters of more than one location, each one behaviour whole; the planted one the only outlier.
    const l = (loc) => Number(nameOf.get(loc).slice(1));
    const groups = cli.clusters.filter((c) => c.size > 1).map((c) => c.members.map(l).filter((x) => x !== PLANTED).sort((a, b) => a - b));
    const want = [0, 1, 2].map((b) => [...Array(LOCATIONS).keys()].filter((x) => behaviourOf(x) === b));
    assert.deepEqual(groups.map((g) => g.join(',')).sort(), want.map((g) => g.join(',')).sort(), `${name}: the three behaviours recovered`);
    assert.deepEqual(cli.outliers.map((o) => l(o.location)), [PLANTED], `${name}: the planted outlier`);
    assert.match(cli.summary, /3 clusters/);
  }
  await screenshot(page, `clusters-${name}-panel`);

  // Grouped: one row per cluster and the outliers, badged; then every row again.
  await page.check('#clusters-group');
  await frames(page);
  const want = [...new Set([...cli.clusters.map((c) => c.medoid), ...cli.outliers.map((o) => o.location)])].sort((a, b) => a - b);
  const grouped = await viewState(page);
  assert.deepEqual(grouped.rows.map((r) => r.location).sort((a, b) => a - b), want, `${name}: the representatives and the outliers shown`);
  await frames(page);
  const badges = await page.$$eval('#cluster-badges .cluster-badge', (bs) => bs.map((b) => [Number(b.dataset.location), b.textContent]));
  assert.equal(badges.length, want.length, `${name}: a badge per row shown`);
  for (const [i, c] of cli.clusters.entries()) {
    const b = badges.find(([loc]) => loc === c.medoid);
    assert.ok(b && b[1].startsWith(`cluster ${i}: ${c.size.toLocaleString('en-US')} ranks, spread `), `${name}: cluster ${i}'s badge (${b && b[1]})`);
  }
  await screenshot(page, `clusters-${name}-grouped`);
  await page.uncheck('#clusters-group');
  await frames(page);
  assert.equal((await viewState(page)).rows.length, all.length, `${name}: every row back`);
}

test('the clusters panel says weft clusters and groups the rows by behaviour (webgl)', { timeout: 600_000 }, async () => {
  const traces = [['behaviours', behaviours('clusters-behaviours.json'), true]];
  if (fs.existsSync(STENCIL)) traces.push(['stencil', STENCIL, false]);
  else console.log(`SKIPPED the real stencil trace: ${STENCIL} does not exist`);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1500, height: 950 });
  try {
    let loads = 1;
    for (const [name, file, known] of traces) await checkTrace(page, file, name, ++loads, known);
    assert.deepEqual(await page.evaluate(() => window.weft.viewer.built_on_page()), [], 'the page computed nothing');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
