// The store worker (issue #17): opens a weft store (a URL under `?store=`, or a dropped folder's files), and
// for each viewport the page asks for fetches only the tiles the plan names that are not cached, hands them to
// the wasm StoreSession (checked against the manifest, decoded, kept in its byte-bounded cache), and sends back
// what the view draws (the timeline's grid or exact records, Utilization & moments' busy intervals, or the
// particle events of a playback range: only the particle tiles of the windows it reaches, the next range fetched while this one plays). Viewports that arrive while one is being answered wait; only the latest of each view is answered,
// and a newer one stops the older one's fetches and its answer (no answer for a view already left); another
// view's ask (that view is shown now) is answered first, the one it stopped after it. The timeline's exact
// answer comes in two parts: the view's window first, then with its margin (`answer`).
// A tile that cannot be fetched or decoded is named in the answer; the rest of the view is drawn.
// The call-tree panel's questions (`calltree`, `calltree-path`: issue #55) are answered from the store's
// call-path tiles, fetched through the same check and cache (crates/worker/src/store/calltree.rs), one at a
// time between the views' answers, before them.

import init, { StoreSession, compare_pair } from './pkg-worker/weft.js';
import { STORE_CORS_HINT } from './open-url.js';

const ready = init();
let memory = null;
ready.then((exports) => { memory = exports.memory; }, () => {});

let session = null;
let source = null; // { base: URL } or { files: Map(path -> File) }
let busy = false;
// The latest viewport asked of each view (the timeline; Utilization & moments by busy definition; Particles),
// answered the most recent first: one view's ask never drops another's (a timeline ask replaced by the
// moments view's left the timeline unanswered when shown again).
const queued = new Map();
// Asks received, numbering them: only an ask made after one stops it (`answer`).
let asks = 0;
const viewOf = (vp) => (vp.kind === 'particles' ? 'particles' : `busy:${vp.busy || ''}`);
const FETCHES = 6;
// Tiles fetched and decoded ahead, in idle time, for the next zoom or pan (StoreSession.prefetch).
let prefetched = 0;
// The call-tree panel's questions waiting ({id, what, ...}), answered in order before the views.
const questions = [];

const post = (msg, transfer) => self.postMessage({ store: true, ...msg }, transfer || []);
// Times as ms since the epoch, comparable with the page's (each global has its own `performance` origin).
const now = () => performance.timeOrigin + performance.now();

async function read(path) {
  if (source.base) {
    const res = await fetch(new URL(path, source.base).href, { credentials: 'omit', mode: 'cors' });
    if (res.status === 404) throw new Error('missing from the store');
    if (!res.ok) throw new Error(`the server answered ${res.status} ${res.statusText}`);
    return new Uint8Array(await res.arrayBuffer());
  }
  const file = source.files.get(path);
  if (!file) throw new Error('missing from the store');
  return new Uint8Array(await file.arrayBuffer());
}

async function open(msg) {
  if (msg.url) {
    const base = new URL(msg.url);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    source = { base };
  } else {
    // The dropped folder's files by their path under the folder holding manifest.json.
    const top = msg.entries.find((e) => e.path === 'manifest.json' || e.path.endsWith('/manifest.json'));
    const prefix = top ? top.path.slice(0, top.path.length - 'manifest.json'.length) : '';
    source = { files: new Map(msg.entries.filter((e) => e.path.startsWith(prefix)).map((e) => [e.path.slice(prefix.length), e.file])) };
  }
  let manifest;
  try {
    manifest = await read('manifest.json');
  } catch (e) {
    // fetch's TypeError ("Failed to fetch"): a refused cross-origin read and an unreachable host look alike
    // from here; say what to do about both, as a `?trace=` does.
    throw new Error(`${msg.name}/manifest.json: ${e instanceof TypeError ? STORE_CORS_HINT : e.message}`);
  }
  if (session) session.free();
  session = new StoreSession(msg.name, manifest, msg.cacheBytes || 0);
  const skeleton = session.skeleton();
  const particles = session.particle_frame();
  const particleGeometry = Array.from(session.particle_geometry());
  const lanes = session.lanes();
  // The Diagnosis panel's lists (the manifest's sums, tens of ms): made now, so the panel never waits behind a
  // viewport's tiles being decoded.
  let waits = null;
  try { waits = session.waits(); } catch (e) { waits = null; }
  post({ type: 'opened', name: msg.name, summary: session.summary(), skeleton: skeleton.buffer, lanes: lanes.buffer, particles: particles.buffer,
    particleGeometry, manifestBytes: manifest.byteLength, waits }, [skeleton.buffer, lanes.buffer, particles.buffer]);
}

