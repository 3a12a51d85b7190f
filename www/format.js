// Numbers for reading, written one way on the whole page: by the Viewer, so the panels say what the views'
// hovers and the CLI say. Counts, cycles, nanoseconds and bytes by scene::number (Viewer.format_number: four
// significant digits, thousands separated, KiB/MiB/GiB in steps of 1,024); the timeline's durations by
// scene::timeline::format_duration (Viewer.format_duration), as its hovers write them. No rule of its own here.

/** `v` in `unit` ('' a count, 'cycles', 'ns', 'bytes'); 'NA' for a value that is not a number (unmeasured). */
export function formatNumber(viewer, v, unit = '') {
  if (typeof v !== 'number') return 'NA';
  return viewer.format_number(v, unit);
}

/** `n` bytes: "512 B", "1.500 KiB", "12.35 MiB". */
export const formatBytes = (viewer, n) => formatNumber(viewer, n, 'bytes');

/** A duration in nanoseconds as the timeline's hovers write it: "1.235 ms", "512 ns". */
export const formatDuration = (viewer, ns) => viewer.format_duration(ns);
