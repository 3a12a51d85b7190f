// The compare panel's views of the difference beyond the region table (issue #54, www/compare.js holds the
// panel and its tabs): the differential flame graph, the communication matrix of B minus A, the moments per
// location of both runs, and the wait states and critical path of both. Every figure is the workers' (the
// comparison `weft diff --json` prints, and `weft diff --calltree`'s paths with the picture drawn by
// scene::flame_diff in B's worker); this file only arranges them as DOM. Trace text goes in with textContent.

import { el } from './dom.js';

/** Formatting helpers over the page's Viewer: a duration, and a signed one. */
export function formats(viewer) {
  const fmt = (ns) => (ns === null || ns === undefined ? '–' : viewer.format_duration(ns));
  const signed = (ns) => (ns > 0 ? `+${fmt(ns)}` : ns < 0 ? `−${fmt(-ns)}` : fmt(0));
  return { fmt, signed };
}

const num = (n) => (n === null || n === undefined ? '–' : String(n));
const signedNum = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');
const changeClass = (d) => (d > 0 ? 'slower' : d < 0 ? 'faster' : '');

function table(id, head, rows) {
  const t = el('table', { id, class: 'compare-grid' });
  t.append(el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h, class: h.startsWith('A ') ? 'run-a' : h.startsWith('B ') ? 'run-b' : '' })))));
  const body = el('tbody');
  for (const r of rows) body.append(r);
  t.append(body);
  return t;
}

// --- The differential flame graph -------------------------------------------------------------------------

/**
 * The flame graph answer of B's worker (`compare_flame`: {svg, width, height, boxes, paths, total_ns}) as an
 * image with a hover that names the path under the pointer with A's, B's and the change. Returns the element
 * and a `dispose` that frees the image.
 */
export function flameView(answer, f) {
  const url = URL.createObjectURL(new Blob([answer.svg], { type: 'image/svg+xml' }));
  const img = el('img', { id: 'compare-flame-img', src: url, width: String(answer.width), height: String(answer.height), alt: "B's call tree coloured by its change against A" });
  const tip = el('div', { id: 'compare-flame-tip', class: 'compare-tip', hidden: '' });
  const box = el('div', { id: 'compare-flame', class: 'compare-flame' }, img, tip);
  const at = (x, y) => {
    for (let k = answer.boxes.length - 1; k >= 0; k--) {
      const b = answer.boxes[k];
      if (x >= b.x && x < b.x + Math.max(b.w, 1) && y >= b.y && y < b.y + b.h) return b;
    }
    return null;
  };
  img.addEventListener('mousemove', (e) => {
    const r = img.getBoundingClientRect();
    const sx = answer.width / Math.max(1, r.width), sy = answer.height / Math.max(1, r.height);
    const b = at((e.clientX - r.left) * sx, (e.clientY - r.top) * sy);
    if (!b) { tip.hidden = true; return; }
    tip.replaceChildren(...flameTipLines(answer.paths[b.path], b.merged, f).map((t, i) => el(i ? 'div' : 'b', { text: t })));
    tip.hidden = false;
    // Fixed to the window (the panel scrolls and would clip it), beside the pointer, above it near the bottom.
    const below = e.clientY + 16 + tip.offsetHeight <= window.innerHeight;
    tip.style.left = `${Math.max(4, Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4))}px`;
    tip.style.top = `${below ? e.clientY + 16 : Math.max(4, e.clientY - tip.offsetHeight - 10)}px`;
  });
  img.addEventListener('mouseleave', () => { tip.hidden = true; });
  const totals = el('p', { class: 'muted', text: `tree A ${f.fmt(answer.total_ns.a)}, tree B ${f.fmt(answer.total_ns.b)} (${f.signed(answer.total_ns.b - answer.total_ns.a)}); ${answer.paths.filter((p) => p.b_count === 0 && p.b_inclusive_ns === 0).length} of A's paths are not in B` });
  return { element: el('div', {}, totals, box), dispose: () => URL.revokeObjectURL(url) };
}

