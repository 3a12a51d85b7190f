// The view tabs and switching among views: a tab for each view of what is loaded (a view with nothing to show
// says why on its tab), a tab for each other view of the same file that the worker builds on demand, and the
// switch itself, by tab, key or link. A view that takes long to build (the particle index of a large trace,
// Viewer.begin_view) is built in steps, yielding between them as a load does; `weft.viewSteps` keeps each
// step's time. Another switch or a load meanwhile drops the build (`switching.generation`).
import { runSteps } from './loading.js';

const VIEW_LABELS = { timeline: 'Timeline', moments: 'Utilization & moments', execgraph: 'Execution graph', grains: 'Grain graph', aggregate: 'Aggregated', particles: 'Particles', flamegraph: 'Flame graph' };
const FILE_VIEW_LABELS = { trace: 'Timeline', execgraph: 'Execution graph (threads)', grains: 'Grain graph (tasks)' };

function tab(text, title) {
  const b = document.createElement('button');
  b.type = 'button';
  b.role = 'tab';
  b.textContent = text;
  b.title = title;
  return b;
}

export function createViews(app) {
  const { weft, load, switching: at, status } = app;

  function renderTabs() {
    const nav = document.getElementById('views');
    nav.replaceChildren();
    const views = weft.viewer.views();
    const current = weft.viewer.view();
    views.forEach((v, i) => {
      const b = tab(VIEW_LABELS[v] || v, `${VIEW_LABELS[v] || v} (${i + 1})`);
      b.dataset.view = v;
      // A view with nothing to show says why on its tab (the Particles view of a trace without MPI calls).
      const note = weft.viewer.view_note(v);
      if (note) { b.title += `: ${note}`; b.dataset.note = note; b.classList.add('muted'); }
      b.setAttribute('aria-selected', String(v === current));
      b.addEventListener('click', () => switchStepped(v));
      nav.append(b);
    });
    // Views of the same file that the worker builds on demand (the timeline, threads or tasks of an OTF2 trace).
    for (const kind of weft.fileViews || []) {
      if (kind === weft.lastKind) continue;
      const b = tab(FILE_VIEW_LABELS[kind] || kind, `${FILE_VIEW_LABELS[kind] || kind} of this file (built on demand)`);
      b.dataset.fileView = kind;
      b.setAttribute('aria-selected', 'false');
      b.addEventListener('click', () => app.reader.openFileView(kind));
      nav.append(b);
    }
    app.controls.render(current);
  }

  /** After the shown view changed: no stale hover, the tabs and options of the new view. */
  function shown() {
    app.pointer.hideTooltip();
    renderTabs();
  }

  /** Switch at once (links, the aggregated view's jump to a grain): `change` sets the view on the Viewer. */
  function switchWith(change) {
    at.generation += 1;
    try { change(); } catch (e) { status.showError(String(e)); return; }
    shown();
  }

  const switchTo = (v) => switchWith(() => weft.viewer.set_view(v));

  // A tab or key switches views without one long main-thread task.
  async function switchStepped(v) {
    const mine = ++at.generation;
    const loading = load.generation;
    let stepped;
    try { stepped = weft.viewer.begin_view(v); } catch (e) { status.showError(String(e)); return; }
    if (stepped) {
      let steps;
      try {
        steps = await runSteps(weft.viewer, () => mine === at.generation && loading === load.generation);
      } catch (e) { status.showError(String(e)); return; }
      if (!steps) return;
      weft.viewSteps = steps;
    }
    shown();
  }

  return { renderTabs, switchTo, switchWith, switchStepped };
}
