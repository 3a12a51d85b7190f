// The grain graph view in the page: the built-in generated fib sample, and the real MIR profile of fib(45)
// (the papers' Figure 1f, 8,192 tasks) where ../shared/traces is present. Problem counts are checked against
// the profile's own columns, parsed here independently; hovering a grain names its task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, repoRoot } from '../lib/harness.mjs';

const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;

/** Rows of a quoted CSV with a header (the MIR task-stats form). */
function csvRows(text) {
  const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const head = lines[0].split(',').map((h) => h.replaceAll('"', ''));
  return lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v.replaceAll('"', '')])));
}

async function hoverSample(page, st) {
  const origin = await stageOrigin(page);
  const n = st.sample_nodes.find((s) => s.w > 3 && s.h > 3);
  assert.ok(n, 'some grain is on screen and large enough to hover');
  await page.mouse.move(origin.x + n.x + n.w / 2, origin.y + n.y + n.h / 2);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  assert.match(tip, new RegExp(`task ${n.task}\\b`));
  assert.match(tip, /exec_cycles: \d+/);
  await page.mouse.move(2, 2);
}

test('grain graphs in the page', { timeout: 300_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    // Built-in sample: fib with cutoff 8 has 2^(8+1) tasks.
    await page.selectOption('#samples', 'grains');
    await waitReady(page, 2);
    let st = await viewState(page);
    assert.equal(st.view, 'grains');
    assert.equal(st.grains, 512);
    assert.equal(st.from_nesting, true, 'a profile is laid out from its fork-join nesting');
    const shot = await screenshot(page, 'grains-sample');
    const origin = await stageOrigin(page);
    let painted = 0;
    for (let y = 10; y < 600; y += 10) for (let x = 10; x < 1270; x += 10) if (!light(shot.pixel(origin.x + x, origin.y + y))) painted++;
    assert.ok(painted > 100, `the graph is drawn (${painted} painted samples)`);
    for (let i = 0; i < 8; i++) await page.keyboard.press('w');
    await hoverSample(page, await viewState(page));

    const fib = path.join(repoRoot, '../shared/traces/grain-graphs/anamud-test-data/fib/task-stats.merged');
    if (!fs.existsSync(fib)) {
      console.log(`SKIPPED fib(45) grain graph: ${fib} does not exist`);
    } else {
      const text = fs.readFileSync(fib);
      const rows = csvRows(text.toString());
      await dropFile(page, 'task-stats.merged', text);
      await waitReady(page, 3);
      // 8,192 grains are narrower than a pixel fitted: the graph opens aggregated (issue 14); the grain view's tab.
      assert.equal((await viewState(page)).view, 'aggregate');
      await page.click('#views button[data-view="grains"]');
      st = await viewState(page);
      assert.equal(st.grains, rows.length, 'one grain per task row');
      assert.equal(st.grains, 8192);
      // Parallel benefit below 1 (the papers' threshold), counted from the profile's own column.
      const lowBenefit = rows.filter((r) => r.parallel_benefit !== 'NA' && Number(r.parallel_benefit) < 1).length;
      assert.equal(st.problems.find((p) => p.metric === 'parallel_benefit').count, lowBenefit);
      await page.selectOption('#view-options select >> nth=0', 'parallel_benefit');
      st = await viewState(page);
      assert.equal(st.problem, 'parallel_benefit');
      await screenshot(page, 'grains-fib45-parallel-benefit');
      // Locate a task by id (the search the page offers), then hover it at the centre of the view.
      await page.fill('#grain-search', '4097');
      await page.press('#grain-search', 'Enter');
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const located = await viewState(page);
      const hit = located.sample_nodes.find((n) => n.task === 4097);
      assert.ok(hit, 'task 4097 is on screen after locating it');
      await hoverSample(page, { sample_nodes: [hit] });
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