/** The hover's lines for a path: its name, then A, B and the change of inclusive and own time and count. */
export function flameTipLines(p, merged, f) {
  const lines = [p.path.join(' › ')];
  if (merged > 1) lines.push(`(${merged} paths under a pixel merged; the first shown)`);
  lines.push(`inclusive  A ${f.fmt(p.a_inclusive_ns)}  B ${f.fmt(p.b_inclusive_ns)}  Δ ${f.signed(p.delta_ns)}`);
  lines.push(`own time  A ${f.fmt(p.a_exclusive_ns)}  B ${f.fmt(p.b_exclusive_ns)}  Δ ${f.signed(p.delta_exclusive_ns)}`);
  lines.push(`count  A ${p.a_count}  B ${p.b_count}`);
  return lines;
}

// --- The communication matrix of B minus A -------------------------------------------------------------------

/** Largest matrix drawn as a grid; a larger one lists its most changed cells. */
const GRID_MAX = 48;

/** The matrix of B minus A (`comparison.comm_matrix`) by `unit` ('count' or 'bytes'), in diverging colours. */
export function matrixView(c, unit) {
  const m = c.comm_matrix;
  const d = m.delta;
  const values = d[unit];
  const bOf = m.b[unit];
  let most = 0;
  for (const row of values) for (const v of row) most = Math.max(most, Math.abs(v));
  const what = unit === 'count' ? 'messages' : 'bytes';
  const said = el('p', { class: 'muted', text: `B minus A, ${what} by process (A's processes mapped onto B's by ${c.options.ranks}); red: more in B, blue: fewer` +
    (d.a_unplaced_count > 0 ? `; ${d.a_unplaced_count} of A's messages map to no process of B` : '') });
  if (!values.length) return el('div', {}, said, el('p', { text: 'Neither run has messages between processes.' }));
  const colour = (v) => {
    if (!v || !most) return '';
    const t = Math.min(1, Math.abs(v) / most);
    const [r, g, b] = v > 0 ? [214, 39, 40] : [31, 111, 209];
    return `rgba(${r}, ${g}, ${b}, ${(0.15 + 0.75 * t).toFixed(3)})`;
  };
  const cellTitle = (i, j) => `${d.senders[i]} → ${d.receivers[j]}: A ${bOf[i][j] - values[i][j]}, B ${bOf[i][j]}, Δ ${signedNum(values[i][j])} ${what}`;
  if (d.senders.length > GRID_MAX || d.receivers.length > GRID_MAX) {
    const cells = [];
    values.forEach((row, i) => row.forEach((v, j) => { if (v) cells.push([i, j, v]); }));
    cells.sort((x, y) => Math.abs(y[2]) - Math.abs(x[2]));
    const rows = cells.slice(0, 40).map(([i, j, v]) => el('tr', { class: changeClass(v) },
      el('td', { text: d.senders[i] }), el('td', { text: d.receivers[j] }), el('td', { text: String(bOf[i][j] - v) }), el('td', { text: String(bOf[i][j]) }), el('td', { text: signedNum(v) })));
    return el('div', {}, said, el('p', { class: 'muted', text: `${d.senders.length} × ${d.receivers.length} processes: the ${rows.length} most changed of ${cells.length} changed cells` }),
      table('compare-matrix', ['sender', 'receiver', `A ${what}`, `B ${what}`, 'Δ'], rows));
  }
  const t = el('table', { id: 'compare-matrix', class: 'compare-matrix' });
  t.append(el('thead', {}, el('tr', {}, el('th', { text: 'from \\ to' }), ...d.receivers.map((n) => el('th', { text: n, title: n })))));
  const body = el('tbody');
  values.forEach((row, i) => {
    const tr = el('tr', {}, el('th', { text: d.senders[i], title: d.senders[i] }));
    row.forEach((v, j) => {
      const td = el('td', { text: v ? signedNum(v) : '', title: cellTitle(i, j), data: { delta: String(v) } });
      const bg = colour(v);
      if (bg) td.style.background = bg;
      tr.append(td);
    });
    body.append(tr);
  });
  t.append(body);
  return el('div', {}, said, t);
}

