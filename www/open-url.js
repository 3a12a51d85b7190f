// Opening a trace from a URL (`?trace=URL` or `#trace=URL`): the worker streams the response body into the
// same WorkerSession a dropped file feeds, with progress; failures become a message that says what to do.
// No DOM here (the worker imports it); it must not read the body whole or send credentials.

/** The trace URL the page was opened with (query first, then hash), resolved against the page; or null. */
export function traceUrlOf(loc) {
  const raw = new URLSearchParams(loc.search).get('trace') || new URLSearchParams(loc.hash.slice(1)).get('trace');
  if (!raw) return null;
  try {
    const url = new URL(raw, loc.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

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

/**
 * Fetch `url` and feed its body, in pieces of at least `min` bytes (the first piece decides the reader), to
 * the session `open(total)` makes once the headers are in; `progress(done, total)` after each piece. `total`
 * is the Content-Length (so the reader's memory budget applies before anything is held), or 0 when unknown.
 * Returns the session (the caller finishes and frees it) and the byte count.
 */
export async function streamUrl(url, open, progress, min = 1 << 20) {
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
  const session = open(total);
  const reader = res.body.getReader();
  let pieces = [];
  let held = 0;
  let done = 0;
  const flush = () => {
    if (!held) return;
    const buf = pieces.length === 1 ? pieces[0] : new Uint8Array(held);
    if (pieces.length > 1) { let at = 0; for (const p of pieces) { buf.set(p, at); at += p.length; } }
    session.feed(buf);
    pieces = [];
    held = 0;
    progress(done, total);
  };
  for (;;) {
    let r;
    try {
      r = await reader.read();
    } catch (e) {
      session.free();
      throw failure(url, `the download broke off after ${done} bytes (${e && e.message ? e.message : e}).`);
    }
    if (r.done) break;
    pieces.push(r.value);
    held += r.value.length;
    done += r.value.length;
    try {
      if (held >= min) flush();
    } catch (e) {
      reader.cancel().catch(() => {});
      session.free();
      throw e;
    }
  }
  try {
    flush();
    if (done === 0) throw failure(url, 'the server sent an empty file.');
  } catch (e) {
    session.free();
    throw e;
  }
  return { session, size: done };
}
