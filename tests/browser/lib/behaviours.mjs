// The generated Chrome trace of three known behaviours and a planted outlier that the clusters specs open
// (clusters.test.mjs, clusters-moments.test.mjs): computing, writing and waiting threads, and one that computes
// half and waits half.
import path from 'node:path';
import fs from 'node:fs';
import { outDir } from './harness.mjs';

export const LOCATIONS = 30;
export const PLANTED = 17;
export const behaviourOf = (l) => (l === PLANTED ? null : l % 3);

/** 30 threads (4 to a rank, named L0..L29), 10 iterations of 100 us each as its behaviour spends them. */
export function behaviours(name) {
  const events = [];
  let seed = 12345;
  const below = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let l = 0; l < LOCATIONS; l++) {
    const pid = Math.floor(l / 4);
    const tid = l % 4;
    events.push({ name: 'process_name', ph: 'M', pid, tid, args: { name: `rank ${pid}` } });
    events.push({ name: 'thread_name', ph: 'M', pid, tid, args: { name: `L${l}` } });
    const phases = [[['solve', 80], ['MPI_Allreduce', 20]], [['solve', 40], ['write', 50], ['MPI_Allreduce', 10]], [['solve', 30], ['MPI_Waitall', 70]]][behaviourOf(l)]
      || [['solve', 50], ['MPI_Waitall', 50]];
    const spans = [];
    let t = 0;
    for (let i = 0; i < 10; i++) {
      for (const [name, pct] of phases) {
        const d = pct - Math.floor(pct / 20) + below(Math.floor(pct / 10) + 1);
        spans.push({ name, ph: 'X', pid, tid, ts: t, dur: d });
        t += d;
      }
    }
    events.push({ name: 'main', ph: 'X', pid, tid, ts: 0, dur: t }, ...spans);
  }
  const file = path.join(outDir, name);
  fs.writeFileSync(file, JSON.stringify({ traceEvents: events }));
  return file;
}
