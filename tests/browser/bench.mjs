// In-browser import benchmark: runs the same path as the page's worker (WorkerSession fed in 4 MB chunks,
// then finish, which also encodes the model for transfer) on a trace fetched once; best of N runs.
import init, { WorkerSession } from '../../www/pkg/weft.js';

const params = new URLSearchParams(location.search);
const url = params.get('trace');
const runs = Number(params.get('runs') || 3);
const CHUNK = 4 << 20;

async function main() {
  await init();
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const times = [];
  let modelBytes = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const s = new WorkerSession('bench.json', bytes.length);
    for (let at = 0; at < bytes.length; at += CHUNK) s.feed(bytes.subarray(at, Math.min(bytes.length, at + CHUNK)));
    const model = s.finish();
    times.push(performance.now() - t0);
    modelBytes = model.length;
    s.free();
  }
  const best = Math.min(...times);
  window.result = { bytes: bytes.length, runs: times, best_ms: best, mb_per_s: bytes.length / 1e6 / (best / 1000), model_bytes: modelBytes };
}
main().catch((e) => { window.result = { error: String(e) }; });
