// The Aggregated view's tools (issue 18) in the page (WebGPU), on the real MIR profiles of
// ../shared/traces/grain-graphs where present and on a generated fib(30) profile (examples/grain_profile.rs):
// theta in the bar equal to `weft aggregate --json`; a clicked group's property window whose execution-time
// total is the sum of the profile's exec_cycles column; a grain's tooltip naming its source line, and J showing
// that grain selected in the Grain graph tab; one problem view for both tabs; similarity marks with a legend of
// their classes, no two sharing a mark, probed on screen where a marked group is large enough; the filtered view's inset outlined in blue over the
// graph; two runs zooming together; and two different programs compared said to be so ("different programs:
// … no group matched"), where the same program matches. Screenshots go to tests/out/aggview-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, dropFile, screenshot, viewState, stageOrigin, repoRoot, weftArgs, cargoArgs } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const REAL = path.join(SHARED, 'grain-graphs/anamud-test-data');
const settle = (page) => page.waitForTimeout(260);
const configure = (page, k, v) => page.evaluate(([k, v]) => window.weft.viewer.configure(k, v), [k, v]);
const weft = (...args) => execFileSync(...weftArgs(...args), { cwd: repoRoot, encoding: 'utf8' });
const near = ([r, g, b], [R, G, B], tol = 40) => Math.abs(r - R) <= tol && Math.abs(g - G) <= tol && Math.abs(b - B) <= tol;
const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));

/** The exec_cycles column of a MIR task-stats CSV, summed. */
function execTotal(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const head = lines[0].split(',').map((h) => h.replaceAll('"', ''));
  const col = head.indexOf('exec_cycles');
  return lines.slice(1).reduce((s, l) => s + Number(l.split(',')[col].replaceAll('"', '')), 0);
}

/** The profile with every source file and function renamed: another program, as far as weft can tell. */
function otherProgram(file, out) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const head = lines[0].split(',').map((h) => h.replaceAll('"', ''));
  const [src, fn] = [head.indexOf('source_line'), head.indexOf('outline_function')];
  const body = lines.slice(1).map((l) => {
    if (!l.trim()) return l;
    const cells = l.split(',');
    cells[src] = '"other.c:7"';
    cells[fn] = '"9999"';
    return cells.join(',');
  });
  fs.writeFileSync(out, [lines[0], ...body].join('\n'));
}

async function hoverAt(page, x, y) {
  const o = await stageOrigin(page);
  await page.mouse.move(o.x + x, o.y + y);
  await page.waitForTimeout(50);
}

