// Notes (issue #55) on the built-in MPI + threads sample: a note on a Shift+drag range (the panel's "+ Range")
// and one on the interval under the pointer (M) are drawn on the timeline (a flag in the note's colour where
// the model puts its start; their texts are the scene's labels) and listed in the Notes panel; a text of markup
// stays text (no element made, nothing run). The copied link reopens with the notes in a fresh page; the
// exported .weft-notes.json imports in another page (by the Import button and by a drop, which opens no
// trace), with a warning when written for another trace; a garbled `notes=` in a link is an error line, not
// a crash. Screenshots: tests/out/notes-*.png. WebGL2 only: nothing here depends on the backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer, waitReady, screenshot, stageOrigin, dropFile, outDir, BACKENDS } from '../lib/harness.mjs';

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const MARKUP = '<img src=x onerror="window.__pwned=1"><b>bold</b>';

async function open(browser, url, problems) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await waitReady(page, 1);
  return page;
}

const notesOf = (page) => page.evaluate(() => window.weft.viewer.notes_list());

/** Wait until the page's link holds its notes as the Viewer encodes them. */
async function linkOf(page) {
  await page.evaluate(() => window.weft.permalink.write());
  const want = await page.evaluate(() => window.weft.viewer.notes_link());
  assert.ok(want.length > 0);
  const href = await page.evaluate(() => location.href);
  assert.equal(new URLSearchParams(new URL(href).hash.slice(1)).get('notes'), want);
  return href;
}

/** A screen point over an interval (the Viewer's hover names one there), scanning the plot. */
async function intervalPoint(page) {
  return page.evaluate(() => {
    const v = window.weft.viewer;
    const b = v.view_brief();
    for (let y = 60; y < b.height - 60; y += 7) {
      for (let x = b.track_x0 + 150; x < b.width - 40; x += 23) {
        const h = v.hover(x, y);
        if (h && h.detail && Number.isInteger(h.detail.interval) && h.detail.dur_ns > 0) { v.clear_hover(); return { x, y, interval: h.detail.interval }; }
      }
    }
    return null;
  });
}