// --- Moments per location -----------------------------------------------------------------------------------

/**
 * The moments picture of B's worker (`compare_moments`: {svg, width, height, rows, t0_ns, t1_ns}, drawn by
 * scene::moments_diff in the moment view's glyphs) as an image with a hover naming the pair under the pointer
 * with A's, B's and the change of m0..m3 (`comparison.locations`). Returns the element and a `dispose`.
 */
export function momentsGlyphView(answer, c, f) {
  const url = URL.createObjectURL(new Blob([answer.svg], { type: 'image/svg+xml' }));
  const img = el('img', { id: 'compare-moments-img', src: url, width: String(answer.width), height: String(answer.height), alt: "Each location's moments in A (upper glyph) and B (lower), the change coloured" });
  const tip = el('div', { id: 'compare-moments-tip', class: 'compare-tip', hidden: '' });
  const box = el('div', { id: 'compare-moments-glyphs', class: 'compare-flame' }, img, tip);
  img.addEventListener('mousemove', (e) => {
    const r = img.getBoundingClientRect();
    const y = (e.clientY - r.top) * answer.height / Math.max(1, r.height);
    const row = answer.rows.find((w) => y >= w.y && y < w.y + w.h);
    if (!row) { tip.hidden = true; return; }
    tip.replaceChildren(...momentsTipLines(c.locations[row.first], row.count, c, f).map((t, i) => el(i ? 'div' : 'b', { text: t })));
    tip.hidden = false;
    const below = e.clientY + 16 + tip.offsetHeight <= window.innerHeight;
    tip.style.left = `${Math.max(4, Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4))}px`;
    tip.style.top = `${below ? e.clientY + 16 : Math.max(4, e.clientY - tip.offsetHeight - 10)}px`;
  });
  img.addEventListener('mouseleave', () => { tip.hidden = true; });
  return { element: box, dispose: () => URL.revokeObjectURL(url) };
}

/** A pair's name as the table and the picture write it. */
export function pairName(r) {
  const a = r.a && r.a.name, b = r.b && r.b.name;
  return a && b ? (a === b ? a : `${a} → ${b}`) : a ? `${a} (A only)` : `${b} (B only)`;
}

/** The hover's lines for pair `r` (the first of `count` merged into one pixel row): A, B and the change. */
export function momentsTipLines(r, count, c, f) {
  const origin = { a: c.windows ? c.windows.a.origin_ns : 0, b: c.windows ? c.windows.b.origin_ns : 0 };
  const side = (x, o) => (x ? `m0 ${f.fmt(x.m0_ns)}  m1 ${f.fmt(x.m1_ns - o)}  m2 ${f.fmt(x.m2_ns)}  m3 ${f.signed(x.m3_ns)}` : 'no partner');
  const d = r.delta;
  const lines = [pairName(r)];
  if (count > 1) lines.push(`(${count} pairs under a pixel row merged; the first shown)`);
  lines.push(`A  ${side(r.a, origin.a)}`, `B  ${side(r.b, origin.b)}`,
    `Δ  m0 ${f.signed(d.busy_ns)}  m1 ${d.m1_ns === null ? '–' : f.signed(d.m1_ns)}  m2 ${f.signed(d.m2_ns)}  m3 ${f.signed(d.m3_ns)}`);
  return lines;
}