async function checkProfile(page, file, name, tmp) {
  const log = (m) => console.log(`${name}: ${m}`);
  log('aggregate tab');
  const shots = [];
  await page.click('#views button[data-view="aggregate"]');
  await configure(page, 'problem', 'structure');
  let st = await viewState(page);
  assert.equal(st.view, 'aggregate');

  // theta in the bar, as `weft aggregate --json` prints it.
  const cli = JSON.parse(weft('aggregate', file, '--json'));
  assert.equal(st.theta.max, cli.theta_max_conservative, `${name}: theta max as the CLI`);
  assert.match(await page.textContent('#aggregate-theta'), new RegExp(`θ max ${cli.theta_max_conservative.toLocaleString('en-US')} \\(any grain\\)`));

  log('theta ok');
  // A click on the closed root opens its property window: every grain, their execution times summed.
  await configure(page, 'close', String(st.root));
  await page.evaluate(() => window.weft.viewer.fit());
  st = await viewState(page);
  const root = st.nodes.find((n) => n.id === st.root);
  const o = await stageOrigin(page);
  await page.mouse.click(o.x + root.x + root.w / 2, o.y + root.y + root.h / 2);
  await settle(page);
  st = await viewState(page);
  const props = st.properties;
  assert.equal(props.id, st.root);
  assert.equal(props.grains, st.grains, `${name}: the root holds every grain`);
  const exec = props.metrics.find((m) => m.metric === 'exec_cycles');
  assert.equal(exec.total, execTotal(file), `${name}: execution time total = the profile's exec_cycles summed`);
  assert.ok(await page.isVisible('#aggregate-props'), 'the property window shows');
  const text = await page.textContent('#aggregate-props');
  assert.match(text, new RegExp(`grains${st.grains.toLocaleString('en-US')}`), 'its grain count, formatted');
  assert.match(text, /source locations/);
  for (const s of props.sources) assert.ok(text.includes(s.source), `source ${s.source} listed`);

  log('properties ok');
  // Open along the critical path: a grain shows; its tooltip names its source; J shows it in the Grain graph tab.
  await configure(page, 'drill_critical', '');
  await page.evaluate(() => window.weft.viewer.fit());
  await settle(page);
  st = await viewState(page);
  let leaf = st.nodes.filter((n) => n.grain !== null && n.w >= 2 && n.h >= 2 && n.y > 50).sort((a, b) => b.w - a.w)[0];
  if (leaf.w < 10) {
    await page.evaluate(([x, y, k]) => window.weft.viewer.zoom(x, k, y), [leaf.x + leaf.w / 2, leaf.y + leaf.h / 2, 12 / leaf.w]);
    st = await viewState(page);
    leaf = st.nodes.find((n) => n.id === leaf.id);
  }
  await hoverAt(page, leaf.x + leaf.w / 2, leaf.y + leaf.h / 2);
  const tip = await page.textContent('#tooltip');
  const source = props.sources.map((s) => s.source).find((s) => tip.includes(`source ${s}`));
  assert.ok(source, `${name}: the grain's tooltip names its source: ${tip}`);
  assert.match(tip, /J: show this grain in the Grain graph tab/);
  assert.equal((await viewState(page)).hovered_grain, leaf.grain);
  shots.push(await screenshot(page, `aggview-${name}-tooltip`));
  await page.keyboard.press('j');
  await settle(page);
  st = await viewState(page);
  assert.equal(st.view, 'grains', 'J switched to the Grain graph tab');
  assert.equal(st.selected.grain, leaf.grain, 'with the grain selected');
  assert.equal(await page.getAttribute('#views button[data-view="grains"]', 'aria-selected'), 'true');

  log('jump ok');
  // One problem view for both tabs.
  const problem = (st.problems.find((p) => p.count > 0) || st.problems[0]).metric;
  await configure(page, 'problem', problem);
  await page.click('#views button[data-view="aggregate"]');
  st = await viewState(page);
  assert.equal(st.problem, problem, `${name}: the problem view chosen in the Grain graph tab shows aggregated`);
  assert.equal(st.theta.of, 'problematic grains');
  await configure(page, 'problem', 'structure');
  await page.click('#views button[data-view="grains"]');
  assert.equal((await viewState(page)).problem, null, 'and back');
  await page.click('#views button[data-view="aggregate"]');
  return { shots, problem };
}