test('notes: a range and an interval, drawn and listed; the link and the file carry them; markup stays text', { timeout: 240_000 }, async () => {
  const { server, url } = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: BACKENDS.webgl.args });
  const problems = [];
  const base = `${url}?backend=webgl`;
  try {
    const page = await open(browser, `${base}#sample=timeline`, problems);
    const o = await stageOrigin(page);
    await page.click('#notes-toggle');
    assert.equal(await page.isVisible('#notes-panel'), true);

    // ---- a range note: Shift+drag, then "+ Range" with its text and colour ----
    await page.keyboard.down('Shift');
    await page.mouse.move(o.x + 520, o.y + 300);
    await page.mouse.down();
    await page.mouse.move(o.x + 700, o.y + 300, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const sel = (await page.evaluate(() => window.weft.viewer.view_brief())).selection;
    assert.ok(sel && sel.t1_ns > sel.t0_ns, 'a selection');
    await page.fill('#notes-text', 'phase one');
    await page.selectOption('#notes-colour', 'red');
    await page.click('#notes-add');
    let notes = await notesOf(page);
    assert.equal(notes.length, 1);
    assert.deepEqual([notes[0].t0_ns, notes[0].t1_ns, notes[0].text, notes[0].colour], [sel.t0_ns, sel.t1_ns, 'phase one', 'red']);

    // ---- an interval note: M over an interval; its text typed in the list is markup, kept as text ----
    const at = await intervalPoint(page);
    assert.ok(at, 'an interval on screen');
    await page.mouse.move(o.x + at.x, o.y + at.y);
    await page.keyboard.press('m');
    notes = await notesOf(page);
    assert.equal(notes.length, 2);
    assert.equal(notes[1].interval, at.interval);
    const box = page.locator('#notes-list li[data-note="1"] input[type="text"]');
    assert.equal(await box.evaluate((e) => e === document.activeElement), true, 'the new note is ready for its text');
    await box.fill(MARKUP);
    await box.press('Enter');
    await page.locator('#notes-list li[data-note="1"] select').selectOption('blue');
    notes = await notesOf(page);
    assert.equal(notes[1].text, MARKUP);
    assert.equal(notes[1].colour, 'blue');
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing ran');
    assert.equal(await page.locator('#notes-panel img, #notes-panel b').count(), 0, 'no element made of the text');
    assert.equal(await box.inputValue(), MARKUP);

    // ---- drawn: the texts are the scene's labels; the range's flag is red where the model puts its start ----
    await page.mouse.move(o.x + 5, o.y + 5);
    await page.evaluate(() => window.weft.viewer.invalidate());
    await frames(page);
    const svg = await page.evaluate(() => window.weft.viewer.export_svg());
    assert.ok(svg.includes('1 · phase one'), 'the range note is labelled');
    assert.ok(svg.includes('2 · &lt;img src=x'), 'the markup note is labelled, as escaped text');
    const b = await page.evaluate(() => window.weft.viewer.view_brief());
    const xOf = (t) => b.track_x0 + (t - b.t0_ns) / (b.t1_ns - b.t0_ns) * (b.width - b.track_x0);
    const shot = await screenshot(page, 'notes-timeline');
    const [r, g, bl] = shot.pixel(o.x + xOf(sel.t0_ns) + 3, o.y + b.axis_px + 3);
    assert.ok(r > 180 && g < 110 && bl < 110, `the flag is red at the note's start: ${[r, g, bl]}`);

    // ---- the permalink reopens with the notes, in a fresh page ----
    const link = await linkOf(page);
    const copied = await open(browser, link, problems);
    const back = await notesOf(copied);
    assert.deepEqual(back, notes, 'the same notes, the interval found again');
    assert.equal(await copied.locator('#notes-list li').count(), 2);
    await frames(copied);
    await screenshot(copied, 'notes-reopened');
    await copied.close();

    // ---- export, then import in another page (Import, then a drop that opens no trace) ----
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#notes-export')]);
    assert.match(download.suggestedFilename(), /\.weft-notes\.json$/);
    const file = path.join(outDir, 'notes-export.weft-notes.json');
    await download.saveAs(file);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(doc.weft_notes, 1);
    assert.equal(doc.trace.span_ns, b.span_ns);
    assert.deepEqual(doc.notes.map((n) => [n.text, n.colour, !!n.interval]), [['phase one', 'red', false], [MARKUP, 'blue', true]]);

    const other = await open(browser, `${base}#sample=timeline`, problems);
    assert.deepEqual(await notesOf(other), []);
    await other.setInputFiles('#notes-import-file', file);
    await other.waitForFunction(() => window.weft.viewer.notes_list().length === 2);
    assert.deepEqual(await notesOf(other), notes);
    await other.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).has('notes'), null, { timeout: 5000 });
    assert.deepEqual(await other.evaluate(() => window.weft.errors), [], 'same trace: no warning');
    await other.evaluate(() => { window.weft.viewer.notes_remove(1); window.weft.viewer.notes_remove(0); });
    const loads = await other.evaluate(() => window.weft.loads);
    await dropFile(other, 'dropped.weft-notes.json', fs.readFileSync(file));
    await other.waitForFunction(() => window.weft.viewer.notes_list().length === 2);
    assert.equal(await other.evaluate(() => window.weft.loads), loads, 'the notes file was not opened as a trace');
    await frames(other);
    await screenshot(other, 'notes-imported');
    // Written for another trace: imported, with a warning.
    const moved = { ...doc, trace: { name: 'another.otf2', span_ns: doc.trace.span_ns + 1 } };
    await dropFile(other, 'moved.weft-notes.json', Buffer.from(JSON.stringify(moved)));
    await other.waitForFunction(() => window.weft.errors.some((e) => /written for "another\.otf2"/.test(e)));
    assert.match((await other.evaluate(() => window.weft.errors)).at(-1), /spans/);
    assert.equal((await notesOf(other)).length, 2);
    await other.close();

    // ---- a garbled link: an error line, the trace still shown ----
    const bad = await open(browser, `${base}#sample=timeline&notes=AQ$$`, problems);
    await bad.waitForFunction(() => window.weft.errors.some((e) => /link's notes/.test(e)));
    assert.deepEqual(await notesOf(bad), []);
    await bad.close();
    await page.close();
    assert.deepEqual(problems.filter((p) => !/the link's notes/.test(p)), []);
  } finally {
    await browser.close();
    server.close();
  }
});
