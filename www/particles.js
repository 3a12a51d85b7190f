// The particle animation's page controls: play, pause, step, the data time step and the animation interval,
// the speed readout, the minimum opacity, clear history / clear fading, the event selection, the process grid,
// the colour legend, and dragging the cursor on the stacked timeline (the wheel zooms and a drag elsewhere pans
// the stacked timeline: the page's input, as in the timeline). Everything is a `configure` call on the
// viewer; the animation advances by `configure('tick', now)` once per page frame while playing. No trace
// logic here; trace-derived text is only ever assigned with textContent. The panel's state is its own object's
// (ParticlesPanel), made once by app.js.

import { isolated } from './text.js';
import { formatDuration, formatNumber } from './format.js';
import { setShown } from './panel.js';

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

export class ParticlesPanel {
  /** @param viewer the page's Viewer; @param stage the element the view is drawn in (the strip goes over it) */
  constructor({ viewer, stage }) {
    this.viewer = viewer;
    this.stage = stage;
    this.active = false;
    this.playing = false;
    this.legendBox = null;
    this.controlsBox = null;
    this.readout = null;
    this.playButton = null;
    this.wired = false;
    this.lastReadout = 0;
    this.loop = (now) => {
      if (!this.active) return;
      if (this.playing) {
        this.cfg('tick', now);
        this.updateReadout();
      }
      requestAnimationFrame(this.loop);
    };
  }

  /** A count for reading, by the Viewer's formatter ("131,072"). */
  count(n) {
    return formatNumber(this.viewer, n);
  }

  cfg(key, value = '') {
    try { this.viewer.configure(key, String(value)); return true; } catch (e) { console.error(`particles ${key}:`, e); return false; }
  }

  setPlaying(p) {
    this.playing = p;
    if (this.playButton) this.playButton.textContent = p ? 'Pause' : 'Play';
  }

  updateReadout(force = false) {
    const now = performance.now();
    if (!this.readout || (!force && now - this.lastReadout < 250)) return;
    this.lastReadout = now;
    const st = this.viewer.view_brief();
    if (!st || st.view !== 'particles') return;
    this.readout.textContent = `t = ${formatDuration(this.viewer, st.t_ns)} · ${st.speed} · ${this.count(st.particles)} particles`;
    if (this.playing && !st.playing) this.setPlaying(false);
  }

  // The controls sit in a strip over the top of the stage (the pane leaves `controls_px` free there), so the
  // header keeps its width.
  controlStrip(st) {
    if (!this.controlsBox) {
      this.controlsBox = document.createElement('div');
      this.controlsBox.id = 'particle-controls';
      Object.assign(this.controlsBox.style, {
        position: 'absolute', left: '0', right: '0', top: '0', display: 'flex', gap: '8px', alignItems: 'center',
        flexWrap: 'nowrap', whiteSpace: 'nowrap', overflow: 'hidden', padding: '4px 8px', color: '#d8dce0', font: '13px system-ui, sans-serif',
      });
      this.stage.append(this.controlsBox);
    }
    const box = this.controlsBox;
    box.style.height = `${st.controls_px}px`;
    box.style.boxSizing = 'border-box';
    box.replaceChildren();
    box.hidden = false;
    return box;
  }

  renderLegend(st) {
    if (!this.legendBox) {
      this.legendBox = document.createElement('div');
      this.legendBox.id = 'particle-legend';
      Object.assign(this.legendBox.style, {
        position: 'absolute', right: '4px', top: `${st.controls_px + 8}px`, width: `${st.legend_px - 8}px`, boxSizing: 'border-box',
        overflowY: 'auto', overflowX: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis', padding: '6px 8px',
        background: 'rgba(20,23,28,0.85)', color: '#d8dce0', font: '12px system-ui, sans-serif', borderRadius: '4px',
      });
      // The legend scrolls (its wheel is its own, not the view's zoom); the types past the palette's limit come
      // grouped as one entry from the pane.
      this.legendBox.addEventListener('wheel', (e) => e.stopPropagation(), { passive: true });
      this.stage.append(this.legendBox);
    }
    const legendBox = this.legendBox;
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
      name.append(isolated(item.name), ` (${this.count(item.count)})`);
      row.append(sw, name);
      legendBox.append(row);
    }
    legendBox.hidden = false;
  }

  // Dragging on the stacked timeline moves the cursor (a seek: skipped events do not enter the history).
  wireCursor() {
    if (this.wired) return;
    this.wired = true;
    const canvas = () => document.getElementById('gpu');
    let dragging = false;
    const seekAt = (e) => {
      const r = canvas().getBoundingClientRect();
      this.cfg('seek_x', e.clientX - r.left);
      this.updateReadout(true);
    };
    this.stage.addEventListener('pointerdown', (e) => {
      if (!this.active || e.button !== 0) return;
      const st = this.viewer.view_brief();
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
      if (!this.active || e.key !== ' ' || e.target instanceof HTMLInputElement) return;
      e.preventDefault();
      if (this.playButton) this.playButton.click();
    });
  }

  /** Called whenever the view options are drawn; returns true when the particles view is shown (its controls
   *  then live in a strip over the stage, not in the header). */
  update(view) {
    const was = this.active;
    this.active = view === 'particles';
    if (!this.active) {
      setShown(false, this.legendBox, this.controlsBox);
      if (was && this.playing) { this.cfg('pause'); }
      this.setPlaying(false);
      return false;
    }
    this.wireCursor();
    const cfg = (key, value) => this.cfg(key, value);
    const st = this.viewer.view_brief();
    const box = this.controlStrip(st);
    this.playButton = button(st.playing ? 'Pause' : 'Play', 'Play or pause the animation (space)', () => {
      if (this.playing) { cfg('pause'); this.setPlaying(false); } else { cfg('play'); this.setPlaying(true); }
      this.updateReadout(true);
    });
    this.playButton.id = 'particles-play';
    const step = button('Step', 'Advance by one data time step', () => { cfg('step'); this.setPlaying(false); this.updateReadout(true); });
    step.id = 'particles-step';
    const stepNs = numberInput(st.step_ns, 'data time step: how far the window moves per animation interval', (v) => { cfg('step_ns', v); this.updateReadout(true); });
    stepNs.id = 'particles-step-ns';
    const interval = numberInput(st.interval_ms.toFixed(1), 'animation interval: wall time between steps', (v) => { cfg('interval_ms', v); this.updateReadout(true); }, '4.5em');
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
    selection.addEventListener('change', () => { if (cfg('selection', selection.value)) { this.renderLegend(this.viewer.view_brief()); this.updateReadout(true); } });
    this.readout = document.createElement('span');
    this.readout.id = 'particles-readout';
    this.readout.className = 'muted';
    box.append(this.playButton, step, labelled('step', stepNs, 'ns'), labelled('every', interval, 'ms'), labelled('min opacity', opacity),
      clearHistory, clearFading, labelled('group', grid), selection, this.readout);
    this.setPlaying(st.playing);
    this.renderLegend(st);
    this.updateReadout(true);
    if (!was) requestAnimationFrame(this.loop);
    return true;
  }
}
