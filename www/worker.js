// The reader worker: reads a File in chunks (File.slice, never whole), feeds the wasm reader, and sends the
// encoded model back as a transferable buffer; then answers the page's questions about what it read (another
// view, layout or busy definition; a second profile to compare with). Any failure, a panic or running out of
// memory included, becomes an 'error' message naming the file. It loads the worker's own wasm module
// (www/pkg-worker: the readers and analyses, no renderer), not the page's.

import init, { WorkerSession, FileSet, sample, relayout_execgraph, moments_for, induce_fault, open_view, protocol_version, human_bytes, diagnose, wait_causes, what_if,
  compare_side, compare_pair, compare_calltree_side, compare_flame, compare_moments, two_runs, two_runs_head_bytes, call_tree_of, call_path_intervals, io_summary_of } from './pkg-worker/weft.js';
import { streamUrl, nameOfUrl, FetchError } from './open-url.js';
import { HISTOGRAM_QUESTIONS, histogramAnswer } from './histogram-answers.js';

const ready = init();
let wasmMemory = null;
ready.then((exports) => { wasmMemory = exports.memory; }, () => {});

const post = (msg, transfer) => self.postMessage({ v: 1, ...msg }, transfer || []);
// A clock the page and this worker share (ms since the epoch, sub-millisecond).
const now = () => performance.timeOrigin + performance.now();

// Free a Rust object unless a trap left it borrowed: then the instance is lost anyway, and freeing it would
// throw wasm-bindgen's "attempted to take ownership of Rust value while it was borrowed" over the trap that is
// worth reporting.
function release(obj) {
  try { obj.free(); } catch { /* the trap's own error is reported */ }
}

// Whether the wasm memory is near the 4 GiB a worker can have: a trap then is the reader running out of it.
const nearlyFull = () => wasmMemory !== null && wasmMemory.buffer.byteLength > 3.5 * (1 << 30);

// `type` 'loaded' (a file to show) or 'compared' (a second grain profile beside the one shown).
async function open(id, file, chunk, fault, type = 'loaded') {
  const session = new WorkerSession(file.name, file.size);
  try {
    // Tests only: fail inside the session, as a reader running out of memory on a large file does.
    if (fault) session.induce_fault(fault);
    // Where the load's time goes in the worker (issue #58): the file's bytes read (`io`), fed to the reader
    // (`parse`: a Chrome trace is parsed as it streams), then `finish` (its own steps in `steps`). Asking for
    // the next chunk while one is parsed showed no gain (BENCHMARKS.md "Session 41: whole files (#58)").
    const times = { started: now(), io: 0, parse: 0 };
    for (let at = 0; at < file.size; at += chunk) {
      let t = performance.now();
      const buf = await file.slice(at, Math.min(file.size, at + chunk)).arrayBuffer();
      times.io += performance.now() - t;
      t = performance.now();
      session.feed(new Uint8Array(buf));
      times.parse += performance.now() - t;
      post({ id, type: 'progress', phase: 'reading', done: Math.min(file.size, at + chunk), total: file.size });
    }
    post({ id, type: 'progress', phase: 'parsing', done: file.size, total: file.size });
    const t = performance.now();
    const out = type === 'compared' ? session.finish_compare() : session.finish();
    times.finish = performance.now() - t;
    send(id, file.name, out, type, times);
  } finally {
    release(session);
  }
}

// What the worker computes again when a view option it applies changes (the schema's `applies: worker`), by the
// option's key: another layout of the execution graph, the moments of another busy definition. Answered 'relaid'.
const RELAYOUTS = { min_edge: relayout_execgraph, busy: moments_for };

// A trace from a URL: the response body streams into the same session a file feeds. `limits` (tests only) may
// lower the byte budget (`bytes`) and the stall timeout (`stallMs`).
async function openUrl(id, url, limits = {}) {
  const name = nameOfUrl(url);
  const make = (total) => {
    const s = new WorkerSession(name, total);
    if (limits.bytes) s.limit_bytes(limits.bytes);
    return s;
  };
  const { session, size } = await streamUrl(url, make,
    (done, total, rate) => post({ id, type: 'progress', phase: 'downloading', done, total, rate }),
    { bytes: human_bytes, stallMs: limits.stallMs, release });
  try {
    post({ id, type: 'progress', phase: 'parsing', done: size, total: size });
    send(id, name, session.finish());
  } finally {
    release(session);
  }
}

