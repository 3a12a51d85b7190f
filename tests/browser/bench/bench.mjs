// In-browser benchmarks (wasm in chromium), driven by bench-wasm.mjs; see BENCHMARKS.md.
//   ?bench=import&trace=URL  the page's worker path on a Chrome JSON file: WorkerSession fed in 4 MB chunks,
//                            then finish (which also encodes the model for the page)
//   ?bench=phases&trace=URL  the same file read whole, then the worker's phases timed one by one
//   ?bench=otf2&trace=URL    an OTF2 archive packed as .tar, read whole
//   ?bench=moments           16,384 locations x 1 M intervals: moments, then both views
//   ?bench=execgraph         a random fork/join program of 100,000 threads: graph and layout
//   ?bench=grains[&trace=URL] a MIR profile (or a generated 176,000-node one): analysis, then layout
//   ?bench=aggregate         the aggregation's four phases on a generated 176,000-node grain graph
//   ?bench=particles         particle animation CPU time per frame: 16,384 processes, ~100,000 live particles
//   ?bench=hpctoolkit&mb=N   the HPCToolkit reader on a database of about N MB generated in wasm
//   ?bench=projections&mb=N  the Projections reader on a trace of about N MB generated in wasm
import init, { WorkerSession, bench_moments, bench_execgraph, bench_read_archive, bench_grains, bench_particles, bench_aggregate, bench_folder_format, bench_trace_phases } from '../../../www/pkg-worker/weft.js';

const params = new URLSearchParams(location.search);
const runs = Number(params.get('runs') || 3);
const CHUNK = 4 << 20;

async function fetchBytes() {
  return new Uint8Array(await (await fetch(params.get('trace'))).arrayBuffer());
}

async function importJson() {
  const bytes = await fetchBytes();
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const s = new WorkerSession('bench.json', bytes.length);
    for (let at = 0; at < bytes.length; at += CHUNK) s.feed(bytes.subarray(at, Math.min(bytes.length, at + CHUNK)));
    const out = s.finish();
    times.push(performance.now() - t0);
    s.free();
    if (r === runs - 1) window.lastSummary = JSON.parse(out.summary);
  }
  const best = Math.min(...times);
  return { bytes: bytes.length, runs: times, best_ms: best, mb_per_s: bytes.length / 1e6 / (best / 1000), summary: window.lastSummary };
}

async function main() {
  await init();
  switch (params.get('bench')) {
    case 'import': return importJson();
    case 'phases': { const b = await fetchBytes(); const r = bench_trace_phases(b, runs); return { ...r, read_mb_per_s: b.length / 1e6 / (r.read_ms / 1000) }; }
    case 'otf2': { const b = await fetchBytes(); const r = bench_read_archive(b, runs); return { ...r, mb_per_s: b.length / 1e6 / (r.read_ms / 1000), events_per_s: r.events / (r.read_ms / 1000) }; }
    case 'moments': return bench_moments(16384, 1_000_000, runs);
    case 'execgraph': return bench_execgraph(100_000, runs);
    case 'grains': return bench_grains(params.get('trace') ? await fetchBytes() : new Uint8Array(), 176_000, runs);
    case 'particles': return bench_particles(1_000_000, 600);
    case 'aggregate': return bench_aggregate(176_000, runs);
    case 'hpctoolkit': case 'projections': return bench_folder_format(params.get('bench'), Number(params.get('mb') || 100), runs);
    default: throw new Error('unknown bench');
  }
}
main().then((r) => { window.result = r; }).catch((e) => { window.result = { error: String(e) }; });
