// The reader worker's answers for the histogram and clusters panels (issue #55; www/worker.js passes these
// questions here): a region's duration histogram, the instances of a brushed run of bins (their interval set
// moves as a transferable buffer, for the timeline's marks), the slowest 1 % of every region, and the
// clusters of the locations. The numbers are computed by the worker's wasm (crates/worker/src/histogram.rs),
// the JSON of `weft histogram --json` and `weft clusters --json`; nothing is computed here.

import { region_histogram, histogram_instances, histogram_outliers, clusters_of } from './pkg-worker/weft.js';

/** The questions answered here. */
export const HISTOGRAM_QUESTIONS = ['histogram', 'histogram-instances', 'outliers', 'clusters'];

const ends = (w) => (w ? [w[0], w[1]] : [NaN, NaN]);
const locationsOf = (msg) => (msg.locations ? Uint32Array.from(msg.locations) : undefined);

/** `{what, ...}` answered as the fields of the 'answer' message and the buffers to transfer. */
export function histogramAnswer(msg) {
  const [t0, t1] = ends(msg.window);
  if (msg.what === 'histogram') {
    return { fields: { result: JSON.parse(region_histogram(t0, t1, locationsOf(msg), String(msg.region), msg.bins || 20)) }, transfer: [] };
  }
  if (msg.what === 'histogram-instances') {
    const out = histogram_instances(t0, t1, locationsOf(msg), String(msg.region), msg.lo_ns, msg.hi_ns, msg.limit || 200);
    const model = out.model.buffer.byteLength === out.model.byteLength ? out.model.buffer : out.model.slice().buffer;
    return { fields: { model, result: JSON.parse(out.summary) }, transfer: [model] };
  }
  if (msg.what === 'outliers') {
    return { fields: { result: JSON.parse(histogram_outliers(t0, t1, locationsOf(msg), msg.limit || 5)) }, transfer: [] };
  }
  return { fields: { result: JSON.parse(clusters_of(t0, t1, msg.k || 0)) }, transfer: [] };
}
