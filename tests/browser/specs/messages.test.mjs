// Messages on the real 32-rank Score-P stencil from ../shared/traces (skipped, saying so, when absent): a click
// on an MPI_Send call selects the messages it sends; a click at a message line's receive end selects that
// message, the panel's values are the Viewer's selection (natively checked against the model in
// tests/views/messages.rs) and consistent with each other, and both ends are drawn highlighted (orange
// pixels at the two calls); "go to partner" brings the sender into view. A Shift+drag selection's
// communication matrix, as drawn, equals `weft info FILE --window T0:T1 --json` comm_matrix; the whole
// trace's equals `weft info --json`'s; a hover over a cell names the pair and its figures, a click on it
// selects that pair's messages. Screenshots go to
// tests/out/messages-*.png. WebGL2 only, as profile.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startServer, openPage, waitReady, viewState, stageOrigin, repoRoot, screenshot } from '../lib/harness.mjs';

const SHARED = process.env.WEFT_SHARED_TRACES || path.join(repoRoot, '../shared/traces');
const WEFT = path.join(repoRoot, 'target/debug/weft');
const STENCIL = 'otf2/tracer-stencil4d-mpi-32';

const info = (args) => JSON.parse(execFileSync(WEFT, ['info', ...args, '--json'], { maxBuffer: 64 << 20 }));

/** Is there a pixel of the highlight colour (#f07c00) within `r` px of (x, y)? */
function orangeNear(shot, x, y, r = 6) {
  for (let dy = -r; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      const [R, G, B] = shot.pixel(x + dx, y + dy);
      if (Math.abs(R - 0xf0) < 24 && Math.abs(G - 0x7c) < 30 && B < 40) return true;
    }
  }
  return false;
}

