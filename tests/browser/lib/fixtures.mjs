// Traces the browser tests drop, generated here with every interval known, so pixel and tooltip checks
// compare against an independent statement of the model.

/** 3 processes x 2 threads; thread (p, t) has 4 intervals of region `work_p_t` at known times (us). */
export function gridTrace() {
  const events = [];
  const intervals = [];
  for (let p = 0; p < 3; p++) {
    events.push({ ph: 'M', name: 'process_name', pid: p, tid: 0, args: { name: `Rank ${p}` } });
    for (let t = 0; t < 2; t++) {
      events.push({ ph: 'M', name: 'thread_name', pid: p, tid: t, args: { name: `worker ${p}.${t}` } });
      for (let k = 0; k < 4; k++) {
        const ts = 100 + k * 250 + p * 20 + t * 10; // microseconds
        const dur = 120 + 10 * p;
        const name = `work_${p}_${t}`;
        events.push({ ph: 'X', name, cat: 'compute', pid: p, tid: t, ts, dur });
        intervals.push({ p, t, k, name, ts, dur });
      }
    }
  }
  return { bytes: Buffer.from(JSON.stringify({ traceEvents: events })), intervals, firstTs: 100 };
}

/** 4 threads of one process; thread k computes in two bars, with an MPI_Send inside the first (not busy
 *  under the default definition). Returns each thread's busy segments (us) for an independent moment check. */
export function momentsTrace() {
  const events = [{ ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'Rank 0' } }];
  const threads = [];
  for (let k = 0; k < 4; k++) {
    events.push({ ph: 'M', name: 'thread_name', pid: 1, tid: k, args: { name: `thread ${k}` } });
    const a = [100 + k * 50, 300 + k * 50];
    const b = [700, 800 + k * 20];
    const mpi = [150 + k * 50, 180 + k * 50];
    events.push({ ph: 'X', name: 'compute', pid: 1, tid: k, ts: a[0], dur: a[1] - a[0] });
    events.push({ ph: 'X', name: 'MPI_Send', pid: 1, tid: k, ts: mpi[0], dur: mpi[1] - mpi[0] });
    events.push({ ph: 'X', name: 'compute', pid: 1, tid: k, ts: b[0], dur: b[1] - b[0] });
    threads.push({ name: `thread ${k}`, busy: [[a[0], mpi[0]], [mpi[1], a[1]], b] });
  }
  return { bytes: Buffer.from(JSON.stringify(events)), threads, firstTs: 100 };
}

/** Moments of busy segments [a, b] (us, absolute), in ns relative to `firstTs` (Godin et al., exact). */
export function momentsOf(segments, firstTs) {
  const seg = segments.map(([a, b]) => [(a - firstTs) * 1000, (b - firstTs) * 1000]);
  const m0 = seg.reduce((s, [a, b]) => s + (b - a), 0);
  const m1 = seg.reduce((s, [a, b]) => s + (b - a) * (a + b) / 2, 0) / m0;
  const mu2 = seg.reduce((s, [a, b]) => { const L = b - a, d = (a + b) / 2 - m1; return s + L ** 3 / 12 + L * d * d; }, 0) / m0;
  const mu3 = seg.reduce((s, [a, b]) => { const L = b - a, d = (a + b) / 2 - m1; return s + L * d ** 3 + d * L ** 3 / 4; }, 0) / m0;
  return { m0, m1, m2: Math.sqrt(3 * mu2), m3: 3 * Math.cbrt(mu3) };
}
