// Notes on a store opened by URL, and a note's text on hover (issue #55): on the built-in trace sample a range
// note's flag, hovered with the mouse, shows the note's text in the tooltip as text (markup stays text); on a
// generated store (`?store=URL/`, tests/lib/store-gen.mjs) the Notes panel is there, "+ Range" notes the time
// shown, a second note goes on a range by the Viewer, both are drawn (the exported scene's labels) and named on
// hover; the permalink reopens the store with both notes; the exported .weft-notes.json imports into a fresh
// page of the same store. Screenshots: tests/out/notes-store-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { startServer, openPage, waitReady, screenshot, repoRoot, outDir } from '../lib/harness.mjs';
import { generatedStore } from '../lib/store-gen.mjs';

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const MARKUP = '<img src=x onerror="window.__pwned=1"><b>slow phase</b>';
const notesOf = (page) => page.evaluate(() => window.weft.viewer.notes_list());

/** The screen point of note `k`'s flag: scanning the plot with the Viewer's hover until it names the note. */
function flagPoint(page, k) {
  return page.evaluate((k) => {
    const v = window.weft.viewer;
    const b = v.view_brief();
    for (let y = b.axis_px + 2; y < b.height - 40; y += 4) {
      for (let x = b.track_x0 + 2; x < b.width - 4; x += 6) {
        const h = v.hover(x, y);
        if (h && h.detail && h.detail.note === k) { v.clear_hover(); return { x, y, title: h.title }; }
      }
    }
    v.clear_hover();
    return null;
  }, k);
}

/** Hover with the mouse at view point `p`: the page's tooltip text. */
async function tooltipAt(page, p) {
  const stage = await page.locator('#stage').boundingBox();
  await page.mouse.move(stage.x + p.x, stage.y + p.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  return page.evaluate(() => {
    const t = document.getElementById('tooltip');
    return { text: t.textContent, elements: t.querySelectorAll('img, b').length };
  });
}

test('notes: hover shows a note\'s text; a store opened by URL takes notes, draws them, keeps them in its link and file', { timeout: 600_000 }, async () => {
  const { store } = generatedStore(Number(process.env.STORE_EVENTS || 200_000));
  const { server, url } = await startServer();
  const rel = path.relative(repoRoot, store);
  const storeUrl = `${url}?store=${url}${rel}/`;
  let { browser, page, problems } = await openPage('webgpu', `${url}#sample=timeline`, { width: 1400, height: 800 });
  const exported = path.join(outDir, 'notes-store.weft-notes.json');
  try {
    // A trace's timeline: a range note's flag names it on hover, its text as text.
    await waitReady(page, 1);
    const span = await page.evaluate(() => window.weft.viewer.view_brief().span_ns);
    await page.evaluate(([a, b, text]) => window.weft.viewer.notes_add_range(a, b, text, 'red', null), [span * 0.3, span * 0.5, MARKUP]);
    await frames(page);
    let p = await flagPoint(page, 0);
    assert.ok(p, 'the flag of the trace\'s note is named on hover');
    let tip = await tooltipAt(page, p);
    assert.ok(tip.text.includes(MARKUP), `the tooltip holds the note's text as text: ${tip.text}`);
    assert.equal(tip.elements, 0, 'no element made of the text');
    await screenshot(page, 'notes-store-trace-hover');

    // A store by URL: the panel takes notes on it.
    await page.goto(storeUrl);
    await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => window.weft.viewer.notes_available()), true, 'a store takes notes');
    const brief = await page.evaluate(() => window.weft.viewer.view_brief());
    await page.click('#notes-toggle');
    await page.fill('#notes-text', MARKUP);
    await page.click('#notes-add');
    let notes = await notesOf(page);
    assert.equal(notes.length, 1, '"+ Range" noted the time shown');
    assert.equal(notes[0].t0_ns, Math.round(Math.max(0, brief.t0_ns)));
    assert.equal(notes[0].t1_ns, Math.round(Math.min(brief.span_ns, brief.t1_ns)));
    const sspan = brief.span_ns;
    await page.evaluate(([a, b]) => window.weft.viewer.notes_add_range(a, b, 'second note', 'blue', null), [Math.round(sspan * 0.2), Math.round(sspan * 0.4)]);
    await page.evaluate(() => window.weft.notesPanel.refresh());
    assert.equal(await page.$$eval('#notes-list li', (lis) => lis.length), 2, 'both listed');
    await frames(page);
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.ok(svg.includes('2 · second note'), 'the second note\'s flag is drawn');
    assert.ok(svg.includes('1 · &lt;img'), 'the first note\'s flag is drawn, its markup as text');
    p = await flagPoint(page, 1);
    assert.ok(p, 'the store\'s note is named on hover');
    tip = await tooltipAt(page, p);
    assert.match(tip.text, /note 2 \(blue\).*second note/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await screenshot(page, 'notes-store-drawn');
    const saved = await notesOf(page);

    // The permalink: a fresh page of the same store with both notes.
    const link = await page.evaluate(() => { window.weft.permalink.write(); return location.href; });
    const want = await page.evaluate(() => window.weft.viewer.notes_link());
    assert.equal(new URLSearchParams(new URL(link).hash.slice(1)).get('notes'), want, 'the link carries the notes');
    const json = await page.evaluate(() => window.weft.viewer.notes_export('store'));
    fs.writeFileSync(exported, json);
    await browser.close();
    ({ browser, page, problems } = await openPage('webgpu', link, { width: 1400, height: 800 }));
    await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
    await page.waitForFunction((n) => window.weft.viewer.notes_list().length === n, saved.length, { timeout: 10_000 });
    assert.deepEqual(await notesOf(page), saved, 'the link\'s notes on the store it names');
    await frames(page);
    await screenshot(page, 'notes-store-link');

    // The file: imported into a fresh page of the same store.
    await browser.close();
    ({ browser, page, problems } = await openPage('webgpu', storeUrl, { width: 1400, height: 800 }));
    await page.waitForFunction(() => window.weft.store && window.weft.store.answers >= 1, null, { timeout: 120_000 });
    assert.equal((await notesOf(page)).length, 0);
    await page.click('#notes-toggle');
    await page.setInputFiles('#notes-import-file', exported);
    await page.waitForFunction((n) => window.weft.viewer.notes_list().length === n, saved.length, { timeout: 10_000 });
    assert.deepEqual(await notesOf(page), saved, 'the file\'s notes');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(exported, { force: true });
  }
});
