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

/** Write about `bytes` bytes of a real Chrome/Kineto trace (`source`, plain or gzipped JSON, an object with
 *  `traceEvents` or a bare array) repeated end to end in time: copy k's timestamps shifted by k times the
 *  source's span (plus 1 ms), its flow ids (`s`/`t`/`f` events' `id`) made unique per copy, its metadata
 *  events (`M`) written once. The events themselves (names, categories, args, nesting, gaps) are the real
 *  trace's: a large real-shaped trace where only a small real one is at hand. Resolves to
 *  {bytes, events, copies}. `numericIds`: see below. */
export async function writeTiledTrace(file, source, bytes, { numericIds = false } = {}) {
  const zlib = await import('node:zlib');
  let raw = fs.readFileSync(source);
  if (raw[0] === 0x1f && raw[1] === 0x8b) raw = zlib.gunzipSync(raw);
  const doc = JSON.parse(raw.toString('utf8'));
  // `numericIds`: leave out the events whose pid or tid is not a number (Kineto's profiler span, pid "Spans"),
  // which speedscope 1.25.0 cannot open ("Could not find events for key": it keys threads by Number(pid)).
  const events = (Array.isArray(doc) ? doc : doc.traceEvents)
    .filter((e) => !numericIds || (typeof e.pid === 'number' && typeof e.tid === 'number'));
  const meta = events.filter((e) => e.ph === 'M');
  const timed = events.filter((e) => e.ph !== 'M' && Number.isFinite(e.ts));
  let t0 = Infinity;
  let t1 = -Infinity;
  let maxId = 0;
  for (const e of timed) {
    t0 = Math.min(t0, e.ts);
    t1 = Math.max(t1, e.ts + (Number.isFinite(e.dur) ? e.dur : 0));
    if (typeof e.id === 'number') maxId = Math.max(maxId, e.id);
  }
  const span = t1 - t0 + 1000;
  const out = fs.createWriteStream(file, { highWaterMark: 1 << 22 });
  let written = 0;
  let count = 0;
  const write = (s) => new Promise((r) => { written += s.length; if (out.write(s)) r(); else out.once('drain', r); });
  const head = Array.isArray(doc) ? '[\n' : '{"traceEvents":[\n';
  await write(head + meta.map((e) => JSON.stringify(e)).join(',\n'));
  count += meta.length;
  let copy = 0;
  let first = meta.length === 0;
  while (written < bytes) {
    const shift = copy * span;
    const parts = [];
    for (const e of timed) {
      const c = { ...e, ts: e.ts + shift };
      if (typeof e.id === 'number' && (e.ph === 's' || e.ph === 't' || e.ph === 'f')) c.id = e.id + copy * (maxId + 1);
      parts.push(JSON.stringify(c));
    }
    await write((first ? '' : ',\n') + parts.join(',\n'));
    first = false;
    count += parts.length;
    copy++;
  }
  await write(Array.isArray(doc) ? ']\n' : ']}\n');
  await new Promise((r) => out.end(r));
  return { bytes: written, events: count, copies: copy };
}