/** The moments m0..m3 of each pair of locations (`comparison.locations`), A, B and the change. */
export function momentsView(c, f) {
  const name = pairName;
  const origin = { a: c.windows ? c.windows.a.origin_ns : 0, b: c.windows ? c.windows.b.origin_ns : 0 };
  const m = (side, key, o = 0) => (side ? f.fmt(side[key] - o) : '–');
  const signedF = (x) => (x === null || x === undefined ? '–' : f.signed(x));
  const rows = c.locations.map((r) => el('tr', { class: changeClass(r.delta.busy_ns), data: { location: name(r) } },
    el('td', { text: name(r) }),
    el('td', { text: m(r.a, 'm0_ns') }), el('td', { text: m(r.b, 'm0_ns') }), el('td', { text: signedF(r.delta.busy_ns) }),
    el('td', { text: m(r.a, 'm1_ns', origin.a) }), el('td', { text: m(r.b, 'm1_ns', origin.b) }), el('td', { text: signedF(r.delta.m1_ns) }),
    el('td', { text: m(r.a, 'm2_ns') }), el('td', { text: m(r.b, 'm2_ns') }), el('td', { text: signedF(r.delta.m2_ns) }),
    el('td', { text: r.a ? f.signed(r.a.m3_ns) : '–' }), el('td', { text: r.b ? f.signed(r.b.m3_ns) : '–' }), el('td', { text: signedF(r.delta.m3_ns) })));
  return el('div', {},
    el('p', { class: 'muted', text: 'Moments of each location\'s busy time (m0 busy, m1 mean from the run\'s origin, m2 spread, m3 skew; weft moments), A, B and B minus A; locations paired by ' + c.options.ranks }),
    table('compare-moments', ['location', 'A m0', 'B m0', 'Δ m0', 'A m1', 'B m1', 'Δ m1', 'A m2', 'B m2', 'Δ m2', 'A m3', 'B m3', 'Δ m3'], rows));
}

// --- Wait states and the critical path ----------------------------------------------------------------------

/** The wait-state patterns of both runs (`comparison.waits`) and the regions on the critical path. */
export function waitsView(c, f) {
  const w = c.waits;
  if (!w.a || !w.b) {
    return el('p', { id: 'compare-waits-none', text: 'Wait states not compared: a store indexed without --waits keeps none (index it with --waits, or open the trace).' });
  }
  const keys = Object.keys(w.a.patterns).filter((k) => w.a.patterns[k].total_ns || w.b.patterns[k].total_ns);
  keys.sort((x, y) => Math.abs(w.delta[y]) - Math.abs(w.delta[x]) || x.localeCompare(y));
  const rows = keys.map((k) => el('tr', { class: changeClass(w.delta[k]), data: { pattern: k } },
    el('td', { text: k }), el('td', { text: f.fmt(w.a.patterns[k].total_ns) }), el('td', { text: f.fmt(w.b.patterns[k].total_ns) }),
    el('td', { text: f.signed(w.delta[k]) }), el('td', { text: num(w.a.patterns[k].instances) }), el('td', { text: num(w.b.patterns[k].instances) })));
  const parts = [
    el('p', { id: 'compare-waits-said', text: `Waiting: A ${f.fmt(w.a.total_ns)}, B ${f.fmt(w.b.total_ns)} (${f.signed(w.delta_total_ns)}); patterns by |change|` }),
    keys.length ? table('compare-waits', ['pattern', 'A time', 'B time', 'Δ', 'A instances', 'B instances'], rows)
      : el('p', { class: 'muted', text: 'Neither run waits in any pattern.' }),
  ];
  if (w.critical_path) {
    const grew = w.critical_path.filter((r) => r.delta_ns !== 0);
    const prow = grew.slice(0, 30).map((r) => el('tr', { class: changeClass(r.delta_ns), data: { region: r.name } },
      el('td', { text: r.name }), el('td', { text: f.fmt(r.a_ns) }), el('td', { text: f.fmt(r.b_ns) }), el('td', { text: f.signed(r.delta_ns) })));
    parts.push(el('h4', { text: 'Critical path by region: grew first' }),
      grew.length ? table('compare-path', ['region', 'A on path', 'B on path', 'Δ'], prow) : el('p', { class: 'muted', text: 'No region\'s time on the critical path changed.' }));
  } else {
    parts.push(el('p', { class: 'muted', id: 'compare-path-none', text: 'The critical paths are compared over whole traces only (not over a window or an alignment, nor a store\'s kept wait states).' }));
  }
  return el('div', {}, ...parts);
}
