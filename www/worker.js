// The reader worker: reads a File in chunks (File.slice, never whole), feeds the wasm reader, and sends the
// encoded model back as a transferable buffer. Any failure, a panic included, becomes an 'error' message.

import init, { WorkerSession, FileSet, sample, relayout_execgraph, induce_fault, open_view, protocol_version } from './pkg/weft.js';
import { streamUrl, nameOfUrl, FetchError } from './open-url.js';

const ready = init();

const post = (msg, transfer) => self.postMessage({ v: 1, ...msg }, transfer || []);

async function open(id, file, chunk) {
  const session = new WorkerSession(file.name, file.size);
  try {
    for (let at = 0; at < file.size; at += chunk) {
      const buf = await file.slice(at, Math.min(file.size, at + chunk)).arrayBuffer();
      session.feed(new Uint8Array(buf));
      post({ id, type: 'progress', phase: 'reading', done: Math.min(file.size, at + chunk), total: file.size });
    }
    post({ id, type: 'progress', phase: 'parsing', done: file.size, total: file.size });
    send(id, file.name, session.finish());
  } finally {
    session.free();
  }
}

// A trace from a URL: the response body streams into the same session a file feeds.
async function openUrl(id, url) {
  const name = nameOfUrl(url);
  const { session, size } = await streamUrl(url, (total) => new WorkerSession(name, total),
    (done, total) => post({ id, type: 'progress', phase: 'downloading', done, total: Math.max(total, done) }));
  try {
    post({ id, type: 'progress', phase: 'parsing', done: size, total: size });
    send(id, name, session.finish());
  } finally {
    session.free();
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
    set.free();
  }
}

// `out` is {kind: 'trace' | 'execgraph' | 'grains', model: Uint8Array, summary: JSON string, views?}; the model's buffer moves.
function send(id, name, out, type = 'loaded') {
  const model = out.model;
  const buf = model.buffer.byteLength === model.byteLength ? model.buffer : model.slice().buffer;
  // `views`: the other views the file offers (an OTF2 trace with threads or tasks), opened with 'view'.
  const views = out.views ? Array.from(out.views) : null;
  post({ id, type, name, kind: out.kind, model: buf, summary: out.summary, views }, [buf]);
}

self.onmessage = async (e) => {
  const msg = e.data;
  const id = msg && msg.id;
  try {
    await ready;
    if (!msg || msg.v !== protocol_version()) throw new Error('unknown protocol version');
    if (msg.type === 'open') await open(id, msg.file, msg.chunk || (4 << 20));
    else if (msg.type === 'open-set') await openSet(id, msg.name, msg.entries);
    else if (msg.type === 'fetch') await openUrl(id, msg.url);
    else if (msg.type === 'sample') send(id, msg.title || 'built-in sample', sample(msg.name || 'timeline'));
    else if (msg.type === 'fault') induce_fault(msg.kind);
    else if (msg.type === 'view') send(id, msg.name, open_view(msg.kind));
    else if (msg.type === 'relayout') send(id, msg.name, relayout_execgraph(msg.min_px), 'relaid');
  } catch (err) {
    const text = typeof err === 'string' ? err : (err && err.message) || String(err);
    // A wasm trap (panic, out of memory) leaves the instance unusable: ask the page for a fresh worker.
    const fatal = !(err instanceof FetchError) && (err instanceof WebAssembly.RuntimeError || /unreachable|out of memory/i.test(text));
    const name = msg && msg.file ? msg.file.name : msg && msg.url ? nameOfUrl(msg.url) : (msg && msg.name) || 'file';
    post({ id, type: 'error', fatal, message: fatal ? `${name}: the reader failed (${text}). It has been restarted.` : text });
  }
};