/** Fetch the store paths `need`, FETCHES at a time, each handed to the session as it comes (checked, decoded
 *  into its cache and the answer being gathered; a fetch error recorded), `each()` after each; no more are
 *  taken once `stop()` says so. Resolves to the bytes fetched. */
async function fetchInto(need, stop = () => false, each = () => {}) {
  let next = 0;
  let fetched = 0;
  const one = async () => {
    while (next < need.length && !stop()) {
      const path = need[next++];
      try {
        const bytes = await read(path);
        fetched += bytes.byteLength;
        session.add(path, bytes);
        // Copied into the session: released now rather than by the garbage collector.
        if (bytes.buffer.transfer) bytes.buffer.transfer(0);
      } catch (e) {
        const why = typeof e === 'string' ? e : e.message;
        // A decode error was recorded by the session already; a fetch error is recorded here.
        if (!/^[^:]*\//.test(why)) session.fail(path, why);
      }
      each();
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCHES, need.length) }, one));
  return fetched;
}

// The timeline's exact answer comes in two parts (issue #58, "visible rows first"): the view's own window and
// rows, planned without its margin, gathered, sent and drawn first; then, while nothing else is asked, the
// window with its margin (the rows in view, half a view each side: pans and zooms inside it are drawn without
// asking), fetched and answered as a second answer to the same ask (`widens`), which the page applies once the
// first is drawn. Where the margin adds nothing (not answered exactly wider) there is no second part.
async function answer(vp) {
  const timeline = vp.kind !== 'particles' && !vp.busy;
  const split = timeline && vp.margin > 0;
  // A newer viewport of the same view stops this one; so does another view's ask made since (that view is
  // shown now: it is answered first, and this one after it, queued again below with its place in the order).
  const stop = () => [...queued.values()].some((q) => q.seq > vp.seq);
  const first = await part(vp, split ? 0 : vp.margin || 0, stop, false);
  if (!first) {
    if (!queued.has(viewOf(vp))) {
      // Answered after the other view's ask: first in the queue (drain answers the last first).
      const rest = [...queued];
      queued.clear();
      queued.set(viewOf(vp), vp);
      for (const [k, v] of rest) queued.set(k, v);
    }
    return;
  }
  if (!split || first.kind !== 'exact' || stop()) return;
  await part(vp, vp.margin, stop, true, first);
}

/** One answer for `vp`: planned with `margin`, the tiles not cached fetched (a `progress` posted as each
 *  comes, except for a `widens` part), answered and posted. Null where `stop()` said to stop before the
 *  answer; for a `widens` part, also where its plan is the first part's window (`first`: `{t0, t1}`). */
