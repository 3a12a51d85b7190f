// A static file server for the viewer and its tests: loopback only, correct MIME types (application/wasm),
// no caching, and the security headers a host should send (docs/hosting.md): every response gets
// X-Content-Type-Options and Referrer-Policy; a page carrying a <meta> Content-Security-Policy (the viewer's
// index.html) gets that policy as a header too, with frame-ancestors added (which a <meta> cannot set).
// Usage: node scripts/serve.mjs [port] [root] [--prefix /sub/path] [--frame-ancestors "SOURCES"]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.gz': 'application/gzip', '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
};

/** Who may embed the viewer by default: pages of this loopback machine (any port), as embed.js does. */
export const FRAME_ANCESTORS = "'self' http://127.0.0.1:* http://localhost:*";

/** Headers for every response. */
export const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** The Content-Security-Policy a page declares in its <meta> (null if none), and the header to send for it. */
export function pagePolicy(html, frameAncestors = FRAME_ANCESTORS) {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  return m ? `${m[1].replace(/;\s*$/, '')}; frame-ancestors ${frameAncestors}` : null;
}

export function serve({ port = 0, root = '.', prefix = '', frameAncestors = FRAME_ANCESTORS } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (prefix) {
      if (!url.startsWith(prefix)) { res.writeHead(404).end('not found'); return; }
      url = url.slice(prefix.length) || '/';
    }
    let file = path.join(base, path.normalize(url));
    if (!file.startsWith(base)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404).end('not found'); return; }
      const headers = { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store', ...COMMON_HEADERS };
      const policy = path.extname(file) === '.html' ? pagePolicy(data.toString('utf8'), frameAncestors) : null;
      if (policy) headers['content-security-policy'] = policy;
      res.writeHead(200, headers);
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const pi = args.indexOf('--prefix');
  const prefix = pi >= 0 ? args.splice(pi, 2)[1] : '';
  const fi = args.indexOf('--frame-ancestors');
  const frameAncestors = fi >= 0 ? args.splice(fi, 2)[1] : FRAME_ANCESTORS;
  const server = await serve({ port: Number(args[0] || 8000), root: args[1] || '.', prefix, frameAncestors });
  console.log(`listening on http://127.0.0.1:${server.address().port}${prefix}/`);
}