/** Two animation frames: what the page does on the next frame (a resize observed, a redraw) is done. */
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('a message end selects its partner; the matrix of a selection equals weft info --window', { timeout: 240_000 }, async (t) => {
  if (!fs.existsSync(SHARED)) { t.skip(`${SHARED} is absent`); return; }
  if (!fs.existsSync(WEFT)) { t.skip(`${WEFT} is not built (cargo build)`); return; }
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgl', url, { width: 1400, height: 900 });
  try {
    const dir = path.join(SHARED, STENCIL);
    await page.setInputFiles('#folder-input', dir);
    await waitReady(page, 2);
    assert.equal(await page.evaluate(() => window.weft.viewer.view()), 'timeline');
    // The Messages panel opens first (it makes the stage narrower: every position is taken after).
    await page.click('#messages-toggle');
    await page.waitForSelector('#comm-panel:not([hidden])');

    // Step to an MPI_Send with the region search (zoomed to it), then click the call's middle.
    await page.click('#profile-toggle');
    await page.fill('#region-search', 'MPI_Send');
    await page.press('#region-search', 'Enter');
    for (let k = 0; k < 40; k++) await page.click('#region-next');
    await page.click('#profile-toggle');
    // The stage widens as the panel closes (a resize observed on a later frame): positions are read after it.
    await frames(page);
    let vs = await viewState(page);
    const hit = vs.search.hit;
    // Zoom out so the call's messages are drawn whole (the call is a sliver then: click it by its centre).
    const mid = hit.start_ns + hit.dur_ns / 2;
    await page.evaluate(({ a, b }) => window.weft.viewer.set_time_range(a, b), { a: mid - 60_000, b: mid + 60_000 });
    await frames(page);
    vs = await viewState(page);
    const row = vs.rows.find((r) => r.location === hit.location);
    assert.ok(row, 'the send call\'s row is listed');
    const o = await stageOrigin(page);
    const xOf = (st, tns) => st.track_x0 + ((tns - st.t0_ns) / (st.t1_ns - st.t0_ns)) * (st.width - st.track_x0);
    // The call's lane: the one whose hover names the call (its depth is not in the search hit).
    const cx = xOf(vs, mid);
    let cy = null;
    for (let d = 0; d < row.lanes && cy === null; d++) {
      const y = row.y + (d + 0.5) * vs.lane_px;
      const h = await page.evaluate(({ x, y }) => window.weft.viewer.hover(x, y), { x: cx, y });
      if (h && h.detail && h.detail.interval === hit.interval) cy = y;
    }
    assert.ok(cy !== null, 'the send call is under the pointer in one of its row\'s lanes');
    await page.mouse.click(o.x + cx, o.y + cy);
    let sel = await page.evaluate(() => window.weft.viewer.timeline_message_selection());
    assert.ok(sel, 'the click selected');
    assert.ok(sel.clicked === 'call' || sel.clicked === 'message', sel.clicked);
    if (sel.clicked === 'call') {
      assert.equal(sel.call.interval, hit.interval, 'the clicked call');
      assert.ok(sel.messages.every((m) => m.partner === 'to' && m.from.location === hit.location), 'it sends them');
    }
    const m0 = sel.messages[0];
    assert.ok(m0, 'with a message');
    await page.waitForSelector('#comm-panel .message-card');
    await screenshot(page, 'messages-call');

    // Show the whole message, the receiver's row in the middle of the stage; click just before its arrow head.
    const pad = Math.max(2000, (m0.recv_ns - m0.send_ns) / 4);
    await page.evaluate(({ a, b }) => window.weft.viewer.set_time_range(a, b), { a: m0.send_ns - pad, b: m0.recv_ns + pad });
    vs = await viewState(page);
    const recvRow = vs.rows.find((r) => r.location === m0.to.location);
    await page.evaluate((dy) => window.weft.viewer.scroll(dy), recvRow.y - vs.height / 2);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    vs = await viewState(page);
    const seg = await page.evaluate((j) => window.weft.viewer.timeline_message_segment(j), m0.message);
    assert.ok(seg, 'the message is drawn');
    const [x0, y0, x1, y1] = seg;
    const [ex, ey] = [x1 - 0.04 * (x1 - x0), y1 - 0.04 * (y1 - y0)];
    assert.ok(ex > vs.track_x0 && ex < vs.width && ey > vs.axis_px && ey < vs.height, `the receive end is on the stage: ${seg}`);
    await page.mouse.click(o.x + ex, o.y + ey);
    sel = await page.evaluate(() => window.weft.viewer.timeline_message_selection());
    assert.equal(sel.clicked, 'message');
    assert.equal(sel.messages.length, 1);
    const m = sel.messages[0];
    assert.equal(m.partner, 'from', 'clicked at the receive end: the partner is the sender');
    // The card shows the selection's values.
    const card = await page.$eval('#comm-panel .message-card', (t) => ({ ...t.dataset, text: t.textContent }));
    assert.equal(Number(card.message), m.message);
    assert.equal(Number(card.size), m.size_bytes);
    assert.equal(Number(card.tag), m.tag);
    assert.equal(Number(card.send), m.send_ns);
    assert.equal(Number(card.recv), m.recv_ns);
    assert.equal(Number(card.latency), m.recv_ns - m.send_ns, 'latency: receive event minus send event');
    assert.equal(Number(card.from), m.from.location);
    assert.equal(Number(card.to), m.to.location);
    assert.ok(card.text.includes(m.communicator) && card.text.includes(`${m.size_bytes.toLocaleString('en-US')} B`), card.text);
    assert.ok(card.text.includes(`${m.from.process} / ${m.from.name}`) && card.text.includes(`${m.to.process} / ${m.to.name}`), card.text);
    assert.ok(m.from.call && m.from.call.region.startsWith('MPI_') && m.from.call.start_ns <= m.send_ns && m.send_ns <= m.from.call.end_ns, JSON.stringify(m.from));
    assert.ok(m.to.call && m.to.call.region.startsWith('MPI_') && m.to.call.start_ns <= m.recv_ns && m.recv_ns <= m.to.call.end_ns, JSON.stringify(m.to));
    // Highlighted: the thick orange line and the outlined call at the receive end (and at the send end when
    // its row is on the stage too).
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const seg2 = await page.evaluate((j) => window.weft.viewer.timeline_message_segment(j), m.message);
    let shot = await screenshot(page, 'messages-partner');
    assert.ok(orangeNear(shot, o.x + seg2[2], o.y + seg2[3]), 'the receive end is highlighted');
    const onStage = (x, y) => x > vs.track_x0 && x < vs.width && y > vs.axis_px && y < vs.height;
    if (onStage(seg2[0], seg2[1])) assert.ok(orangeNear(shot, o.x + seg2[0], o.y + seg2[1]), 'the send end is highlighted');

    // Go to partner: zoom in away from it first, then the button brings the send call into view.
    await page.evaluate(({ a, b }) => window.weft.viewer.set_time_range(a, b), { a: m.recv_ns + 5e6, b: m.recv_ns + 6e6 });
    await page.click('#comm-panel .message-go');
    vs = await viewState(page);
    assert.ok(vs.t0_ns <= m.from.call.start_ns && m.from.call.end_ns <= vs.t1_ns, `the partner call is shown: ${vs.t0_ns}..${vs.t1_ns}`);
    const sender = vs.rows.find((r) => r.location === m.from.location);
    assert.ok(sender && sender.y >= vs.axis_px && sender.y < vs.height, 'the sender\'s row is on screen');
    // The partner (the send end) is drawn highlighted there.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const seg3 = await page.evaluate((j) => window.weft.viewer.timeline_message_segment(j), m.message);
    shot = await screenshot(page, 'messages-go-to-partner');
    assert.ok(orangeNear(shot, o.x + seg3[0], o.y + seg3[1]), 'the partner end is highlighted after going to it');

    // The matrix of a Shift+drag selection over the iterations, as drawn (MPI_Init fills the run up to its
    // last 0.2 %, where the messages are: zoom there first).
    await page.evaluate((span) => window.weft.viewer.set_time_range(0.997 * span, 1.0005 * span), vs.span_ns);
    vs = await viewState(page);
    const w = vs.width - vs.track_x0;
    const [xa, xb] = [o.x + vs.track_x0 + 0.45 * w, o.x + vs.track_x0 + 0.8 * w];
    const y = o.y + vs.axis_px + 40;
    await page.keyboard.down('Shift');
    await page.mouse.move(xa, y);
    await page.mouse.down();
    await page.mouse.move(xb, y, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const range = (await viewState(page)).selection;
    assert.ok(range && range.t1_ns > range.t0_ns, 'a range is selected');
    const drawn = await page.evaluate(() => window.weft.commPanel.matrix);
    assert.equal(drawn.whole, false);
    assert.deepEqual([drawn.t0_ns, drawn.t1_ns], [range.t0_ns, range.t1_ns], 'the matrix is of the selection');
    const cli = info([path.join(dir, 'traces.otf2'), '--window', `${range.t0_ns}:${range.t1_ns}`]).comm_matrix;
    for (const k of ['unit', 'senders', 'receivers', 'count', 'bytes']) assert.deepEqual(drawn[k], cli[k], `matrix ${k} equals weft info --window`);
    const n = cli.count.flat().reduce((a, b) => a + b, 0);
    assert.ok(n > 0, 'the window holds messages');
    assert.equal(await page.getAttribute('#comm-panel', 'data-messages'), String(n));
    assert.match(await page.textContent('#matrix-caption'), new RegExp(`^${n.toLocaleString('en-US')} messages, .* in the selection`));
    // Hover the busiest cell: the tooltip names the pair and its count.
    let best = [0, 0];
    cli.count.forEach((r, s) => r.forEach((v, c) => { if (v > cli.count[best[0]][best[1]]) best = [s, c]; }));
    // The side column scrolls (the panels share it, issue 50): bring the matrix into view before pointing at it.
    await page.$eval('#matrix-canvas', (c) => c.scrollIntoView({ block: 'center' }));
    const box = await page.$eval('#matrix-canvas', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
    const cell = box.w / cli.senders.length;
    await page.mouse.move(box.x + (best[1] + 0.5) * cell, box.y + (best[0] + 0.5) * cell);
    const tip = await page.textContent('#matrix-tip');
    assert.ok(tip.startsWith(`${cli.senders[best[0]]} → ${cli.receivers[best[1]]}: ${cli.count[best[0]][best[1]].toLocaleString('en-US')} messages`), tip);
    // A click on that cell highlights the pair's messages in the timeline.
    await page.mouse.click(box.x + (best[1] + 0.5) * cell, box.y + (best[0] + 0.5) * cell);
    const pair = await page.evaluate(() => window.weft.viewer.timeline_message_selection());
    assert.equal(pair.clicked, 'pair');
    assert.equal(pair.total, cli.count[best[0]][best[1]], 'the cell\'s messages are selected');
    assert.equal(pair.messages.reduce((a, x) => a + x.size_bytes, 0), cli.bytes[best[0]][best[1]]);
    assert.ok((await page.textContent('#pair-caption')).startsWith(`${pair.total.toLocaleString('en-US')} messages from ${cli.senders[best[0]]} to ${cli.receivers[best[1]]}`));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await screenshot(page, 'messages-matrix');
    // Bytes, and the whole trace.
    await page.selectOption('#matrix-measure', 'bytes');
    await page.selectOption('#matrix-scope', 'whole');
    const whole = await page.evaluate(() => window.weft.commPanel.matrix);
    const cliWhole = info([path.join(dir, 'traces.otf2')]).comm_matrix;
    assert.deepEqual(whole.count, cliWhole.count, 'the whole trace\'s matrix');
    assert.deepEqual(whole.bytes, cliWhole.bytes);
    await screenshot(page, 'messages-matrix-bytes');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
