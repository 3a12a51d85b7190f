// The messages panel beside the timeline: what a click on a message line or an MPI call selected (sender and
// receiver, size, tag, communicator, send and receive time, latency, the calls at both ends, a "go to
// partner" button; or a collective's members), and the communication matrix (sender x receiver, messages,
// bytes or mean size, by process or location) of the Shift+drag selection or of the whole trace, drawn on a
// canvas as a heat map with its colour scale and a hover tooltip; a cell click highlights that pair's
// messages in the timeline. The Viewer answers every question
// (crates/page/src/message_panel.rs over views::message_select and analyses::comm_matrix, the matrix
// `weft info --window --json` prints as comm_matrix); this file only arranges the answers. Trace-derived text
// goes in with textContent only.

import { el } from './dom.js';
import { formatBytes, formatDuration, formatNumber } from './format.js';
import { ViewPanel } from './panel.js';

/** The heat map's colour ramp: white (0) to dark blue (the largest value), as [r, g, b] at s in [0, 1]. */
function ramp(s) {
  const a = [0xf4, 0xf7, 0xfc], b = [0x0b, 0x3d, 0x91];
  return a.map((c, k) => Math.round(c + (b[k] - c) * s));
}
const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;

const CARDS = 20; // message cards shown at most
const CELL_MAX = 28; // px: a cell's size at most (fewer processes)
const CELL_MIN = 3; // px: at least (many processes: the canvas scrolls)

export class CommPanel extends ViewPanel {
  /**
   * @param viewer  the page's Viewer
   * @param canvas  the view's canvas (a click without a drag selects a message or call)
   * @param root    the panel's element (filled here)
   * @param onError (message): show an error
   */
  constructor({ viewer, canvas, root, onError }) {
    super({ root, view: 'timeline', onError,
      toggle: { id: 'messages-toggle', title: 'Messages: click a message or an MPI call for its partner; the communication matrix', text: 'Messages' } });
    Object.assign(this, { viewer, canvas });
    this.selection = null;
    this.matrix = null;
    this.build();
    this.wirePointer(canvas);
  }

  build() {
    this.details = el('div', { id: 'message-details' });
    this.scope = el('select', { id: 'matrix-scope', 'aria-label': 'matrix of' },
      el('option', { value: 'selection', text: 'the selection' }), el('option', { value: 'whole', text: 'the whole trace' }));
    this.unit = el('select', { id: 'matrix-unit', 'aria-label': 'matrix rows' },
      el('option', { value: 'process', text: 'processes' }), el('option', { value: 'location', text: 'locations' }));
    this.measure = el('select', { id: 'matrix-measure', 'aria-label': 'matrix value' },
      el('option', { value: 'count', text: 'messages' }), el('option', { value: 'bytes', text: 'bytes' }), el('option', { value: 'mean', text: 'mean size' }));
    this.caption = el('div', { id: 'matrix-caption', class: 'muted' });
    this.heat = el('canvas', { id: 'matrix-canvas', 'aria-label': 'communication matrix: senders in rows, receivers in columns' });
    // The heat map between its axes: receivers' labels above the columns, senders' left of the rows.
    this.rowLabels = el('div', { id: 'matrix-rows', 'aria-label': 'senders' });
    this.colLabels = el('div', { id: 'matrix-cols', 'aria-label': 'receivers' });
    this.grid = el('div', { class: 'matrix-grid' }, el('span', { class: 'matrix-corner muted', text: 'from \\ to' }),
      this.colLabels, this.rowLabels, this.heat);
    this.scale = el('div', { id: 'matrix-scale', class: 'muted' });
    this.tip = el('div', { id: 'matrix-tip', class: 'muted' });
    this.root.replaceChildren(
      el('h3', { text: 'Message' }), this.details,
      el('h3', { text: 'Communication matrix' }),
      el('div', { class: 'row' }, el('span', { text: 'of' }), this.scope, this.unit, this.measure),
      this.caption, el('div', { class: 'scroll' }, this.grid), this.scale, this.tip,
    );
    for (const s of [this.scope, this.unit, this.measure]) s.addEventListener('change', () => this.renderMatrix());
    // The profile panel's Clear button clears the time-range selection: the matrix is then the whole trace's.
    document.addEventListener('click', (e) => {
      if (e.target instanceof Element && e.target.id === 'profile-clear' && !this.root.hidden) this.renderMatrix();
    });
    this.heat.addEventListener('pointermove', (e) => this.hoverCell(e));
    this.heat.addEventListener('pointerleave', () => { this.tip.textContent = ''; });
    this.heat.addEventListener('click', (e) => this.clickCell(e));
    this.showSelection(null);
  }

