// What the page benchmarks (bench/*.mjs) share: a server over the repository with a page opened on it, both
// closed however the measurement ends, and the resident memory of the Chromium the script started. Measures,
// asserts nothing.
import fs from 'node:fs';
import { startServer, openPage } from './harness.mjs';

/** A server over the repository and a page opened at `address(url)` (the server's URL given), then
 *  `fn({page, url, problems})`'s result; the browser and the server are closed however it ends. */
export async function withPage(address, fn, backend = 'webgpu') {
  const { server, url } = await startServer();
  try {
    const { browser, page, problems } = await openPage(backend, address(url));
    try {
      return await fn({ page, url, problems });
    } finally {
      await browser.close();
    }
  } finally {
    server.close();
  }
}

/** Resident memory of the Chromium this script started (processes under this one), by --type: the page's
 *  renderer (it runs the page and its workers: the tab) apart from Chrome's own WebUI renderer, the GPU
 *  process (SwiftShader draws there), and the rest. VmRSS now and VmHWM (the peak), in MB. */
export function chromiumMemory() {
  const parent = new Map();
  const info = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const status = fs.readFileSync(`/proc/${d}/status`, 'utf8');
      const field = (k) => { const m = status.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')); return m ? Number(m[1]) : 0; };
      parent.set(Number(d), field('PPid'));
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      info.set(Number(d), { cmd, rssMB: Math.round(field('VmRSS') / 1024), hwmMB: Math.round(field('VmHWM') / 1024) });
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = pid; p > 1; p = parent.get(p)) if (p === process.pid) return true; return false; };
  const out = { tab: [], gpu: [], other: [] };
  for (const [pid, i] of info) {
    if (pid === process.pid || !mine(pid) || !/chrom/.test(i.cmd)) continue;
    const m = { rssMB: i.rssMB, hwmMB: i.hwmMB };
    if (/--type=renderer/.test(i.cmd) && !/--top-chrome-webui/.test(i.cmd)) out.tab.push(m);
    else if (/--type=gpu-process/.test(i.cmd)) out.gpu.push(m);
    else out.other.push(m);
  }
  return out;
}

/** The tab's memory alone (its renderers' VmRSS and VmHWM summed), in MB. */
export function tabMemory() {
  const tab = chromiumMemory().tab;
  return { tabRssMB: tab.reduce((n, m) => n + m.rssMB, 0), tabHwmMB: tab.reduce((n, m) => n + m.hwmMB, 0) };
}
