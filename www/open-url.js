// Opening a trace from a URL (`?trace=URL` or `#trace=URL`): the worker streams the response body into the
// same WorkerSession a dropped file feeds, with progress; failures become a message that says what to do.
// No DOM here (the worker imports it); it must not read the body whole or send credentials.

/** The URL the page was opened with under `key` (`trace`, `store`; query first, then hash), resolved against
 * the page; or null (none, or not http/https). */
export function pageUrlParam(loc, key) {
  const raw = new URLSearchParams(loc.search).get(key) || new URLSearchParams(loc.hash.slice(1)).get(key);
  if (!raw) return null;
  try {
    const url = new URL(raw, loc.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The trace URL the page was opened with. */
export const traceUrlOf = (loc) => pageUrlParam(loc, 'trace');

/** The file name a URL names (its last path segment), for the reader and the title bar. */
export function nameOfUrl(url) {
  try {
    const seg = new URL(url).pathname.split('/').filter(Boolean).pop();
    return seg ? decodeURIComponent(seg) : new URL(url).host;
  } catch {
    return 'trace';
  }
}

export class FetchError extends Error {}

function failure(url, why) {
  return new FetchError(`Could not open ${url}: ${why}`);
}

const CORS_HINT = 'the server could not be reached, or it does not let other sites read the file (CORS). '
  + 'Either host the file with the header "Access-Control-Allow-Origin: *" (or this page\'s origin), '
  + 'or download it and drop it onto this page.';

/** Why a store's file could not be fetched at all (the browser says only "Failed to fetch"): what to set. */
export const STORE_CORS_HINT = 'the server could not be reached, or it does not let other sites read the store (CORS). '
  + 'Serve the store\'s folder with the header "Access-Control-Allow-Origin: *" (or this page\'s origin) on every '
  + 'file, manifest.json and tiles alike, or download the folder and open it with "Open folder…".';

/** How long a download may go without a byte before it is given up (ms). */
export const STALL_MS = 30_000;

/**
 * Fetch `url` and feed its body, in pieces of at least `min` bytes (the first piece decides the reader), to
 * the session `open(total)` makes once the headers are in. `total` is the Content-Length (so the reader's memory
 * budget applies before anything is held), or 0 when unknown: then the session holds the stream to its budget
 * as it grows, and its "too large" stops the download with a message naming the URL.
 * `progress(done, total, rate)` follows every piece that arrives, at most ten times a second (rate in bytes per
 * second). A download with no byte for `stallMs` is given up with a message. `release(session)` frees the
 * session on failure. `bytes(n)` writes a size in these messages as the readers' messages do (the worker's
 * wasm: human_bytes). Returns the session (the caller finishes and frees it) and the byte count.
 */
export async function streamUrl(url, open, progress, { bytes, min = 1 << 20, stallMs = STALL_MS, release = (s) => s.free() }) {
  let res;
  try {
    res = await fetch(url, { credentials: 'omit', mode: 'cors', cache: 'no-store' });
  } catch {
    throw failure(url, CORS_HINT);
  }
  if (!res.ok) throw failure(url, `the server answered ${res.status} ${res.statusText || ''}`.trim() + '.');
  // A compressed transfer makes Content-Length count the compressed bytes: then the total is unknown.
  const encoded = res.headers.get('content-encoding');
  const total = encoded && encoded !== 'identity' ? 0 : Number(res.headers.get('content-length')) || 0;
  let session;
  try {
    session = open(total);
  } catch (e) {
    res.body.cancel().catch(() => {});
    throw failure(url, e && e.message ? e.message : String(e));
  }
  const reader = res.body.getReader();
  const started = performance.now();
  let shown = 0;
  let pieces = [];
  let held = 0;
  let done = 0;
  const report = (force) => {
    const now = performance.now();
    if (!force && now - shown < 100) return;
    shown = now;
    const secs = (now - started) / 1000;
    progress(done, total, secs > 0 ? Math.round(done / secs) : 0);
  };
  const flush = () => {
    if (!held) return;
    const buf = pieces.length === 1 ? pieces[0] : new Uint8Array(held);
    if (pieces.length > 1) { let at = 0; for (const p of pieces) { buf.set(p, at); at += p.length; } }
    pieces = [];
    held = 0;
    session.feed(buf);
  };
  const giveUp = (e) => {
    reader.cancel().catch(() => {});
    release(session);
    throw e;
  };
  for (;;) {
    let r;
    let timer;
    const stalled = new Promise((resolve) => { timer = setTimeout(() => resolve('stalled'), stallMs); });
    try {
      r = await Promise.race([reader.read(), stalled]);
    } catch (e) {
      clearTimeout(timer);
      release(session);
      throw failure(url, `the download broke off after ${bytes(done)} (${e && e.message ? e.message : e}).`);
    } finally {
      clearTimeout(timer);
    }
    if (r === 'stalled') {
      giveUp(failure(url, `the download stalled: nothing arrived for ${Math.round(stallMs / 1000)} s after `
        + `${bytes(done)}. The server may be overloaded; try again, or download the file and drop it onto this page.`));
    }
    if (r.done) break;
    pieces.push(r.value);
    held += r.value.length;
    done += r.value.length;
    try {
      if (held >= min) flush();
    } catch (e) {
      // A trap leaves the worker to restart; a refusal (too large for the budget, malformed) names the URL.
      if (e instanceof WebAssembly.RuntimeError) giveUp(e);
      giveUp(failure(url, e && e.message ? e.message : String(e)));
    }
    report(false);
  }
  try {
    flush();
    if (done === 0) throw failure(url, 'the server sent an empty file.');
  } catch (e) {
    release(session);
    throw e instanceof FetchError || e instanceof WebAssembly.RuntimeError ? e : failure(url, e && e.message ? e.message : String(e));
  }
  report(true);
  return { session, size: done };
}