  /** A click on the timeline (no Shift, no drag) selects the message or call under it. */
  wirePointer(canvas) {
    let down = null;
    canvas.addEventListener('pointerdown', (e) => {
      down = (this.view === 'timeline' && e.button === 0 && !e.shiftKey) ? { x: e.clientX, y: e.clientY } : null;
    });
    canvas.addEventListener('pointerup', (e) => {
      // A Shift+drag or Shift+click (the profile panel's handler, registered first, has taken it): the
      // selection may have changed, and the matrix of the selection with it.
      if (e.shiftKey && this.view === 'timeline' && !this.root.hidden) this.renderMatrix();
      if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) { down = null; return; }
      down = null;
      const r = canvas.getBoundingClientRect();
      this.click(e.clientX - r.left, e.clientY - r.top);
    });
  }

  /** Select what is at (x, y) of the timeline; opens the panel on a selection. Returns the selection. */
  click(x, y) {
    const sel = this.call(() => this.viewer.timeline_message_click(x, y));
    if (sel === undefined) return null;
    this.showSelection(sel);
    if (sel) this.setOpen(true);
    return sel;
  }

  /** A duration as the timeline's hovers write it, and a size in bytes: the Viewer's formatter. */
  ns(ns) {
    return formatDuration(this.viewer, ns);
  }

  bytes(b) {
    return formatBytes(this.viewer, b);
  }

  /** A count for reading, by the Viewer's formatter ("131,072"). */
  count(n) {
    return formatNumber(this.viewer, n);
  }

  /** Show the selection and the matrix again (a load, the time-range selection changed). */
  refresh() {
    if (this.view !== 'timeline') return;
    this.showSelection(this.call(() => this.viewer.timeline_message_selection()) ?? null);
    this.renderMatrix();
  }

  showSelection(sel) {
    this.selection = sel;
    const d = this.details;
    if (!sel) {
      d.replaceChildren(el('div', { class: 'muted', text: 'Click a message line or an MPI call (MPI_Send, MPI_Recv, MPI_Wait, a collective) in the timeline.' }));
      return;
    }
    const kids = [];
    if (sel.call) kids.push(el('div', { class: 'muted', text: `${sel.call.region} · ${this.ns(sel.call.start_ns)} to ${this.ns(sel.call.end_ns)}` }));
    if (sel.clicked === 'pair') {
      const m0 = sel.messages[0];
      kids.push(el('div', { id: 'pair-caption', text: m0
        ? `${this.count(sel.total)} messages from ${m0.from.process}${this.matrix && this.matrix.unit === 'location' ? ` / ${m0.from.name}` : ''} to ${m0.to.process}${this.matrix && this.matrix.unit === 'location' ? ` / ${m0.to.name}` : ''}, highlighted`
        : 'No message between this pair in this range.' }));
    }
    if (sel.messages.length) {
      if (sel.total > 1) kids.push(el('div', { class: 'muted', text: `${this.count(sel.total)} messages${sel.total > sel.messages.length ? `, first ${sel.messages.length} listed` : ''}` }));
      // Cards for the first few (a matrix cell may hold thousands; all listed are highlighted).
      sel.messages.slice(0, CARDS).forEach((m, k) => kids.push(this.messageCard(m, k)));
      if (sel.messages.length > CARDS) kids.push(el('div', { class: 'muted', text: `cards for the first ${CARDS}` }));
    }
    if (sel.collective) kids.push(this.collectiveCard(sel.collective));
    const clear = el('button', { type: 'button', id: 'message-clear', text: 'Clear' });
    clear.addEventListener('click', () => { this.call(() => this.viewer.timeline_message_clear()); this.showSelection(null); });
    kids.push(el('div', { class: 'row' }, clear));
    d.replaceChildren(...kids);
  }

  messageCard(m, k) {
    const where = (e) => `${e.process} / ${e.name}`;
    const call = (e) => (e.call ? `${e.call.region} (${this.ns(e.call.start_ns)} to ${this.ns(e.call.end_ns)})` : '(no call)');
    const rows = [
      ['from', where(m.from)], ['to', where(m.to)],
      ['size', m.kind === 'flow' ? '' : `${this.count(m.size_bytes)} B`],
      ['tag', m.kind === 'flow' ? '' : String(m.tag)],
      [m.kind === 'flow' ? 'name' : 'communicator', m.communicator],
      ['sent', this.ns(m.send_ns)], ['received', this.ns(m.recv_ns)],
      ['latency', `${this.ns(m.latency_ns)} (receive − send event)`],
      ['send call', call(m.from)], ['receive call', call(m.to)],
    ].filter(([, v]) => v !== '');
    const table = el('table', { class: 'message-card', 'data-message': String(m.message), 'data-size': String(m.size_bytes),
      'data-tag': String(m.tag), 'data-send': String(m.send_ns), 'data-recv': String(m.recv_ns), 'data-latency': String(m.latency_ns),
      'data-from': String(m.from.location), 'data-to': String(m.to.location) },
    ...rows.map(([a, b]) => el('tr', {}, el('th', { scope: 'row', text: a }), el('td', { text: b }))));
    const partner = m.partner === 'to' ? m.to : m.from;
    const go = el('button', { type: 'button', class: 'message-go', text: `Go to partner: ${partner.process} / ${partner.name}` });
    go.addEventListener('click', () => this.call(() => this.viewer.timeline_message_go_to_partner(k)));
    return el('div', { class: 'message' }, table, go);
  }

  collectiveCard(c) {
    const head = el('div', { text: `${c.region} · ${c.communicator}${c.root ? ` · root ${c.root}` : ''} · ${c.member_count} members` });
    // Starts and offsets from the first to arrive at the precision that tells them apart (the Viewer's).
    const rows = c.members.map((m) => el('tr', { 'data-location': String(m.location), 'data-arrival': String(m.arrival) },
      el('td', { text: `${m.process} / ${m.name}` }), el('td', { class: 'num', text: m.start }),
      el('td', { class: 'num member-offset', text: m.offset, title: `arrival ${m.arrival} of ${c.member_count}` }),
      el('td', { class: 'num', text: this.ns(m.end_ns - m.start_ns) }),
      el('td', { class: 'num', text: this.bytes(m.bytes_sent) }), el('td', { class: 'num', text: this.bytes(m.bytes_received) })));
    const th = (t) => el('th', { scope: 'col', text: t });
    return el('div', { class: 'collective' }, head,
      el('table', { class: 'grain-table', id: 'collective-members' }, el('thead', {}, el('tr', {}, th('member'), th('start'), th('after first'), th('duration'), th('sent'), th('received'))), el('tbody', {}, ...rows)));
  }

  /** The value a cell shows for the chosen measure. */
  value(s, r) {
    const m = this.matrix;
    const n = m.count[s][r];
    if (this.measure.value === 'count') return n;
    if (this.measure.value === 'bytes') return m.bytes[s][r];
    return n ? m.bytes[s][r] / n : 0;
  }

  label(v) {
    if (this.measure.value === 'count') return `${this.count(v)} messages`;
    return this.bytes(Math.round(v));
  }

  renderMatrix() {
    const m = this.call(() => this.viewer.timeline_comm_matrix(this.scope.value === 'whole', this.unit.value));
    if (!m) return;
    this.matrix = m;
    const n = m.senders.length;
    const total = m.count.flat().reduce((a, b) => a + b, 0);
    const bytes = m.bytes.flat().reduce((a, b) => a + b, 0);
    this.root.dataset.messages = String(total);
    this.caption.textContent = n === 0
      ? 'No point-to-point messages in this trace.'
      : `${this.count(total)} messages, ${this.bytes(bytes)} sent in ${m.whole ? 'the whole trace' : `the selection (${this.ns(m.t1_ns - m.t0_ns)})`} · rows send, columns receive`;
    const cell = Math.max(CELL_MIN, Math.min(CELL_MAX, Math.floor(380 / Math.max(n, 1))));
    this.cell = cell;
    const dpr = window.devicePixelRatio || 1;
    const side = Math.max(1, n * cell);
    this.heat.width = Math.round(side * dpr);
    this.heat.height = Math.round(side * dpr);
    this.heat.style.width = `${side}px`;
    this.heat.style.height = `${side}px`;
    const g = this.heat.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, side, side);
    let max = 0;
    for (let s = 0; s < n; s++) for (let r = 0; r < n; r++) max = Math.max(max, this.value(s, r));
    this.max = max;
    for (let s = 0; s < n; s++) {
      for (let r = 0; r < n; r++) {
        const v = this.value(s, r);
        g.fillStyle = v > 0 ? css(ramp(0.15 + 0.85 * Math.sqrt(v / max))) : css(ramp(0));
        g.fillRect(r * cell, s * cell, cell - (cell > 4 ? 1 : 0), cell - (cell > 4 ? 1 : 0));
      }
    }
    this.axisLabels(m, cell);
    // The colour scale: the ramp from 0 to the largest value (square-root scale, so small values show).
    const bar = el('span', { class: 'matrix-ramp' });
    bar.style.background = `linear-gradient(to right, ${css(ramp(0))}, ${css(ramp(0.15))}, ${css(ramp(1))})`;
    this.scale.replaceChildren(el('span', { text: '0' }), bar, el('span', { text: `${max ? this.label(max) : '0'} (square-root scale)` }));
  }

  /** Each row's sender and each column's receiver beside the heat map (the Viewer's short labels, the full
   *  name on hover): every label where cells are at least 10 px, else every k-th so labels never overlap. */
  axisLabels(m, cell) {
    const every = Math.max(1, Math.ceil(10 / cell));
    const make = (labels, names, cls) => labels.map((text, k) => {
      const span = el('span', { class: cls, text: k % every === 0 ? text : '', title: names[k] });
      span.style[cls === 'matrix-col' ? 'width' : 'height'] = `${cell}px`;
      return span;
    });
    this.rowLabels.replaceChildren(...make(m.sender_labels, m.senders, 'matrix-row'));
    this.colLabels.replaceChildren(...make(m.receiver_labels, m.receivers, 'matrix-col'));
  }

  /** The matrix cell [sender, receiver] under a pointer event, or null. */
  cellAt(e) {
    const m = this.matrix;
    if (!m || !m.senders.length) return null;
    const r0 = this.heat.getBoundingClientRect();
    const r = Math.floor((e.clientX - r0.left) / this.cell), s = Math.floor((e.clientY - r0.top) / this.cell);
    return s < 0 || r < 0 || s >= m.senders.length || r >= m.receivers.length ? null : [s, r];
  }

  /** A cell click highlights that pair's messages (of the matrix's window) in the timeline and lists them. */
  clickCell(e) {
    const c = this.cellAt(e);
    if (!c) return;
    const m = this.matrix;
    const sel = this.call(() => this.viewer.timeline_message_select_pair(m.unit, m.ids[c[0]], m.ids[c[1]], m.whole));
    if (sel !== undefined) this.showSelection(sel);
  }

  hoverCell(e) {
    const m = this.matrix;
    const c = this.cellAt(e);
    if (!c) { this.tip.textContent = ''; return; }
    const [s, r] = c;
    const n = m.count[s][r], b = m.bytes[s][r];
    this.tip.textContent = `${m.senders[s]} → ${m.receivers[r]}: ${this.count(n)} messages, ${this.bytes(b)}` +
      (n ? `, mean ${this.bytes(Math.round(b / n))}` : '');
  }
}
