// A static file server for the viewer and its tests: loopback only, correct MIME types (application/wasm),
// no caching. Usage: node scripts/serve.mjs [port] [root] [--prefix /sub/path]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.gz': 'application/gzip', '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
};

export function serve({ port = 0, root = '.', prefix = '' } = {}) {
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
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const pi = args.indexOf('--prefix');
  const prefix = pi >= 0 ? args.splice(pi, 2)[1] : '';
  const server = await serve({ port: Number(args[0] || 8000), root: args[1] || '.', prefix });
  console.log(`listening on http://127.0.0.1:${server.address().port}${prefix}/`);
}
