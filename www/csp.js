// Narrows the page's Content-Security-Policy before anything else runs (a classic script in index.html's
// head, ahead of the modules). The <meta> policy must let connect-src reach any http(s) origin, because
// `?trace=`/`#trace=` may name any; this adds a second policy (a request must pass both) that allows only the
// page's own origin and the origins the address's trace (and store) parameters name. A policy can only be tightened,
// never widened, so opening a trace from another origin later takes a fresh page (app.js `openUrl`). The
// reader worker starts from a blob: URL so that it inherits these policies (a worker loaded from its own
// URL would get only its response's headers). No DOM beyond the one <meta>; no trace logic.
(() => {
  const origins = new Set();
  for (const params of [new URLSearchParams(location.search), new URLSearchParams(location.hash.slice(1))]) {
    // `compare`: run B of a comparison (compare.js).
    for (const raw of [params.get('trace') || params.get('store'), params.get('compare')]) {
      if (!raw) continue;
      try {
        const url = new URL(raw, location.href);
        if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
      } catch { /* not a URL: open-url.js says so when it is opened */ }
    }
  }
  origins.delete(location.origin);
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = `connect-src 'self' ${[...origins].join(' ')}`.trim();
  meta.dataset.weft = 'connect';
  document.head.append(meta);
  /** Whether the page's policy lets a fetch reach `url` (app.js asks before opening a trace URL). */
  window.weftConnectAllowed = (url) => {
    try {
      const o = new URL(url, location.href).origin;
      return o === location.origin || origins.has(o);
    } catch {
      return true; // not a URL: let open-url.js report it
    }
  };
})();