async function part(vp, margin, stop, widens, first) {
  // The steps' times (www/store.js turns them into the page's `weft.zoom.*` measures).
  const times = { asked: vp.asked, received: vp.received, started: now() };
  // The Diagnosis panel's marks on the timeline (waiting per bin, the critical path) come with its answer.
  if (vp.kind !== 'particles' && !vp.busy) session.set_diagnosis(!!vp.waits, !!vp.path);
  const need = vp.kind === 'particles' ? session.plan_particles(vp.t0, vp.t1, vp.fade)
    : session.plan(vp.t0, vp.t1, vp.loc0, vp.loc1, vp.width, vp.busy || '', vp.s0 || 0, vp.s1 || 0, margin);
  if (widens) {
    const [t0, t1] = session.planned_window();
    if (t0 >= first.t0 && t1 <= first.t1) return null;
  }
  let left = need.length;
  const progress = (n) => { if (!widens) post({ type: 'progress', inFlight: n }); };
  progress(left);
  times.planned = now();
  // A newer ask stops the fetches for this one (those under way finish into the cache).
  const fetched = await fetchInto(need, stop, () => { left -= 1; progress(left); });
  // Messages that came meanwhile are taken first (a task's turn, with nothing to fetch): a newer viewport
  // asked is answered instead of this one, so no answer for a view already left is encoded or sent.
  if (!need.length) await new Promise((r) => setTimeout(r, 0));
  if (stop()) {
    progress(0);
    return null;
  }
  times.fetched = now();
  const out = session.answer();
  times.answered = now();
  const [cacheUsed, cacheBudget, cacheTiles] = session.cache_stats();
  // Inside the wasm (ms): the plan itself, gathering what the cache held, the answer finished, copied out.
  const [planMs, gatherMs, finishMs, copyMs] = session.step_times();
  // An exact answer's intervals come as columns (runs, then one buffer a column): every buffer is transferred,
  // none cloned.
  const columns = out.columns ? out.columns.map((c) => c.buffer) : null;
  const runs = out.runs ? out.runs.buffer : null;
  post({
    type: 'answer', id: vp.id, ask: vp.ask, widens, kind: out.kind, bytes: out.bytes.buffer, counters: out.counters.buffer, diagnosis: out.diagnosis.buffer, t0: out.t0, t1: out.t1, loc0: out.loc0, loc1: out.loc1, level: out.level, fade: out.fade,
    runs, intervals: out.intervals || 0, columns,
    errors: out.errors, fetchedTiles: need.length, plannedTiles: session.planned_tiles(), prefetchedTiles: prefetched, fetchedBytes: fetched, cacheUsed, cacheBudget, cacheTiles,
    wasmBytes: memory ? memory.buffer.byteLength : 0, times: { ...times, posted: now() }, inside: { planMs, gatherMs, finishMs, copyMs },
  }, [out.bytes.buffer, out.counters.buffer, out.diagnosis.buffer, ...(runs ? [runs] : []), ...(columns || [])]);
  return { kind: out.kind, t0: out.t0, t1: out.t1 };
}

/** The call-tree panel's question `q`: planned into its tiles, those not cached fetched (each checked and
 *  decoded into the cache), answered from them; posted as `{type: 'asked', id, model}` or with `error`. */
async function question(q) {
  const started = now();
  const w = q.window;
  const locations = q.locations ? Uint32Array.from(q.locations) : undefined;
  const [t0, t1] = w ? [w[0], w[1]] : [NaN, NaN];
  const need = q.what === 'calltree' ? session.plan_calltree(t0, t1, locations)
    : session.plan_calltree_path(t0, t1, locations, Uint32Array.from(q.path || []), !!q.inverted);
  const fetched = await fetchInto(need);
  const fetchedAt = now();
  const out = session.calltree_answer(!!q.inverted, !!q.perLocation);
  const model = out.model.buffer;
  // The worker's time for it (ms): all of it, the tiles' fetch and decode, the tree from them.
  const times = { ms: now() - started, fetchMs: fetchedAt - started, answerMs: now() - fetchedAt, tiles: need.length, bytes: fetched };
  post({ type: 'asked', id: q.id, what: q.what, model, times }, [model]);
}

async function drain() {
  // The call-tree panel's questions first (each a click), then the views, the one asked last first.
  while ((questions.length || queued.size) && !busy) {
    busy = true;
    if (questions.length) {
      const q = questions.shift();
      try { await question(q); } catch (e) { post({ type: 'asked', id: q.id, error: typeof e === 'string' ? e : (e && e.message) || String(e) }); } finally { busy = false; }
      continue;
    }
    const [view, vp] = [...queued].pop();
    queued.delete(view);
    try { await answer(vp); } catch (e) { post({ type: 'error', message: typeof e === 'string' ? e : e.message }); } finally { busy = false; }
  }
  if (!busy && !queued.size && !questions.length) prefetch();
}

