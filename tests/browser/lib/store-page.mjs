// A store opened on the page for a browser test (store.test.mjs, store-diagnosis.test.mjs, calltree-store):
// the test server started (closed however the test ends), the page opened at `?store=URL/` of a store folder
// under the repository, and the waits for the store worker's answers.
import path from 'node:path';
import { startServer, openPage, repoRoot } from './harness.mjs';

/** Serve the repository and open the page on `store` (a folder under it) with `backend`; the server and the
 *  browser are closed after the test `t`. `query`: more of the page's address before `store=` (e.g.
 *  `store_cache_mb=64&`). Returns `{url, rel, browser, page, problems}` (`rel`: the store's path in the URL). */
export async function openStore(t, store, { backend = 'webgpu', query = '', width, height } = {}) {
  const { server, url } = await startServer();
  // Closed however the test ends: a server left open keeps the runner waiting after a failure.
  t.after(() => server.close());
  const rel = path.relative(repoRoot, store);
  const size = width && height ? { width, height } : undefined;
  const { browser, page, problems } = await openPage(backend, `${url}?${query}store=${url}${rel}/`, size);
  t.after(() => browser.close());
  return { url, rel, browser, page, problems };
}

/** `n` animation frames of the page. */
export const frames = (page, n = 2) => page.evaluate((n) => new Promise((r) => {
  let k = 0;
  const step = () => (++k >= n ? r() : requestAnimationFrame(step));
  requestAnimationFrame(step);
}), n);

/** Wait until the store worker answered the viewport asked last (no request pending, nothing in flight). */
export async function settled(page, timeout = 60_000) {
  await frames(page, 2);
  await page.waitForFunction(() => {
    const s = window.weft.store;
    return s.last && s.asked === s.answered && window.weft.viewer.view_state().store.in_flight === 0;
  }, null, { timeout });
  await frames(page, 2);
}
