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
