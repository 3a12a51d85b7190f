// Writes a large Chrome trace to disk without holding it in memory: many ranks with nested MPI and compute
// slices, about 80 bytes an event. Used by the memory-budget browser test (a 1 GB file) and benchmarks.
import fs from 'node:fs';

/** Write about `bytes` bytes of trace to `file`; resolves to {bytes, events, ranks}. */
export async function writeBigChromeTrace(file, bytes, ranks = 64) {
  const out = fs.createWriteStream(file, { highWaterMark: 1 << 22 });
  const names = ['compute', 'MPI_Send', 'MPI_Recv', 'MPI_Allreduce', 'MPI_Wait', 'pack', 'unpack'];
  let written = 0;
  let events = 0;
  const write = (s) => new Promise((r) => { written += s.length; if (out.write(s)) r(); else out.once('drain', r); });
  await write('[\n');
  const ts = new Array(ranks).fill(0);
  let x = 0x9e3779b9;
  while (written < bytes) {
    let chunk = '';
    for (let k = 0; k < 4096; k++) {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      const r = x % ranks;
      const name = names[(x >>> 8) % names.length];
      const dur = 1 + ((x >>> 12) % 500);
      chunk += `{"ph":"X","name":"${name}","pid":${r},"tid":0,"ts":${ts[r]},"dur":${dur}},\n`;
      ts[r] += dur + 1;
      events++;
    }
    await write(chunk);
  }
  await write(`{"ph":"X","name":"end","pid":0,"tid":0,"ts":${ts[0]},"dur":1}]\n`);
  events++;
  await new Promise((r) => out.end(r));
  return { bytes: written, events, ranks };
}
