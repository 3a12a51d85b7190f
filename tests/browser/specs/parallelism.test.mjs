// The parallelism profile below the grain graph, on the real MIR profile of an OpenMP for-loop
// (../shared/traces/grain-graphs/anamud-test-data/for-loop): the strip is drawn; hovering an instant on it
// outlines exactly the grains `weft grains --json --running-at T` lists for that instant, and the count the
// CLI's profile gives there; hovering a grain marks its span on the strip; colour by cpu_id repaints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, repoRoot, cargoArgs } from '../lib/harness.mjs';

const WEFT = path.join(repoRoot, 'target/debug/weft');
const FILE = path.join(repoRoot, '../shared/traces/grain-graphs/anamud-test-data/for-loop/task-stats.merged');
const light = ([r, g, b]) => r > 225 && g > 225 && b > 225;
const cli = (...args) => JSON.parse(execFileSync(WEFT, ['grains', FILE, '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 }));

test('parallelism profile linked to the grain graph', { timeout: 300_000 }, async (t) => {
  if (!fs.existsSync(FILE)) { t.skip(`${FILE} does not exist`); return; }
  if (!fs.existsSync(WEFT)) execFileSync('cargo', cargoArgs('build', '-q', '--bin', 'weft'), { cwd: repoRoot });
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url);
  try {
    await dropFile(page, 'task-stats.merged', fs.readFileSync(FILE));
    await waitReady(page, 2);
    if ((await viewState(page)).view !== 'grains') await page.click('#views button[data-view="grains"]');
    let st = await viewState(page);
    assert.equal(st.view, 'grains');
    const whole = cli();
    assert.equal(st.grains, whole.grains);
    const strip = st.parallelism.strip;
    assert.ok(strip, 'the pane has room for the strip');
    assert.equal(st.parallelism.max, whole.parallelism.max);
    assert.equal(st.parallelism.span, whole.parallelism.span);
    assert.ok(whole.parallelism.exact, 'the for-loop profile is listed whole');
    const origin = await stageOrigin(page);
    let shot = await screenshot(page, 'parallelism-strip');
    let painted = 0;
    for (let x = strip.x0 + 2; x < strip.x1; x += 4) for (let y = strip.top + 24; y < strip.top + strip.height - 8; y += 4) if (!light(shot.pixel(origin.x + x, origin.y + y))) painted++;
    assert.ok(painted > 50, `the profile is drawn (${painted} painted samples)`);

    // Hover instants along the strip: the grains outlined are the CLI's, and as many as its profile says.
    let checked = 0;
    for (const f of [0.1, 0.35, 0.5, 0.8]) {
      const x = strip.x0 + (strip.x1 - strip.x0) * f;
      await page.mouse.move(origin.x + x, origin.y + strip.top + strip.height / 2);
      await page.waitForSelector('#tooltip:not([hidden])');
      st = await viewState(page);
      const at = st.parallelism.at;
      assert.equal(typeof at, 'number', 'the hovered instant is kept');
      const tip = await page.textContent('#tooltip');
      const fmt = (v, unit) => page.evaluate(([v, unit]) => window.weft.viewer.format_number(v, unit), [v, unit]);
      assert.ok(tip.includes(`${await fmt(st.parallelism.running, '')} grains running at ${await fmt(at, 'cycles')}`), tip);
      const cliAt = cli('--running-at', String(at));
      assert.deepEqual(st.parallelism.running_tasks, cliAt.running.tasks, `grains running at ${at}`);
      const step = whole.parallelism.profile.filter(([t0]) => t0 <= at).at(-1);
      assert.equal(st.parallelism.running, step[1], `the CLI profile's count at ${at}`);
      if (st.parallelism.running > 0) checked++;
    }
    assert.ok(checked >= 3, 'most instants have grains running');
    shot = await screenshot(page, 'parallelism-hover-instant');

    // Hover a grain in the graph: its span shows on the strip (a band), the instant's outlines go.
    await page.mouse.move(origin.x + 2, origin.y + 2);
    st = await viewState(page);
    for (let i = 0; i < 6; i++) await page.keyboard.press('w');
    st = await viewState(page);
    const n = st.sample_nodes.find((s) => s.w > 3 && s.h > 3 && s.y + s.h < strip.top);
    assert.ok(n, 'a grain to hover');
    await page.mouse.move(origin.x + n.x + n.w / 2, origin.y + n.y + n.h / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    st = await viewState(page);
    assert.equal(st.parallelism.at, null);
    await screenshot(page, 'parallelism-hover-grain');

    // Colour by core.
    await page.evaluate(() => window.weft.viewer.configure('color', 'cpu_id'));
    st = await viewState(page);
    await screenshot(page, 'parallelism-cpu-colours');
    assert.deepEqual(problems, [], 'no page errors');
  } finally {
    await browser.close();
    server.close();
  }
});
