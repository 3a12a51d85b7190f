#!/usr/bin/env python3
"""Print weft's crate and module dependency graph, and its import circles.

    python3 scripts/deps.py                 # crates, then the top-level modules of each crate
    python3 scripts/deps.py --module store  # the files inside one module (any path under src/ or crates/*/src/)
    python3 scripts/deps.py --sizes         # lines per module and the largest functions

An edge A -> B means a file of A names `crate::B` (or `super::B`, or another workspace crate). Circles are the
strongly connected components of more than one node. Reads the sources only; no build is needed.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def crates():
    """(crate name as used in code, its src folder) for the root crate and every member in crates/."""
    out = [("weft", os.path.join(ROOT, "src"))]
    base = os.path.join(ROOT, "crates")
    if os.path.isdir(base):
        for name in sorted(os.listdir(base)):
            src = os.path.join(base, name, "src")
            toml = os.path.join(base, name, "Cargo.toml")
            if os.path.isdir(src) and os.path.exists(toml):
                with open(toml) as f:
                    m = re.search(r'^name\s*=\s*"([^"]+)"', f.read(), re.M)
                out.append(((m.group(1) if m else name).replace("-", "_"), src))
    return out


def rust_files(src):
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.join(dirpath, f)


def module_path(src, path):
    """`crates/store/src/read.rs` -> ['store', 'read']; `crates/store/src/lib.rs` -> ['store']; lib.rs/main.rs -> []."""
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    if rel and rel[0] == "bin":
        return ["bin"] + rel[1:2]
    return rel


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


USE_CRATE = re.compile(r"\bcrate((?:::\w+)+)")
USE_SUPER = re.compile(r"\b((?:super::)+)(\w+)")
# `use weft_store::{...}`, `weft_store::x` or `pub use weft_store as store;` in another crate
USE_EXTERN = re.compile(r"\b(weft\w*)(?=::|\s+as\b)")
# `#[cfg(test)] mod x;`: a file of tests (x.rs or x/), which may look anywhere, like `mod tests { ... }`
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def test_files(src):
    """The files that are test modules declared `#[cfg(test)] mod x;`, and everything below them."""
    out = set()
    for path in rust_files(src):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        here = os.path.dirname(path)
        if os.path.basename(path) not in ("mod.rs", "lib.rs", "main.rs"):
            here = path[:-3]
        for m in TEST_MOD.finditer(text):
            base = os.path.join(here, m.group(1))
            if os.path.isfile(base + ".rs"):
                out.add(base + ".rs")
            if os.path.isdir(base):
                out.update(rust_files(base))
    return out
USE_GROUP = re.compile(r"\bcrate::\{([^}]*)\}")


def edges_for(crate_names, src, prefix, depth, cfg_test_too=False):
    """Edges between module paths cut at `depth` components below `prefix`, plus edges to other crates."""
    edges = defaultdict(set)
    nodes = set()
    extern = defaultdict(set)
    tests = set() if cfg_test_too else test_files(src)
    for path in rust_files(src):
        mod = module_path(src, path)
        if mod[: len(prefix)] != prefix or path in tests:
            continue
        with open(path, encoding="utf-8") as f:
            text = strip_comments(f.read())
        if not cfg_test_too:
            # drop `#[cfg(test)] mod tests { ... }` at the end of a file: tests may look anywhere
            i = text.find("#[cfg(test)]\nmod tests")
            if i >= 0:
                text = text[:i]
        here = tuple(mod[len(prefix) : len(prefix) + depth]) or ("<root>",)
        nodes.add(here)
        targets = []
        for m in USE_CRATE.finditer(text):
            targets.append(m.group(1).split("::")[1:])
        for m in USE_GROUP.finditer(text):
            for part in m.group(1).split(","):
                part = part.strip().split("::")
                if part and part[0] and part[0] != "self":
                    targets.append(part)
        is_mod_file = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
        for m in USE_SUPER.finditer(text):
            ups = m.group(1).count("super::")
            base = mod[: len(mod) - ups + (1 if is_mod_file else 0)]
            if is_mod_file:
                base = mod[: len(mod) - ups]
            targets.append(base + [m.group(2)])
        for t in targets:
            if t[: len(prefix)] != prefix:
                if prefix:
                    continue
            there = tuple(t[len(prefix) : len(prefix) + depth])
            if not there or there == here:
                continue
            # only real module names (a file or folder exists)
            if not os.path.exists(os.path.join(src, *prefix, *there) + ".rs") and not os.path.isdir(
                os.path.join(src, *prefix, *there)
            ):
                continue
            edges[here].add(there)
        for m in USE_EXTERN.finditer(text):
            if m.group(1) in crate_names:
                extern[here].add(m.group(1))
    return nodes, edges, extern


def sccs(nodes, edges):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in nodes:
                    continue
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def show(name, nodes, edges, extern):
    fmt = lambda n: "::".join(n)
    print(f"## {name}")
    for n in sorted(nodes):
        deps = sorted(fmt(d) for d in edges.get(n, ()) if d in nodes)
        ext = sorted(extern.get(n, ()))
        line = ", ".join(deps + [f"[{e}]" for e in ext])
        print(f"  {fmt(n)} -> {line or '(nothing)'}")
    circles = sccs(nodes, edges)
    if circles:
        for c in circles:
            print(f"  CIRCLE: {' <-> '.join(fmt(n) for n in c)}")
    else:
        print("  no import circle")
    print()
    return len(circles)


FN = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", re.M)


def function_lengths(path):
    """(name, lines) of each fn in a file, measured from its `fn` line to the line that closes its body."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            s = re.sub(r'"(?:\\.|[^"\\])*"', '""', lines[j])
            s = re.sub(r"'(?:\\.|[^'\\])'", "''", s)
            s = s.split("//")[0]
            if not opened and ";" in s and "{" not in s:
                break  # a declaration without a body
            depth += s.count("{") - s.count("}")
            if "{" in s:
                opened = True
            if opened and depth <= 0:
                out.append((m.group(2), j - i + 1))
                break
    return out


def sizes():
    rows = []
    longest = []
    for crate, src in crates():
        per = defaultdict(int)
        for path in rust_files(src):
            mod = module_path(src, path)
            with open(path, encoding="utf-8") as f:
                n = f.read().count("\n")
            per[(crate,) + tuple(mod[:1])] += n
            for name, length in function_lengths(path):
                longest.append((length, os.path.relpath(path, ROOT), name))
        rows.extend(sorted(per.items()))
    print("## lines per module")
    total = 0
    for key, n in rows:
        total += n
        print(f"  {n:7d}  {'::'.join(key)}")
    print(f"  {total:7d}  total")
    print("\n## longest functions")
    for length, path, name in sorted(longest, reverse=True)[:15]:
        print(f"  {length:5d}  {path}  {name}")
    over = sum(1 for length, _, _ in longest if length > 150)
    print(f"  functions over 150 lines: {over}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", help="show the files inside this module, e.g. store (of the crate that has it)")
    ap.add_argument("--sizes", action="store_true", help="lines per module and the largest functions")
    args = ap.parse_args()
    all_crates = crates()
    names = {c for c, _ in all_crates}
    if args.sizes:
        sizes()
        return 0
    circles = 0
    if args.module:
        prefix = args.module.split("::")
        for crate, src in all_crates:
            if os.path.isdir(os.path.join(src, *prefix)):
                nodes, edges, extern = edges_for(names, src, prefix, 1)
                circles += show(f"{crate}::{args.module}", nodes, edges, extern)
        return 1 if circles else 0
    print("## crates")
    crate_edges = {}
    for crate, src in all_crates:
        _, _, extern = edges_for(names, src, [], 1)
        deps = set().union(*extern.values()) if extern else set()
        crate_edges[crate] = deps - {crate}
        print(f"  {crate} -> {', '.join(sorted(crate_edges[crate])) or '(nothing)'}")
    print()
    for crate, src in all_crates:
        nodes, edges, extern = edges_for(names, src, [], 1)
        circles += show(crate, nodes, edges, extern)
    return 0


if __name__ == "__main__":
    sys.exit(main())
