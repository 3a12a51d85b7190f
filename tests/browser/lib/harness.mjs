// Shared set-up for browser tests: serve the repository, launch Debian's chromium headless with the flags
// each backend needs, drop files onto the page the way a person would, and read pixels back.
import { chromium } from 'playwright-core';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../../../scripts/serve.mjs';
import { decodePng } from './png.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const outDir = path.join(repoRoot, 'tests/out');
fs.mkdirSync(outDir, { recursive: true });

/** The command and arguments that run the CLI with `args`, for `execFileSync(...weftArgs(...))`: the binary
 * `cargo test` has just built where `WEFT_BIN` names it (scripts/test.sh), else `cargo run`. `cargo run`
 * resolves the dependencies without the dev-dependencies, and so builds the library a second time (~3 min
 * on CI's 2 cores: the first browser test took 183 s) where the tests' build would serve. */
export function weftArgs(...args) {
  const bin = process.env.WEFT_BIN;
  return bin ? [bin, args] : ['cargo', ['run', '-q', '--bin', 'weft', '--', ...args]];
}

/** `cargo SUBCOMMAND ...rest` with the features of the tests' build (`WEFT_CARGO_FEATURES`, set by
 * scripts/test.sh, which builds the tests with `--features mpi`): an example built with other features than
 * the library `cargo test` just built would build that library again (~3 min on CI's 2 cores). */
export function cargoArgs(subcommand, ...rest) {
  const features = process.env.WEFT_CARGO_FEATURES;
  return [subcommand, ...(features ? ['--features', features] : []), ...rest];
}

const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-dev-shm-usage'];
export const BACKENDS = {
  webgpu: { args: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader'], query: '', label: 'WebGPU' },
  webgl: { args: BASE_ARGS, query: '?backend=webgl', label: 'WebGL2' },
};

export async function startServer(opts = {}) {
  const server = await serve({ root: repoRoot, ...opts });
  return { server, url: `http://127.0.0.1:${server.address().port}${opts.prefix || ''}/` };
}

/** Open the page on one backend; collects console errors and page errors into `problems`. */
export async function openPage(backend, url, { width = 1280, height = 720 } = {}) {
  const b = BACKENDS[backend];
  // WEFT_CHROMIUM_ARGS: more flags, space-separated (`--js-flags=--liftoff-only` runs the wasm in V8's
  // baseline code only, as a page does before its optimising compile lands: BENCHMARKS.md, session 24).
  const extra = (process.env.WEFT_CHROMIUM_ARGS || '').split(' ').filter(Boolean);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...b.args, ...extra] });
  const page = await browser.newPage({ viewport: { width, height } });
  const problems = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url + b.query);
  await waitReady(page, 1);
  return { browser, page, problems, requests };
}

/** Wait until the page has shown `loads` traces (or reports an error state). */
export async function waitReady(page, loads, timeout = 60_000) {
  await page.waitForFunction((n) => window.weft && (window.weft.loads >= n || window.weft.state === 'error'), loads, { timeout });
  // Two animation frames: the frame that draws the new view, then the one after it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Drop a file on the page as a person would (a drop event carrying a File). */
export async function dropFile(page, name, bytes) {
  const b64 = Buffer.from(bytes).toString('base64');
  await page.evaluate(({ name, b64 }) => {
    const bin = atob(b64);
    const arr = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([arr], name));
    const target = document.getElementById('stage');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name, b64 });
}

export async function screenshot(page, name) {
  const buf = await page.screenshot({ path: path.join(outDir, `${name}.png`) });
  return decodePng(buf);
}

export const viewState = (page) => page.evaluate(() => window.weft.viewer.view_state());

/** Screen coordinates (page pixels) of a canvas-local point. */
export async function stageOrigin(page) {
  return page.evaluate(() => { const r = document.getElementById('stage').getBoundingClientRect(); return { x: r.left, y: r.top }; });
}