test('the aggregated view: properties, theta, source and jump, shared problem view, similar classes, inset, two runs', { timeout: 600_000 }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-aggview-'));
  const generated = path.join(tmp, 'fib30-c8.csv');
  execFileSync('cargo', cargoArgs('run', '-q', '--example', 'grain_profile', '--', '30', '8', '16', generated), { cwd: repoRoot, stdio: 'ignore' });
  const other = path.join(tmp, 'other-program.csv');
  otherProgram(generated, other);
  const profiles = [{ name: 'generated', file: generated }];
  for (const rel of ['fib/task-stats.merged', 'for-loop/task-stats.merged']) {
    const file = path.join(REAL, rel);
    if (fs.existsSync(file)) profiles.push({ name: rel.split('/')[0], file });
    else console.log(`SKIPPED ${rel}: ${file} does not exist (../shared/traces is not part of the repository)`);
  }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1400, height: 800 });
  try {
    let loads = 1;
    for (const { name, file } of profiles) {
      await dropFile(page, path.basename(file), fs.readFileSync(file));
      await waitReady(page, ++loads);
      const { problem } = await checkProfile(page, file, name, tmp);

      console.log(`${name}: similar`);
      // Similar marks: one per class, each with a legend entry, each painted in its class's colour.
      let classes = [];
      for (const depth of [4, 6, 8, 3, 2]) {
        await configure(page, 'drill_depth', String(depth));
        await configure(page, 'similar', 'on');
        await page.evaluate(() => window.weft.viewer.fit());
        await settle(page);
        classes = (await viewState(page)).similar_classes;
        if (classes.length >= 2) break;
      }
      await page.evaluate(() => window.weft.aggregatePanel.render());
      let st = await viewState(page);
      assert.ok(await page.isVisible('#aggregate-similar-legend'), 'the legend of similar groups shows');
      const entries = await page.$$('#aggregate-similar-legend [data-class]');
      assert.equal(entries.length, classes.length, `${name}: one legend entry per class`);
      const marks = new Set(classes.map((c) => `${c.shape} ${c.color}`));
      assert.equal(marks.size, classes.length, 'no two classes share a mark');
      const shot = await screenshot(page, `aggview-${name}-similar`);
      const o = await stageOrigin(page);
      let painted = 0;
      for (const c of classes) {
        for (const id of c.groups) {
          const n = st.nodes.find((m) => m.id === id);
          if (!n || n.w < 20 || n.h < 12 || n.y < 50) continue;
          // The mark sits in the group's top-right corner, 6 to 11 px across.
          const want = hex(c.color);
          let hit = false;
          for (let dy = 3; dy <= 9 && !hit; dy++) for (let dx = 3; dx <= 9 && !hit; dx++) {
            hit = near(shot.pixel(o.x + n.x + n.w - dx, o.y + n.y + dy), want);
          }
          assert.ok(hit, `${name}: group ${id} shows class ${c.class}'s mark in ${c.color}`);
          painted++;
        }
      }
      console.log(`${name}: ${classes.length} similarity classes, ${painted} marked groups large enough to probe on screen`);
      await configure(page, 'similar', 'off');

      console.log(`${name}: inset`);
      // The filtered view's inset: over the graph, outlined in blue.
      await configure(page, 'problem', problem);
      await configure(page, 'filtered', 'on');
      await configure(page, 'drill_depth', '3');
      await page.evaluate(() => window.weft.viewer.fit());
      await settle(page);
      const s2 = await screenshot(page, `aggview-${name}-inset`);
      const [w, h] = await page.evaluate(() => { const r = document.getElementById('stage').getBoundingClientRect(); return [r.width, r.height]; });
      const [iw, ih] = [Math.min(w * 0.28, 360), Math.min(h * 0.3, 240)];
      const [ox, oy] = [w - iw - 10, h - ih - 10];
      const blue = [0x2f, 0x6f, 0xd6];
      let outline = 0;
      for (let t = 0.1; t < 0.9; t += 0.1) {
        const onEdge = (x, y) => [-2, -1, 0, 1].some((d) => near(s2.pixel(o.x + x + d, o.y + y), blue) || near(s2.pixel(o.x + x, o.y + y + d), blue));
        outline += onEdge(ox - 2 + (iw + 4) * t, oy - 2) + onEdge(ox - 2 + (iw + 4) * t, oy + ih + 2) + onEdge(ox - 2, oy + ih * t) + onEdge(ox + iw + 2, oy + ih * t);
      }
      assert.ok(outline >= 28, `${name}: the inset is outlined in blue (${outline} of 32 probes)`);
      await configure(page, 'filtered', 'off');
      await configure(page, 'problem', 'structure');
    }

    console.log('two runs');
    // Two runs: the generated profile beside itself zooms together, and beside another program says so.
    await dropFile(page, 'fib30-c8.csv', fs.readFileSync(generated));
    await waitReady(page, ++loads);
    await page.click('#views button[data-view="aggregate"]');
    await configure(page, 'drill_depth', '3');
    await page.setInputFiles('#aggregate-compare-file', generated);
    await settle(page);
    let st = await viewState(page);
    assert.equal(st.compare_programs_differ, null);
    assert.equal(st.compare_matched, st.compare_visible);
    assert.match(await page.textContent('#aggregate-compare'), /^matched \d+ of \d+ visible groups/);
    const o = await stageOrigin(page);
    const before = st;
    await page.mouse.move(o.x + 1000, o.y + 400);
    await page.mouse.wheel(0, -300);
    await settle(page);
    st = await viewState(page);
    const kl = st.viewport.scale / before.viewport.scale;
    const kr = st.compare_viewport.scale / before.compare_viewport.scale;
    assert.ok(kl > 1.2 && Math.abs(kl - kr) < 1e-3 * kl, `both halves zoomed alike (${kl}, ${kr})`);
    await screenshot(page, 'aggview-compare-zoomed');
    await page.setInputFiles('#aggregate-compare-file', other);
    await settle(page);
    st = await viewState(page);
    assert.match(st.compare_programs_differ, /^different programs: no source file in common \(fib\.c vs other\.c\)/);
    assert.equal(st.compare_matched, 0);
    assert.match(await page.textContent('#aggregate-compare'), /different programs: .*: no group matched/);
    for (const { name, file } of profiles.filter((p) => p.name !== 'generated')) {
      await page.setInputFiles('#aggregate-compare-file', file);
      await settle(page);
      st = await viewState(page);
      if (name === 'fib') {
        assert.equal(st.compare_programs_differ, null, 'fib(30) beside the real fib(45): one program (fib.c)');
      } else {
        assert.match(st.compare_programs_differ || '', /^different programs/, `fib(30) beside the real ${name} profile`);
        assert.match(await page.textContent('#aggregate-compare'), /no group matched/);
      }
    }
    await screenshot(page, 'aggview-compare-different');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