// Idle: the tiles of the next finer view and the neighbouring windows of the timeline's last answer, within
// the cache's budget (StoreSession.prefetch), fetched and decoded one at a time; a viewport asked meanwhile
// stops it (a tile under way is still decoded into the cache, and into that view's answer if it needs it).
let prefetching = false;
async function prefetch() {
  if (prefetching || !session) return;
  prefetching = true;
  try {
    for (const path of session.prefetch()) {
      if (busy || queued.size || questions.length) return;
      let bytes;
      try { bytes = await read(path); } catch (e) { continue; } // left for the view that needs it to report
      try { session.add(path, bytes); prefetched += 1; } catch (e) { /* recorded by the session */ }
      if (bytes.buffer.transfer) bytes.buffer.transfer(0);
    }
  } finally { prefetching = false; }
}

// A comparison's question (issue #54, www/compare.js): the tiles the store's side (or call tree) reads are
// named, fetched and lent to the session (as a view's are, FETCHES at a time), then the answer is taken from
// them and they are let go (StoreSession.compare_*).
async function compareAnswer(msg) {
  const args = [msg.align, msg.ranks, Number.isFinite(msg.t0) ? msg.t0 : NaN, Number.isFinite(msg.t1) ? msg.t1 : NaN];
  const which = msg.which || 'A';
  // Both sides paired (`compare::pair`, a pure function of the two sides' JSON): no tile read.
  if (msg.what === 'pair') return { text: compare_pair(msg.a, msg.b, ...args), tiles: 0, fetched: 0 };
  const need = session.compare_tiles(msg.what === 'flame' ? 'B' : which, ...args);
  let next = 0;
  let fetched = 0;
  const one = async () => {
    while (next < need.length) {
      const path = need[next++];
      let bytes;
      try { bytes = await read(path); } catch (e) { throw new Error(`${path}: ${e.message}`); }
      fetched += bytes.byteLength;
      session.lend(path, bytes);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(FETCHES, need.length) }, one));
  } catch (e) {
    session.compare_release();
    throw e;
  }
  let text;
  if (msg.what === 'side') text = session.compare_side(which, ...args);
  else if (msg.what === 'calltree') text = session.compare_calltree_side(which, ...args);
  else if (msg.what === 'flame') text = session.compare_flame(msg.a, ...args, msg.width);
  else { session.compare_release(); throw new Error(`unknown comparison question ${msg.what}`); }
  return { text, tiles: need.length, fetched };
}

self.onmessage = async (e) => {
  const msg = e.data;
  try {
    await ready;
    if (msg.type === 'open') await open(msg);
    else if (msg.type === 'view' && session) {
      const vp = { ...msg.vp, received: now(), seq: ++asks };
      // Re-inserted: the Map's last entry is the view asked last.
      queued.delete(viewOf(vp));
      queued.set(viewOf(vp), vp);
      await drain();
    }
    else if (msg.type === 'compare' && session) {
      // (Each session call is one task: a view answered meanwhile interleaves with it between fetches.)
      try {
        const r = await compareAnswer(msg);
        post({ type: 'compare', id: msg.id, ...r });
      } catch (err) {
        post({ type: 'compare', id: msg.id, error: typeof err === 'string' ? err : (err && err.message) || String(err) });
      }
    }
    else if (msg.type === 'budget' && session) session.set_cache_budget(msg.bytes);
    else if (msg.type === 'ask' && session) {
      questions.push(msg);
      await drain();
    }
    else if (msg.type === 'waits' && session) {
      // The Diagnosis panel's lists: from the manifest's sums (a store indexed with --waits), no tile fetched.
      try { post({ type: 'waits', json: session.waits() }); } catch (err) { post({ type: 'waits', error: typeof err === 'string' ? err : (err && err.message) || String(err) }); }
    }
  } catch (err) {
    post({ type: 'error', fatal: msg.type === 'open', message: typeof err === 'string' ? err : (err && err.message) || String(err) });
  }
};
