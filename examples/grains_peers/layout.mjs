// Lays out grain graphs exported by `cargo run --release --example grains_bench -- --export DIR` with
// dagre and elkjs (layered), top-down, node sizes as weft's layout gives them. Prints wall time per run.
// Usage: node layout.mjs DIR/fib45.json [dagre|elk|both] [runs]
import { readFileSync } from "node:fs";
import dagre from "@dagrejs/dagre";
import ELK from "elkjs/lib/elk.bundled.js";

const [file, which = "both", runsArg = "1"] = process.argv.slice(2);
const runs = Number(runsArg);
const graph = JSON.parse(readFileSync(file, "utf8"));
console.log(`${file}: ${graph.nodes.length} nodes, ${graph.edges.length} edges`);

function runDagre() {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 4, ranksep: 6 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.id, { width: n.w, height: n.h });
  for (const [s, t] of graph.edges) g.setEdge(s, t);
  dagre.layout(g);
  return g.node(graph.nodes[graph.nodes.length - 1].id).y;
}

async function runElk() {
  const elk = new ELK();
  const res = await elk.layout({
    id: "root",
    layoutOptions: { "elk.algorithm": "layered", "elk.direction": "DOWN", "elk.spacing.nodeNode": "4" },
    children: graph.nodes.map((n) => ({ id: n.id, width: n.w, height: n.h })),
    edges: graph.edges.map(([s, t], i) => ({ id: `e${i}`, sources: [s], targets: [t] })),
  });
  return res.children[res.children.length - 1].y;
}

for (const [name, fn] of [["dagre", runDagre], ["elkjs", runElk]]) {
  if (which !== "both" && !name.startsWith(which)) continue;
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`${name}: best of ${runs}: ${(best / 1000).toFixed(2)} s`);
}
