// The reader worker (worker.js) and the page's requests to it: open a file, a set of files (a folder), a URL or
// a sample; a file's other view; a layout or moments after an option the worker applies; a second profile to
// compare; cancel (the worker restarts). Its answers go on to loading.js (a loaded file), the Viewer (a new
// layout, a comparison) or the status line (progress, errors). Messages are the small versioned protocol of
// crates/worker/src/worker.rs (`v`, `id`, `type`); bulk data crosses as transferred ArrayBuffers. At most one request is
// pending (`load.pending`); an answer to another is dropped. No trace logic here.
import { nameOfUrl } from './open-url.js';
import { visibleText } from './text.js';
import { yieldToBrowser } from './loading.js';
import { looksLikeStore } from './store.js';

const PROTOCOL = 1;
const CHUNK = 4 << 20;
// A folder's files go to the worker one per message, yielding to the browser every few milliseconds: cloning
// a File into a message costs the main thread 0.4 ms quiet, 3 ms on a loaded machine (the 67 files of a
// 32-rank OTF2 archive took one 27-55 ms task; a 1,000-rank archive would freeze the page for 0.4-3 s). The
// worker gathers the parts ('open-set-part') and reads the set at 'open-set'.
const SET_SLICE_MS = 8;

const SAMPLES = {
  timeline: 'sample: MPI + threads',
  fib: 'sample: Fibonacci fork/join (729 threads)',
  rsa: 'sample: RSA workers (13 threads)',
  mergesort: 'sample: merge sort (1,024 threads)',
  grains: 'sample: grain graph of fib(30), cutoff 8',
  particles: 'sample: MPI patterns (64 ranks)',
};

