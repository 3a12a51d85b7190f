// The particle animation's page controls: play, pause, step, the data time step and the animation interval,
// the speed readout, the minimum opacity, clear history / clear fading, the event selection, the process grid,
// the colour legend, and dragging the cursor on the stacked timeline (the wheel zooms and a drag elsewhere pans
// the stacked timeline: the page's input, as in the timeline). Everything is a `configure` call on the
// viewer; the animation advances by `configure('tick', now)` once per page frame while playing. No trace
// logic here; trace-derived text is only ever assigned with textContent.

import { isolated } from './text.js';

let weftRef = null;
let active = false;
let playing = false;
let legendBox = null;
let controlsBox = null;
let readout = null;
let playButton = null;
let wired = false;
let lastReadout = 0;

const cfg = (key, value = '') => {
  try { weftRef.viewer.configure(key, String(value)); return true; } catch (e) { console.error(`particles ${key}:`, e); return false; }
};

function button(text, title, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

function labelled(text, input, unit) {
  const wrap = document.createElement('label');
  wrap.textContent = `${text} `;
  wrap.append(input);
  if (unit) wrap.append(` ${unit}`);
  return wrap;
}

function numberInput(value, title, onChange, width = '6em') {
  const i = document.createElement('input');
  i.type = 'number';
  i.min = '0';
  i.value = String(value);
  i.title = title;
  i.style.width = width;
  i.addEventListener('change', () => onChange(i.value));
  return i;
}

function setPlaying(p) {
  playing = p;
  if (playButton) playButton.textContent = p ? 'Pause' : 'Play';
}

function updateReadout(force = false) {
  const now = performance.now();
  if (!readout || (!force && now - lastReadout < 250)) return;
  lastReadout = now;
  const st = weftRef.viewer.view_brief();
  if (!st || st.view !== 'particles') return;
  readout.textContent = `t = ${(st.t_ns / 1e6).toFixed(3)} ms · ${st.speed} · ${st.particles.toLocaleString()} particles`;
  if (playing && !st.playing) setPlaying(false);
}

// The controls sit in a strip over the top of the stage (the pane leaves `controls_px` free there), so the
// header keeps its width.
function controlStrip(st) {
  if (!controlsBox) {
    controlsBox = document.createElement('div');
    controlsBox.id = 'particle-controls';
    Object.assign(controlsBox.style, {
      position: 'absolute', left: '0', right: '0', top: '0', display: 'flex', gap: '8px', alignItems: 'center',
      flexWrap: 'nowrap', whiteSpace: 'nowrap', overflow: 'hidden', padding: '4px 8px', color: '#d8dce0', font: '13px system-ui, sans-serif',
    });
    document.getElementById('stage').append(controlsBox);
  }
  controlsBox.style.height = `${st.controls_px}px`;
  controlsBox.style.boxSizing = 'border-box';
  controlsBox.replaceChildren();
  controlsBox.hidden = false;
  return controlsBox;
}

function renderLegend(st) {
  if (!legendBox) {
    legendBox = document.createElement('div');
    legendBox.id = 'particle-legend';
    Object.assign(legendBox.style, {
      position: 'absolute', right: '4px', top: `${st.controls_px + 8}px`, width: `${st.legend_px - 8}px`, boxSizing: 'border-box',
      overflowY: 'auto', overflowX: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis', padding: '6px 8px',
      background: 'rgba(20,23,28,0.85)', color: '#d8dce0', font: '12px system-ui, sans-serif', borderRadius: '4px',
    });
    // The legend scrolls (its wheel is its own, not the view's zoom); the types past the palette's limit come
    // grouped as one entry from the pane.
    legendBox.addEventListener('wheel', (e) => e.stopPropagation(), { passive: true });
    document.getElementById('stage').append(legendBox);
  }
  // Within the animation window: from under the controls to above the stacked timeline.
  legendBox.style.maxHeight = `${Math.max(40, st.timeline.y0 - st.controls_px - 16)}px`;
  legendBox.replaceChildren();
  for (const item of st.legend) {
    const row = document.createElement('div');
    row.className = 'legend-item';
    row.title = item.types ? `grouped: ${item.family}` : item.family;
    const sw = document.createElement('span');
    Object.assign(sw.style, { display: 'inline-block', width: '10px', height: '10px', borderRadius: '50%', marginRight: '6px', background: item.color });
    const name = document.createElement('span');
    name.append(isolated(item.name), ` (${item.count.toLocaleString()})`);
    row.append(sw, name);
    legendBox.append(row);
  }
  legendBox.hidden = false;
}

function loop(now) {
  if (!active) return;
  if (playing) {
    cfg('tick', now);
    updateReadout();
  }
  requestAnimationFrame(loop);
}

// Dragging on the stacked timeline moves the cursor (a seek: skipped events do not enter the history).
function wireCursor() {
  if (wired) return;
  wired = true;
  const canvas = () => document.getElementById('gpu');
  let dragging = false;
  const seekAt = (e) => {
    const r = canvas().getBoundingClientRect();
    cfg('seek_x', e.clientX - r.left);
    updateReadout(true);
  };
  document.getElementById('stage').addEventListener('pointerdown', (e) => {
    if (!active || e.button !== 0) return;
    const st = weftRef.viewer.view_brief();
    const r = canvas().getBoundingClientRect();
    if (e.clientY - r.top < st.timeline.y0) return;
    // The cursor drag is the strip's own: the canvas does not also pan the strip.
    e.stopPropagation();
    dragging = true;
    seekAt(e);
  }, true);
  window.addEventListener('pointermove', (e) => { if (dragging) seekAt(e); });
  window.addEventListener('pointerup', () => { dragging = false; });
  window.addEventListener('keydown', (e) => {
    if (!active || e.key !== ' ' || e.target instanceof HTMLInputElement) return;
    e.preventDefault();
    if (playButton) playButton.click();
  });
}

/** Called by app.js whenever the view options are drawn; returns true when the particles view is shown (its
 * controls then live in a strip over the stage, not in the header's `_box`). */
export function particlesView(view, _box, weft) {
  weftRef = weft;
  const was = active;
  active = view === 'particles';
  if (!active) {
    if (legendBox) legendBox.hidden = true;
    if (controlsBox) controlsBox.hidden = true;
    if (was && playing) { cfg('pause'); }
    setPlaying(false);
    return false;
  }
  wireCursor();
  const st = weft.viewer.view_brief();
  const box = controlStrip(st);
  playButton = button(st.playing ? 'Pause' : 'Play', 'Play or pause the animation (space)', () => {
    if (playing) { cfg('pause'); setPlaying(false); } else { cfg('play'); setPlaying(true); }
    updateReadout(true);
  });
  playButton.id = 'particles-play';
  const step = button('Step', 'Advance by one data time step', () => { cfg('step'); setPlaying(false); updateReadout(true); });
  step.id = 'particles-step';
  const stepNs = numberInput(st.step_ns, 'data time step: how far the window moves per animation interval', (v) => { cfg('step_ns', v); updateReadout(true); });
  stepNs.id = 'particles-step-ns';
  const interval = numberInput(st.interval_ms.toFixed(1), 'animation interval: wall time between steps', (v) => { cfg('interval_ms', v); updateReadout(true); }, '4.5em');
  interval.id = 'particles-interval';
  const opacity = document.createElement('input');
  opacity.type = 'range'; opacity.min = '0'; opacity.max = '1'; opacity.step = '0.01'; opacity.value = String(st.min_opacity);
  opacity.id = 'particles-min-opacity';
  opacity.title = 'minimum opacity of the history (O_min)';
  opacity.addEventListener('input', () => cfg('min_opacity', opacity.value));
  const clearHistory = button('Clear history', 'Clear the background history', () => cfg('clear_history'));
  clearHistory.id = 'particles-clear-history';
  const clearFading = button('Clear fading', 'Remove the fading particles', () => cfg('clear_fading'));
  clearFading.id = 'particles-clear-fading';
  const grid = document.createElement('select');
  for (const [v, t] of [['0', 'auto'], ['4', '4'], ['6', '6'], ['8', '8'], ['12', '12'], ['16', '16']]) {
    const o = document.createElement('option'); o.value = v; o.textContent = t; grid.append(o);
  }
  grid.title = 'processes per segment: a multiple of this (the process grid)';
  grid.addEventListener('change', () => cfg('segment_multiple', grid.value));
  const selection = document.createElement('input');
  selection.type = 'text';
  selection.size = 14;
  selection.placeholder = 'events: MPI, NCCL…';
  selection.title = 'which intervals are events: empty for communication and synchronization, name globs (nccl*, cuda*Synchronize), or cat:GLOB';
  selection.addEventListener('change', () => { if (cfg('selection', selection.value)) { renderLegend(weft.viewer.view_brief()); updateReadout(true); } });
  readout = document.createElement('span');
  readout.id = 'particles-readout';
  readout.className = 'muted';
  box.append(playButton, step, labelled('step', stepNs, 'ns'), labelled('every', interval, 'ms'), labelled('min opacity', opacity),
    clearHistory, clearFading, labelled('group', grid), selection, readout);
  setPlaying(st.playing);
  renderLegend(st);
  updateReadout(true);
  if (!was) requestAnimationFrame(loop);
  return true;
}