// Several files read together (an OTF2 archive folder): each is read whole, then the set is parsed.
async function openSet(id, name, entries) {
  const set = new FileSet(name);
  try {
    const total = entries.reduce((n, e) => n + e.file.size, 0);
    set.admit(total);
    let done = 0;
    for (const { path, file } of entries) {
      set.add(path, new Uint8Array(await file.arrayBuffer()));
      done += file.size;
      post({ id, type: 'progress', phase: 'reading', done, total });
    }
    post({ id, type: 'progress', phase: 'parsing', done: total, total });
    send(id, name, set.finish());
  } finally {
    release(set);
  }
}

// The bytes of a Uint8Array as a buffer of their own, to transfer.
const own = (a) => (a.buffer.byteLength === a.byteLength ? a.buffer : a.slice().buffer);

// `out` is {kind: 'trace' | 'execgraph' | 'grains', model: Uint8Array, summary: JSON string, views?,
// aggregation?, moments?}; the buffers move. `aggregation` (grains) and `moments` (a trace) are what the worker
// built for the page's other views, so the page does not build them on its main thread.
function send(id, name, out, type = 'loaded', times = null) {
  const buf = own(out.model);
  const aggregation = out.aggregation ? own(out.aggregation) : null;
  const moments = out.moments ? own(out.moments) : null;
  // `views`: the other views the file offers (an OTF2 trace with threads or tasks), opened with 'view'.
  const views = out.views ? Array.from(out.views) : null;
  const transfer = [buf, aggregation, moments].filter((b) => b !== null);
  // `times`: the load's steps in the worker (open() above, with the wasm's own in `steps`), `posted` on the
  // clock both sides share (timeOrigin + now), for the page's log of the load (weft.openLog).
  const timings = times && { ...times, steps: out.steps ? { ...out.steps } : null, posted: now() };
  post({ id, type, name, kind: out.kind, model: buf, summary: out.summary, views, aggregation, moments, timings }, transfer);
}

// The page's questions about the trace shown that leave the load alone ('ask', answered 'answer' with the same
// id, or with `error`): the diagnosis of the run or of a window (its bytes move), one wait's root causes, a
// what-if's predicted span.
async function answer(id, msg) {
  if (msg.what.startsWith('compare-') || msg.what === 'two-runs') {
    post({ id, type: 'answer', what: msg.what, ...await compareAnswer(msg) });
  } else if (msg.what === 'diagnose') {
    const w = msg.window;
    const out = diagnose(w ? w[0] : NaN, w ? w[1] : NaN);
    const model = own(out.model);
    post({ id, type: 'answer', what: msg.what, model }, [model]);
  } else if (msg.what === 'causes') {
    post({ id, type: 'answer', what: msg.what, result: JSON.parse(wait_causes(msg.wait)) });
  } else if (msg.what === 'calltree' || msg.what === 'calltree-path') {
    // The call tree of a selection, or one call path's intervals (crates/worker/src/calltree.rs).
    const w = msg.window;
    const locations = msg.locations ? Uint32Array.from(msg.locations) : undefined;
    const out = msg.what === 'calltree'
      ? call_tree_of(w ? w[0] : NaN, w ? w[1] : NaN, locations, !!msg.inverted, !!msg.perLocation)
      : call_path_intervals(w ? w[0] : NaN, w ? w[1] : NaN, locations, Uint32Array.from(msg.path || []), !!msg.inverted);
    const model = own(out.model);
    post({ id, type: 'answer', what: msg.what, model }, [model]);
  } else if (HISTOGRAM_QUESTIONS.includes(msg.what)) {
    const { fields, transfer } = histogramAnswer(msg);
    post({ id, type: 'answer', what: msg.what, ...fields }, transfer);
  } else if (msg.what === 'io') {
    // The I/O summary of a window (crates/worker/src/io.rs: `weft io --json`'s JSON).
    const w = msg.window;
    post({ id, type: 'answer', what: msg.what, result: JSON.parse(io_summary_of(w ? w[0] : NaN, w ? w[1] : NaN, msg.bins || 100, msg.file || '', msg.layer || '')) });
  } else if (msg.what === 'whatif') {
    post({ id, type: 'answer', what: msg.what, result: JSON.parse(what_if(JSON.stringify(msg.scales || []))) });
  } else {
    throw new Error(`the worker answers no question '${msg.what}'`);
  }
}