/** `app`: the page's handles (app.js); `app.load` holds the pending request. Returns the requests. */
export function createReader(app) {
  const { weft, ui, load, status } = app;
  // The worker and the blob: URL it starts from; both change only here.
  const at = { worker: null, entry: null };

  function start() {
    // From a blob: URL, so the worker inherits the page's policies, connect-src narrowed by csp.js included.
    at.entry ||= URL.createObjectURL(new Blob([`import ${JSON.stringify(new URL('./worker.js', import.meta.url).href)};`],
      { type: 'text/javascript' }));
    at.worker = new Worker(at.entry, { type: 'module' });
    at.worker.onmessage = (e) => onMessage(e.data);
    at.worker.onerror = (e) => {
      e.preventDefault();
      app.loading.fail(`The reader crashed: ${e.message || 'unknown error'}. It has been restarted; you can open another file.`);
      restart();
    };
  }

  function restart() {
    if (at.worker) at.worker.terminate();
    for (const q of questions.open.values()) q.reject(new Error('the reader was restarted'));
    questions.open.clear();
    start();
  }

  /** A new pending request named `name` (`more`: its source, or that it is a file's other view). */
  function request(name, more = {}) {
    load.pending = { id: load.nextId++, name, ...more };
    return load.pending.id;
  }

  const post = (msg) => at.worker.postMessage({ v: PROTOCOL, ...msg });

  // Questions about the trace shown that leave the load alone (the diagnosis, a what-if): their own ids, each
  // answered once ('answer'); a restart of the worker fails those in flight.
  const questions = { next: 1, open: new Map() };

  /** Ask the worker `what` ('diagnose' with `{window}`, 'causes' with `{wait}`, 'whatif' with `{scales}`): a
   *  Promise of its answer. */
  function ask(what, args = {}) {
    const id = `q${questions.next++}`;
    return new Promise((resolve, reject) => {
      questions.open.set(id, { resolve, reject });
      post({ id, type: 'ask', what, ...args });
    });
  }

  function onAnswer(msg) {
    const q = questions.open.get(msg.id);
    if (!q) return;
    questions.open.delete(msg.id);
    if (msg.error) q.reject(new Error(msg.error)); else q.resolve(msg);
    if (msg.fatal) restart();
  }

  function onMessage(msg) {
    if (!msg || msg.v !== PROTOCOL) { app.loading.fail('The reader answered in an unknown protocol version.'); return; }
    if (msg.type === 'answer') { onAnswer(msg); return; }
    if (!load.pending || msg.id !== load.pending.id) return;
    switch (msg.type) {
      case 'progress':
        status.showProgress(msg);
        break;
      case 'loaded':
        if (weft.openLog && weft.openLog.id === msg.id) Object.assign(weft.openLog, { received: performance.timeOrigin + performance.now(), worker: msg.timings || null });
        app.loading.show(msg);
        break;
      case 'relaid': {
        // The worker's answer to an option it applies: a new layout, or the moments of another busy definition.
        const moments = msg.kind === 'moments';
        try {
          if (moments) weft.viewer.receive_moments(new Uint8Array(msg.model));
          else weft.viewer.relayout_execgraph(new Uint8Array(msg.model));
        } catch (e) { app.loading.fail(String(e)); return; }
        if (!moments) {
          weft.lastSummary = JSON.parse(msg.summary);
          ui.summary.textContent = app.loading.summaryText('execgraph', weft.lastSummary);
        }
        load.pending = null;
        weft.relayouts = (weft.relayouts || 0) + 1;
        status.setState('ready');
        if (moments) app.controls.render(weft.viewer.view());
        break;
      }
      case 'compared':
        try { weft.viewer.compare_with(msg.name, new Uint8Array(msg.model)); } catch (e) { app.loading.fail(`${msg.name}: ${e}`); return; }
        load.pending = null;
        status.setState('ready');
        weft.aggregatePanel.render();
        break;
      case 'error':
        app.loading.fail(msg.message);
        if (msg.fatal) restart();
        break;
    }
  }

  function cancel(announce = true) {
    load.pending = null;
    restart();
    status.hideProgress();
    if (announce) ui.summary.textContent = 'loading cancelled';
    status.setState(weft.loads > 0 ? 'ready' : 'idle');
  }
  document.getElementById('cancel').addEventListener('click', () => cancel());

  // `extra` (tests only): `fault`, a failure to induce inside the session reading the file.
  function openFile(file, extra = {}) {
    if (!file) return;
    if (load.pending) cancel(false);
    const id = request(file.name);
    // The load's steps, for benchmarks (bench/bench-open.mjs): the worker's, the page's, the first frame's.
    weft.openLog = { id, name: file.name, bytes: file.size, picked: performance.timeOrigin + performance.now() };
    status.startProgress(`reading ${visibleText(file.name)}`);
    post({ id, type: 'open', file, chunk: CHUNK, ...extra });
  }

  // A folder or several files (e.g. an OTF2 archive: X.otf2, X.def, X/*.evt), each with its relative path;
  // a folder holding a weft store's manifest goes to the store's worker (store.js).
  function openSet(name, entries) {
    if (!entries.length) { status.showError(`${name}: the folder is empty`); return; }
    if (entries.length === 1) { openFile(entries[0].file); return; }
    if (looksLikeStore(entries)) { if (load.pending) cancel(false); weft.store.openFolder(name, entries); return; }
    if (load.pending) cancel(false);
    const id = request(name);
    status.startProgress(`reading ${visibleText(name)}`);
    postSet(id, name, entries);
  }

  async function postSet(id, name, entries) {
    const to = at.worker;
    let t0 = performance.now();
    for (const entry of entries) {
      if (performance.now() - t0 > SET_SLICE_MS) {
        await yieldToBrowser();
        // Another file opened meanwhile (the worker drops the parts), or the worker restarted.
        if (!load.pending || load.pending.id !== id || at.worker !== to) return;
        t0 = performance.now();
      }
      to.postMessage({ v: PROTOCOL, id, type: 'open-set-part', name, entries: [entry] });
    }
    to.postMessage({ v: PROTOCOL, id, type: 'open-set', name, entries: [] });
  }

  // A trace from a URL: the worker downloads it with progress (open-url.js). The page's policy lets it reach
  // only the origins its address named (csp.js); for another, the page reopens with this URL as its address.
  function openUrl(url, { direct = false } = {}) {
    if (!direct && window.weftConnectAllowed && !window.weftConnectAllowed(url)) {
      const next = new URL(location.href);
      next.searchParams.delete('trace');
      const hash = new URLSearchParams(location.hash.slice(1));
      hash.set('trace', url);
      next.hash = hash.toString();
      history.replaceState(null, '', next.href);
      location.reload();
      return;
    }
    if (load.pending) cancel(false);
    const name = nameOfUrl(url);
    const id = request(name, { source: { trace: url } });
    status.startProgress(`downloading ${visibleText(name)}`);
    // `weft.limits` (tests only): a lower byte budget (`bytes`) and stall timeout (`stallMs`) for the download.
    post({ id, type: 'fetch', url, limits: { ...weft.limits } });
  }

  function openSample(name = 'timeline') {
    if (load.pending) cancel(false);
    const id = request(name, { source: { sample: name } });
    status.setState('loading');
    post({ id, type: 'sample', name, title: SAMPLES[name] });
  }

  /** Another view of the file shown, which the worker builds on demand (the threads or tasks of an OTF2 trace). */
  function openFileView(kind) {
    if (load.pending) return; // the worker holds the file's views: a restart would lose them
    const name = ui.fileName.textContent;
    const id = request(name, { fileView: true });
    status.setState('loading');
    post({ id, type: 'view', kind, name });
  }

  /** Ask the worker to apply a changed option (the schema says `applies: worker`): lay the shown graph out again, or
   *  compute the moments of another busy definition; the view shows what it has until the answer ('relaid'). */
  function relayout(key, value) {
    const id = request('relayout');
    status.setState('loading');
    post({ id, type: 'relayout', name: ui.fileName.textContent, key, value });
  }

  // A second grain profile beside the aggregated view: the worker reads it (the page's wasm holds no reader).
  function compareWith(file) {
    if (load.pending) return; // the worker holds the file shown: a restart would lose what it answers
    const id = request(file.name);
    status.setState('loading');
    post({ id, type: 'compare', file, chunk: CHUNK });
  }

  // For the security test: the worker's own fetch must be refused by the policy it inherited.
  weft.openUrlDirect = (url) => openUrl(url, { direct: true });

  // For the fault-recovery tests: crash the reader worker the way a bug would ('panic' or 'oom'); given a File,
  // inside the session that reads it (as a reader running out of memory on a large file does).
  weft.induceFault = (kind, file) => {
    if (file) { openFile(file, { fault: kind }); return; }
    const id = request(`fault ${kind}`);
    status.setState('loading');
    post({ id, type: 'fault', kind, name: `fault ${kind}` });
  };

  return { start, cancel, openFile, openSet, openUrl, openSample, openFileView, relayout, compareWith, ask };
}
