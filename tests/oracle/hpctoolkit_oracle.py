#!/usr/bin/env python3
"""An independent reader of HPCToolkit databases (meta.db, profile.db, trace.db v4) for tests/hpctoolkit.rs.

Only the standard library (struct): it follows the layouts of the FORMATS.md HPCToolkit ships inside each
database, without sharing code or structure with weft's reader.

  hpctoolkit_oracle.py counts DIR   one JSON object of counts for the database in DIR:
      profiles      non-summary profiles in profile.db (application threads)
      lines         trace lines in trace.db
      samples       trace elements over all lines
      idle_samples  elements whose ctxId is 0 (the thread was not running)
      functions     entries in meta.db's Functions section
      contexts      contexts in meta.db's context tree (entry points included)
      procedures    distinct frame names over all sampled contexts' frame paths
      frames        per line (by profIndex order of the lines), the number of frame intervals: a frame is a
                    the entry point (its pretty name, "main thread") or a function context on the path from
                    the root to the sampled context; at each sample, the frames that differ from the previous
                    sample's path (by context id, from the first difference down) start, the others go on;
                    an idle sample (ctxId 0) ends all
      names         per line, the profile's identifier tuple as "KIND logicalId" words
  hpctoolkit_oracle.py time DIR     parse DIR as `counts` does, print the seconds it took and the samples
"""
import json
import struct
import sys
import time


def u8(b, o):
    return b[o]


def u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def cstr(b, o):
    end = b.index(b"\0", o)
    return b[o:end].decode("utf-8", "replace")


def header(b, fmt, nsec):
    assert b[:10] == b"HPCTOOLKIT", "magic"
    assert b[10:14] == fmt, "format %r" % b[10:14]
    assert b[14] == 4, "major version"
    return [(u64(b, 0x10 + 16 * i), u64(b, 0x18 + 16 * i)) for i in range(nsec)]


def read_meta(b):
    secs = header(b, b"meta", 8)
    _, p_names = secs[1]
    pp = u64(b, p_names)
    n_kinds = u8(b, p_names + 8)
    kinds = [cstr(b, u64(b, pp + 8 * k)) for k in range(n_kinds)]

    _, p_fun = secs[7]
    p_funs, n_funs, sz_fun = u64(b, p_fun), u32(b, p_fun + 8), u16(b, p_fun + 12)
    funcs = {}
    for i in range(n_funs):
        at = p_funs + i * sz_fun
        p_name, p_mod, offset = u64(b, at), u64(b, at + 8), u64(b, at + 16)
        if p_name:
            name = cstr(b, p_name)
        else:
            mod = cstr(b, u64(b, p_mod + 8)).rsplit("/", 1)[-1] if p_mod else "?"
            name = "<unknown function> %s+0x%x" % (mod, offset)
        funcs[at] = name

    # Context tree: ctxId -> (parent ctxId, frame name or None, entry-point name)
    _, p_ctx = secs[3]
    p_entries, n_entries, sz_entry = u64(b, p_ctx), u16(b, p_ctx + 8), u8(b, p_ctx + 10)
    ctx = {}
    stack = []
    for e in range(n_entries):
        at = p_entries + e * sz_entry
        sz_children, p_children, ctx_id = u64(b, at), u64(b, at + 8), u32(b, at + 0x10)
        ep_name = cstr(b, u64(b, at + 0x18))
        ctx[ctx_id] = (None, None, ep_name)
        stack.append((p_children, sz_children, ctx_id, ep_name))
    while stack:
        p, size, parent, ep_name = stack.pop()
        at = p
        while at < p + size:
            sz_children, p_children, ctx_id = u64(b, at), u64(b, at + 8), u32(b, at + 0x10)
            flags, lex, n_flex = u8(b, at + 0x14), u8(b, at + 0x16), u8(b, at + 0x17)
            name = None
            if lex == 0:
                if flags & 1:
                    name = funcs[u64(b, at + 0x20)]
                else:
                    name = "<unknown function>"
            ctx[ctx_id] = (parent, name, ep_name)
            stack.append((p_children, sz_children, ctx_id, ep_name))
            at += 0x20 + 8 * n_flex
    return kinds, funcs, ctx


def frame_path(ctx, cid, memo):
    """[(ctxId, name)] from the root down to cid: the entry point, then the function contexts."""
    if cid in memo:
        return memo[cid]
    chain = []
    c = cid
    ep = None
    while c is not None:
        parent, name, ep_name = ctx[c]
        if name is not None:
            chain.append((c, name))
        if parent is None:
            ep = (c, ep_name)
        c = parent
    chain.append(ep)
    chain.reverse()
    memo[cid] = chain
    return chain


def read_profiles(b, kinds):
    secs = header(b, b"prof", 2)
    _, p_info = secs[0]
    p_profs, n_profs, sz_prof = u64(b, p_info), u32(b, p_info + 8), u8(b, p_info + 12)
    profs = []
    for i in range(n_profs):
        at = p_profs + i * sz_prof
        p_tuple, flags = u64(b, at + 0x20), u32(b, at + 0x28)
        words = []
        if p_tuple:
            n_ids = u16(b, p_tuple)
            for k in range(n_ids):
                idat = p_tuple + 8 + 16 * k
                kind, logical = u8(b, idat), u32(b, idat + 4)
                words.append("%s %d" % (kinds[kind] if kind < len(kinds) else "KIND%d" % kind, logical))
        profs.append((bool(flags & 1), " ".join(words)))
    return profs


def read_traces(b):
    secs = header(b, b"trce", 1)
    _, p_sec = secs[0]
    p_traces, n_traces, sz_trace = u64(b, p_sec), u32(b, p_sec + 8), u8(b, p_sec + 12)
    lines = []
    for i in range(n_traces):
        at = p_traces + i * sz_trace
        prof, p_start, p_end = u32(b, at), u64(b, at + 8), u64(b, at + 16)
        elems = [(u64(b, o), u32(b, o + 8)) for o in range(p_start, p_end, 12)]
        lines.append((prof, elems))
    lines.sort(key=lambda l: l[0])
    return lines


def counts(d):
    meta = open(d + "/meta.db", "rb").read()
    kinds, funcs, ctx = read_meta(meta)
    profs = read_profiles(open(d + "/profile.db", "rb").read(), kinds)
    lines = read_traces(open(d + "/trace.db", "rb").read())
    memo = {}
    procedures = set()
    frames, names = [], []
    samples = idle = 0
    for prof, elems in lines:
        names.append(profs[prof][1])
        samples += len(elems)
        prev = []
        n_frames = 0
        for _, cid in elems:
            if cid == 0:
                idle += 1
                prev = []
                continue
            path = frame_path(ctx, cid, memo)
            for _, name in path:
                procedures.add(name)
            same = 0
            while same < min(len(prev), len(path)) and prev[same][0] == path[same][0]:
                same += 1
            n_frames += len(path) - same
            prev = path
        frames.append(n_frames)
    return {
        "profiles": sum(1 for s, _ in profs if not s),
        "lines": len(lines),
        "samples": samples,
        "idle_samples": idle,
        "functions": len(funcs),
        "contexts": len(ctx),
        "procedures": len(procedures),
        "frames": frames,
        "names": names,
    }


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("counts", "time"):
        sys.exit(__doc__)
    if sys.argv[1] == "counts":
        print(json.dumps(counts(sys.argv[2])))
    else:
        t = time.perf_counter()
        c = counts(sys.argv[2])
        print(json.dumps({"seconds": time.perf_counter() - t, "samples": c["samples"]}))


if __name__ == "__main__":
    main()
