// A file the worker loaded, into the Viewer without one long main-thread task: its buffers copied in a part at
// a time, then its views built a step at a time (Viewer.load_step), yielding to the browser between steps; a
// newer load drops an older one's steps (`load.generation`). Then the header (name, summary line, warnings)
// and the tabs, and the `weft.hooks.loaded` of the page's other parts. `weft.loadSteps` keeps each step's
// main-thread time of the last load. A failed load shows why and leaves what was shown.
import { visibleText } from './text.js';
import { showWarnings } from './warnings-panel.js';
import { formatNumber } from './format.js';

const RECEIVE_PART = 4 << 20;

/** A tick for the browser between steps, so no main-thread task decodes and builds a whole input. */
export const yieldToBrowser = () => (globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise((r) => setTimeout(r, 0)));

/** Run the Viewer's steps (Viewer.load_step) until done, yielding before each, while `current()` holds.
 *  Returns each step's name and main-thread time, or null when dropped. Throws what a step throws. */
export async function runSteps(viewer, current, steps = []) {
  for (;;) {
    await yieldToBrowser();
    if (!current()) return null;
    const step = viewer.load_step_name();
    const t = performance.now();
    const more = viewer.load_step();
    steps.push({ step, ms: performance.now() - t });
    if (!more) return steps;
  }
}

export function createLoading(app) {
  const { weft, ui, load, status } = app;

  async function show(msg) {
    const generation = ++load.generation;
    const current = () => generation === load.generation;
    const mine = load.pending;
    const steps = [];
    try {
      if (msg.kind === 'execgraph') weft.viewer.load_execgraph(new Uint8Array(msg.model));
      else {
        // The worker's buffers, copied into the viewer a part at a time.
        const buffers = [msg.model, msg.kind === 'grains' ? msg.aggregation : msg.moments].filter(Boolean);
        for (const buffer of buffers) {
          weft.viewer.receive(buffer.byteLength);
          for (let at = 0; at < buffer.byteLength; at += RECEIVE_PART) {
            await yieldToBrowser();
            if (!current()) return;
            const t = performance.now();
            weft.viewer.receive_part(new Uint8Array(buffer, at, Math.min(RECEIVE_PART, buffer.byteLength - at)));
            steps.push({ step: 'receive', ms: performance.now() - t });
          }
        }
        weft.viewer.begin_load_received(msg.kind === 'grains' ? 'grains' : 'trace');
        if (!await runSteps(weft.viewer, current, steps)) return;
      }
    } catch (e) {
      if (current()) fail(`${msg.name}: ${e}`);
      return;
    }
    // The tabs, legend and options below read the new views: a task of their own, not one with the last step
    // (a 131,072-grain profile's last step, its aggregated view, takes 30 ms; with them the task took 62).
    await yieldToBrowser();
    if (!current()) return;
    weft.loadSteps = steps;
    const s = JSON.parse(msg.summary);
    // The file's other views (an OTF2 trace with threads or tasks) stay offered while switching among them.
    weft.fileViews = msg.views || (mine && mine.fileView ? weft.fileViews : null);
    weft.lastSummary = s;
    weft.lastKind = msg.kind;
    app.pointer.hideTooltip();
    ui.fileName.textContent = visibleText(msg.name);
    ui.summary.textContent = summaryText(msg.kind, s);
    showWarnings(s, weft.viewer);
    ui.error.hidden = true;
    weft.source = (mine && mine.source) || null;
    if (load.pending === mine) load.pending = null;
    app.views.renderTabs();
    for (const hook of weft.hooks.loaded) hook(msg);
    status.hideProgress();
    weft.loads += 1;
    if (weft.openLog && mine && weft.openLog.id === mine.id) Object.assign(weft.openLog, { steps, ready: performance.timeOrigin + performance.now() });
    status.setState('ready');
    // The header and tabs just changed: size the view now, so the first frame of what was loaded is drawn
    // once at its final size rather than again when the ResizeObserver reports the change.
    app.resize();
  }

  /** The summary line of a loaded file of `kind` from its summary `s` (a store's too). */
  function summaryText(kind, s) {
    const count = (n) => formatNumber(weft.viewer, n);
    if (kind === 'grains') {
      const flagged = Object.values(s.problems).reduce((a, b) => Math.max(a, b), 0);
      return `${count(s.grains)} grains · ${count(s.nodes)} nodes · critical path ${formatNumber(weft.viewer, s.critical_path_length, s.parallelism.unit)}` +
        (flagged ? ` · up to ${count(flagged)} problem grains per metric` : '');
    }
    if (kind === 'execgraph') {
      return `${count(s.threads)} threads · ${count(s.nodes)} nodes · ${count(s.crossings)} crossings` +
        (s.parents_not_bipartite ? ` (${s.parents_not_bipartite} parents need max-cut)` : '');
    }
    return `${s.processes} processes · ${s.locations} locations · ${count(s.intervals)} intervals` +
      (s.messages + s.flows ? ` · ${count(s.messages + s.flows)} messages/flows` : '');
  }

  function fail(message) {
    load.pending = null;
    status.hideProgress();
    status.showError(message);
    status.setState(weft.loads > 0 ? 'ready' : 'error');
  }

  return { show, summaryText, fail };
}
