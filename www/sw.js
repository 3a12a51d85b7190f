// The service worker of the static build (scripts/build-static.sh copies it beside index.html and fills in
// VERSION and SHELL, every file of the build): caches the app shell and the wasm modules (the page's WebGPU and
// WebGL2 builds, the worker's) on first visit, so the page opens offline.
// It must not cache or intercept anything else: traces opened from URLs go straight to the network.

const VERSION = 'dev';
const SHELL = [];
const CACHE = `weft-${VERSION}`;

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith('weft-') && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

// Paths of the shell relative to this worker's folder ("" is the page itself).
const scopeUrl = new URL('./', self.location.href);
const shellPaths = new Set(SHELL.map((p) => new URL(p, scopeUrl).pathname));

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== scopeUrl.origin || !shellPaths.has(url.pathname)) return;
  // Cache first (the cache is replaced as a whole by a new build); the page's query (?trace=...) is ignored.
  e.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(req, { ignoreSearch: true });
    return hit || fetch(req);
  })());
});

self.addEventListener('message', (e) => {
  if (e.data === 'version') e.source.postMessage({ version: VERSION, files: SHELL.length });
});
