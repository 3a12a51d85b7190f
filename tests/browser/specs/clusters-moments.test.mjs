// Clusters in the moments view (issue #55): the clusters panel's clustering of a generated Chrome trace of three
// known behaviours and a planted outlier (as clusters.test.mjs makes it) is marked in the Moments view: every
// row's bar in its cluster's colour (the state's role per row equals `weft clusters --json`'s members), each
// representative's row a diamond and the planted outlier a triangle (pixels looked at left of the plot, where
// the rows are), the grouping said in the legend, the hover naming the cluster. Screenshot:
// tests/out/clusters-moments.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { PLANTED, behaviours } from '../lib/behaviours.mjs';
import { startServer, openPage, waitReady, viewState, repoRoot, screenshot, weftArgs } from '../lib/harness.mjs';

const weftJson = (...args) => JSON.parse(execFileSync(...weftArgs(...args, '--json'), { cwd: repoRoot, maxBuffer: 256 << 20 }).toString());
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('clusters marked in the moments view: colours, representatives, the outlier, the words', { timeout: 600_000 }, async () => {
  const file = behaviours('clusters-moments-behaviours.json');
  const cli = weftJson('clusters', file);
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', url, { width: 1500, height: 950 });
  try {
    await page.setInputFiles('#file-input', file);
    await waitReady(page, 2);
    await page.click('#clusters-toggle');
    await page.waitForFunction(() => (window.weft.clusterings || 0) >= 1, null, { timeout: 120_000 });
    await page.click('#views button[data-view="moments"]');
    await page.waitForFunction(() => window.weft.viewer.view() === 'moments');
    await frames(page);
    const st = await viewState(page);
    assert.equal(st.clusters_said, cli.summary, 'the grouping in the words of weft clusters');
    const clusterOf = new Map();
    cli.clusters.forEach((c, k) => c.members.forEach((l) => clusterOf.set(l, k)));
    const medoids = new Set(cli.clusters.map((c) => c.medoid));
    const outliers = new Set(cli.outliers.map((o) => o.location));
    assert.equal(st.clusters.length, st.rows.length);
    for (const [i, r] of st.rows.entries()) {
      const role = outliers.has(r.location) ? 'outlier' : medoids.has(r.location) ? 'representative' : 'member';
      assert.deepEqual(st.clusters[i], [clusterOf.get(r.location), role], `row of ${r.name}`);
    }
    const planted = st.rows.findIndex((r) => r.name.endsWith(`L${PLANTED}`));
    assert.ok(planted >= 0, `a row of L${PLANTED}: ${st.rows.map((r) => r.name)}`);
    assert.equal(st.clusters[planted][1], 'outlier', 'the planted location is the outlier');
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.ok(svg.includes('bars coloured by cluster: '), 'the legend says the grouping');
    // Pixels: left of the moment view's plot, on the planted row, the outlier's orange triangle; on a
    // representative's row its diamond; on a member's row neither.
    const shot = await screenshot(page, 'clusters-moments');
    const stage = await page.locator('#stage').boundingBox();
    const rowY = (i) => stage.y + st.plot.y0 + (i - st.first_row + 0.5) * st.row_height_px;
    const markX = stage.x + st.moment_view_x + st.plot.x0 - 8;
    const marked = (i) => {
      for (let dx = -4; dx <= 3; dx++) {
        const [r, g, b] = shot.pixel(Math.round(markX + dx), Math.round(rowY(i)));
        if (Math.max(r, g, b) - Math.min(r, g, b) > 60 || Math.max(r, g, b) < 80) return [r, g, b];
      }
      return null;
    };
    assert.ok(marked(planted), 'a mark on the outlier\'s row');
    const rep = st.rows.findIndex((r) => medoids.has(r.location) && !outliers.has(r.location));
    assert.ok(marked(rep), 'a mark on a representative\'s row');
    const member = st.rows.findIndex((r) => !medoids.has(r.location) && !outliers.has(r.location));
    assert.equal(marked(member), null, 'no mark on a member\'s row');
    // The hover names the cluster.
    const h = await page.evaluate(([x, y]) => window.weft.viewer.hover(x, y), [st.moment_view_x + (st.plot.x0 + st.plot.x1) / 2, st.plot.y0 + (planted - st.first_row + 0.5) * st.row_height_px]);
    assert.ok(h && h.lines.some((l) => l.endsWith('an outlier')), JSON.stringify(h));
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