// Two runs compared (www/compare.js): this run's side as JSON text (passed on as it is), both sides paired,
// or whether two dropped files are two runs (from their heads).
async function compareAnswer(msg) {
  const nan = (x) => (typeof x === 'number' ? x : NaN);
  if (msg.what === 'compare-side') return { text: compare_side(msg.which, msg.align, msg.ranks, nan(msg.t0), nan(msg.t1)) };
  if (msg.what === 'compare-pair') return { result: JSON.parse(compare_pair(msg.a, msg.b, msg.align, msg.ranks, nan(msg.t0), nan(msg.t1))) };
  if (msg.what === 'compare-calltree') return { text: compare_calltree_side(msg.which, msg.align, msg.ranks, nan(msg.t0), nan(msg.t1)) };
  if (msg.what === 'compare-moments') return { result: JSON.parse(compare_moments(msg.a, msg.b, msg.align, msg.ranks, nan(msg.t0), nan(msg.t1), msg.width)) };
  if (msg.what === 'compare-flame') return { result: JSON.parse(compare_flame(msg.a, msg.align, msg.ranks, nan(msg.t0), nan(msg.t1), msg.width)) };
  if (msg.what === 'two-runs') {
    const head = async (f) => new Uint8Array(await f.slice(0, two_runs_head_bytes()).arrayBuffer());
    return { result: two_runs(await head(msg.a), await head(msg.b)) };
  }
  throw new Error(`the worker answers no question '${msg.what}'`);
}

// The parts of a dropped folder (the page posts its files a few per message), gathered in the order they come
// and before anything awaits; a part of another load drops what was gathered.
let setParts = { id: null, entries: [] };

self.onmessage = async (e) => {
  const msg = e.data;
  const id = msg && msg.id;
  let setEntries = null;
  if (msg && (msg.type === 'open-set-part' || msg.type === 'open-set') && Array.isArray(msg.entries)) {
    if (setParts.id !== id) setParts = { id, entries: [] };
    setParts.entries.push(...msg.entries);
    if (msg.type === 'open-set-part') return;
    setEntries = setParts.entries;
    setParts = { id: null, entries: [] };
  }
  try {
    await ready;
    if (!msg || msg.v !== protocol_version()) throw new Error('unknown protocol version');
    if (msg.type === 'open') await open(id, msg.file, msg.chunk || (4 << 20), msg.fault);
    else if (msg.type === 'open-set') await openSet(id, msg.name, setEntries);
    else if (msg.type === 'fetch') await openUrl(id, msg.url, msg.limits);
    else if (msg.type === 'sample') send(id, msg.title || 'built-in sample', sample(msg.name || 'timeline'));
    else if (msg.type === 'fault') induce_fault(msg.kind);
    else if (msg.type === 'ask') await answer(id, msg);
    else if (msg.type === 'view') send(id, msg.name, open_view(msg.kind));
    else if (msg.type === 'relayout') {
      if (!Object.hasOwn(RELAYOUTS, msg.key)) throw new Error(`the worker applies no option '${msg.key}'`);
      send(id, msg.name, RELAYOUTS[msg.key](msg.value), 'relaid');
    } else if (msg.type === 'compare') await open(id, msg.file, msg.chunk || (4 << 20), null, 'compared');
  } catch (err) {
    const text = typeof err === 'string' ? err : (err && err.message) || String(err);
    // A wasm trap (panic, out of memory) leaves the instance unusable: ask the page for a fresh worker.
    const fatal = !(err instanceof FetchError)
      && (err instanceof WebAssembly.RuntimeError || /unreachable|out of memory|while it was borrowed/i.test(text));
    const name = msg && msg.file ? msg.file.name : msg && msg.url ? nameOfUrl(msg.url) : (msg && msg.name) || 'file';
    const what = nearlyFull() || /out of memory/i.test(text)
      ? `the reader ran out of memory (a worker holds at most 4 GiB; the weft command-line tool reads larger traces; ${text})`
      : `the reader failed (${text})`;
    // A question's failure goes to its asker (the page's load goes on); a trap restarts the worker as for a load.
    if (msg && msg.type === 'ask') post({ id, type: 'answer', what: msg.what, error: fatal ? `${what}. It has been restarted.` : text, fatal });
    else post({ id, type: 'error', fatal, message: fatal ? `${name}: ${what}. It has been restarted.` : text });
  }
};
