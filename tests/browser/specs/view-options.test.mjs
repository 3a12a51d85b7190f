// View options rendered from each view's schema (crates/view/src/views/options.rs via Viewer.option_schema): every control
// the page renders for a view's options changes that option in the view (the schema's value, read from the
// pane's own fields, becomes what the control chose; the view state changes with it), and the whole set
// survives a reload through the permalink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, openPage, waitReady } from '../lib/harness.mjs';

const schemaOf = (page) => page.evaluate(() => window.weft.viewer.option_schema());
const valueOf = async (page, key) => (await schemaOf(page)).options.find((o) => o.key === key).value;
const stateOf = (page) => page.evaluate(() => JSON.stringify(window.weft.viewer.view_state()));
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** A value for a text option the view accepts (a location filter: the first row's name). */
async function textValue(page, o) {
  const st = await page.evaluate(() => window.weft.viewer.view_state());
  assert.equal(o.key, 'locations', `a text option the test knows: ${o.key}`);
  return st.rows[st.rows.length - 1].name;
}

/** Drive every option control of the shown view; returns how many values were set through controls. */
async function driveControls(page) {
  const schema = await schemaOf(page);
  const options = schema.options.filter((o) => o.role === 'option' && o.control);
  const rendered = await page.$$eval('#view-options [data-option]', (els) => els.map((e) => e.dataset.option));
  assert.deepEqual(rendered, options.map((o) => o.key), `${schema.view}: one control per option, in schema order`);
  let set = 0;
  for (const o of options) {
    const id = `#${schema.view}-${o.link}`;
    const k = o.kind;
    const wants = [];
    if (k.type === 'choice') {
      for (const c of k.choices) if (c.value !== o.value) wants.push(['select', c.value, c.value]);
      if (k.other) {
        const typed = k.other.default || 'sol*';
        wants.push(['other', typed, `${k.other.prefix}${typed}${k.other.suffix}`]);
      }
      wants.splice(2); // two values per option are enough
    } else if (k.type === 'bool') {
      wants.push(['check', !['1', 'on', 'true'].includes(o.value), null]);
    } else if (k.type === 'number') {
      const v = Math.min(Number(o.value) + 1, k.max === null ? Infinity : k.max);
      wants.push(['fill', String(v), String(v)]);
    } else {
      const v = await textValue(page, o);
      wants.push(['fill', v, v]);
    }
    for (const [how, v, expect] of wants) {
      const before = await stateOf(page);
      const relayouts = await page.evaluate(() => window.weft.relayouts || 0);
      if (how === 'select') await page.selectOption(id, v);
      else if (how === 'check') await page.setChecked(id, v);
      else if (how === 'fill') { await page.fill(id, v); await page.$eval(id, (e) => e.dispatchEvent(new Event('change'))); }
      else {
        // The open entry of a choice: pick it, type into its input when it has no default.
        await page.selectOption(id, k.other.value);
        if (!k.other.default) { await page.fill(`${id}-text`, v); await page.$eval(`${id}-text`, (e) => e.dispatchEvent(new Event('change'))); }
      }
      if (o.applies === 'worker') await page.waitForFunction((n) => (window.weft.relayouts || 0) > n && window.weft.state === 'ready', relayouts);
      await settle(page);
      const want = how === 'check' ? (v ? ['1', 'on', 'true'] : ['0', 'off', 'false']) : [expect];
      const got = await valueOf(page, o.key);
      assert.ok(want.includes(got), `${schema.view} ${o.key}: ${how} ${v} gives ${got}`);
      if (o.key !== 'color' || schema.view !== 'grains') {
        // The grain view's colours are not part of its state; every other option is.
        assert.notEqual(await stateOf(page), before, `${schema.view} ${o.key}: the view state changes`);
      }
      set += 1;
    }
  }
  return set;
}

/** The link written for the view, opened in a fresh page, gives the same option values. */
async function reloads(browser, page, relayout) {
  const pairs = (await schemaOf(page)).pairs;
  await page.evaluate(() => window.weft.permalink.write());
  const link = await page.evaluate(() => location.href);
  for (const [k, v] of pairs) assert.ok(new URL(link).hash.includes(`${k}=`), `the link holds ${k}=${v}: ${link}`);
  const again = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  try {
    await again.goto(link);
    await waitReady(again, 1);
    if (relayout) await again.waitForFunction(() => (window.weft.relayouts || 0) >= 1 && window.weft.state === 'ready');
    await settle(again);
    assert.deepEqual((await schemaOf(again)).pairs, pairs, `reloaded from ${link}`);
  } finally {
    await again.close();
  }
}

test('every view option control changes the view and survives a reload via the permalink', { timeout: 300_000 }, async () => {
  const { server, url } = await startServer();
  const { browser, page, problems } = await openPage('webgpu', `${url}#sample=timeline`);
  try {
    let set = 0;
    for (const [sample, views] of [['timeline', ['timeline', 'moments']], ['grains', ['grains', 'aggregate']], ['fib', ['execgraph']]]) {
      if (sample !== 'timeline') {
        const loads = await page.evaluate(() => window.weft.loads);
        await page.selectOption('#samples', sample);
        await waitReady(page, loads + 1);
      }
      for (const view of views) {
        await page.click(`#views button[data-view="${view}"]`);
        await settle(page);
        assert.equal((await schemaOf(page)).view, view);
        set += await driveControls(page);
        await reloads(browser, page, view === 'execgraph');
      }
    }
    assert.ok(set >= 15, `${set} values set through controls`);
    // A refused value leaves the option as it was and says why in the schema's words.
    await page.evaluate(() => { try { window.weft.viewer.configure('min_edge', 'soon'); } catch (e) { window.refused = String(e); } });
    assert.equal(await page.evaluate(() => window.refused), 'min_edge must be true or a length in px (14px) or ns (5000ns), not \'soon\'');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    server.close();
  }
});
