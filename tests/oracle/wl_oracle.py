"""Weisfeiler-Lehman graph hashes by networkx, the oracle for weft's group similarity (tests/aggregate.rs).

Reads a JSON list of graphs {"labels": [str], "edges": [[source, target]]} on stdin and prints a JSON list of
networkx.weisfeiler_lehman_graph_hash values (directed, node attribute "label", 3 iterations), one per graph.
"""

import json
import sys
import warnings

import networkx as nx


def main():
    # networkx warns that directed hashes changed in 3.5 (in- and out-edges apart); weft follows 3.5.
    warnings.simplefilter("ignore")
    graphs = json.load(sys.stdin)
    out = []
    for g in graphs:
        d = nx.DiGraph()
        for i, label in enumerate(g["labels"]):
            d.add_node(i, label=label)
        d.add_edges_from((s, t) for s, t in g["edges"])
        out.append(nx.weisfeiler_lehman_graph_hash(d, node_attr="label", iterations=3))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
