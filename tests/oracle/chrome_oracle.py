"""An independent reader of Chrome Trace Event Format JSON for tests/chrome_corpus.rs.

Only the standard library (json, gzip): it parses each file with Python's json module and applies the
Trace Event Format's rules directly, without sharing code or structure with weft's streaming reader.
For each file given on the command line it prints one JSON line with counts per record kind:

  thread_slices    X events (valid ts; dur, else tdur, else zero) + B events (each B is one slice)
  async_slices     b and S events (valid ts and an id)
  instants         i, I, R, n events
  counter_samples  numeric args of C events
  flows            flow links (s->t, t->t, s->f, ...; v2 flow_out->flow_in) after matching and binding
  flow_ends        flow ends read (v1 s/t/f with an id, v2 ends on X/B slices)
  flow_dropped     flow ends in no link: bound to no slice, a start never continued, a step or end
                   with no open chain
  processes        distinct pids that carry a slice, instant, counter, flow, async or metadata event
  threads          distinct (pid, tid) that carry a slice, instant, v1 flow or thread metadata
  unknown          events with a phase weft does not read (P samples, O objects, ...)

Flow rules (Trace Event Format, "Flow events"; the same as Perfetto's JSON importer):
  key: v1 by (cat, name, id), the id being `id`, `id2.global`, or `id2.local` scoped to the pid;
       v2 by `bind_id` (else `id`), on X/B events with flow_in/flow_out.
  order: within a key by timestamp, start before step before end at one timestamp, then file order.
  binding: s, t, f with bp "e" and v2 ends bind to the enclosing slice on their thread (innermost slice
       with start <= ts <= end); an f without bp "e" binds to the next slice starting at or after ts. An
       end that binds to nothing is dropped.
  chain: a start opens, a step links from the open end and stays open, an end links and closes; a start
       while a chain is open and not continued is a duplicate and is dropped.

Truncated files (the format allows a missing `]`) are read element by element up to the break.
Usage: chrome_oracle.py FILE...
"""

import gzip
import json
import sys

KNOWN = set("X B E i I R n M C s t f b e S F T p".split())


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
        return doc["traceEvents"] if isinstance(doc, dict) else doc
    except (ValueError, KeyError):
        return truncated(text)


def truncated(text):
    """Elements of the trace event array that parse completely, up to the first break."""
    start = text.lstrip()
    if start.startswith("{"):
        k = text.find('"traceEvents"')
        i = text.find("[", k) + 1 if k >= 0 else -1
    else:
        i = text.find("[") + 1
    if i <= 0:
        return []
    dec = json.JSONDecoder()
    events = []
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return events
        try:
            v, i = dec.raw_decode(text, i)
        except ValueError:
            return events
        events.append(v)


def number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and "\\" not in v:
        try:
            x = float(v.strip())
        except ValueError:
            return None
        return x if x == x and abs(x) != float("inf") else None
    return None


def native(v):
    """pid/tid: integers as themselves (numbers or digit strings), anything else as its text."""
    if isinstance(v, bool) or v is None:
        return ("o", json.dumps(v))
    if isinstance(v, int):
        return ("i", v)
    if isinstance(v, float) and v.is_integer():
        return ("i", int(v))
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return ("i", int(s))
    return ("s", json.dumps(v))


def id_text(v):
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def flow_id(e):
    if "id" in e:
        return ("g", id_text(e["id"]))
    id2 = e.get("id2")
    if isinstance(id2, dict):
        if "global" in id2:
            return ("g", id_text(id2["global"]))
        if "local" in id2:
            return ("l", native(e.get("pid")), id_text(id2["local"]))
    if id2 is not None:
        return ("g", id_text(id2))
    return None


def match_be(events, last_ts):
    """B/E on one thread (sorted by ts, stable) to slices [start, end]; unclosed ones end at last_ts."""
    events.sort(key=lambda x: x[0])
    stack, out = [], []
    for ts, begin, name in events:
        if begin:
            stack.append((ts, name))
            continue
        if not stack:
            continue
        if not name:
            k = len(stack) - 1
        else:
            k = next((j for j in range(len(stack) - 1, -1, -1) if stack[j][1] == name), None)
            if k is None:
                continue
        while len(stack) > k:
            s, _ = stack.pop()
            out.append((s, max(ts, s)))
    for s, _ in stack:
        out.append((s, max(last_ts, s)))
    return out


def analyse(events):
    c = dict(thread_slices=0, async_slices=0, instants=0, counter_samples=0, flows=0, flow_ends=0, unknown=0)
    processes, threads = set(), set()
    slices = {}  # thread -> [(start, end)]
    be = {}  # thread -> [(ts, begin, name)]
    last = {}  # thread -> latest time of any event on it
    ends = []  # (key, ts, role, file index, thread, bind)

    def touch(th, t):
        last[th] = max(last.get(th, t), t)

    for idx, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or ph == "":
            continue
        if ph not in KNOWN:
            c["unknown"] += 1
            continue
        pid = native(e.get("pid"))
        th = (pid, native(e.get("tid")))
        if ph == "M":
            name = e.get("name")
            if name in ("process_name", "process_sort_index"):
                processes.add(pid)
            elif name in ("thread_name", "thread_sort_index"):
                processes.add(pid)
                threads.add(th)
            continue
        if ph in "Tp":
            continue
        ts = number(e.get("ts"))
        if ts is None or ts < 0:
            continue
        if ph == "X":
            d = e.get("dur", e.get("tdur"))
            dur = 0.0 if d is None else number(d)
            if dur is None or dur < 0:
                continue
            c["thread_slices"] += 1
            processes.add(pid)
            threads.add(th)
            slices.setdefault(th, []).append((ts, ts + dur))
            touch(th, ts + dur)
        elif ph in "BE":
            processes.add(pid)
            threads.add(th)
            touch(th, ts)
            if ph == "B":
                c["thread_slices"] += 1
            be.setdefault(th, []).append((ts, ph == "B", e.get("name") or ""))
        elif ph in "iIRn":
            c["instants"] += 1
            processes.add(pid)
            threads.add(th)
            touch(th, ts)
        elif ph == "C":
            processes.add(pid)
            args = e.get("args")
            if isinstance(args, dict):
                c["counter_samples"] += sum(1 for v in args.values() if number(v) is not None)
        elif ph in "stf":
            fid = flow_id(e)
            if fid is None:
                continue
            processes.add(pid)
            threads.add(th)
            touch(th, ts)
            role = "stf".index(ph)
            key = ("v1", e.get("cat") or "", e.get("name") or "", fid)
            ends.append((key, ts, role, idx, th, "next" if ph == "f" and e.get("bp") != "e" else "enclosing"))
        else:  # b e S F
            if "id" not in e and "id2" not in e:
                continue
            processes.add(pid)
            if ph in "bS":
                c["async_slices"] += 1
        if ph in "XB" and (e.get("flow_in") is True or e.get("flow_out") is True):
            bid = e.get("bind_id", e.get("id"))
            if bid is not None:
                fin, fout = e.get("flow_in") is True, e.get("flow_out") is True
                role = 1 if fin and fout else (2 if fin else 0)
                ends.append((("v2", id_text(bid)), ts, role, idx, th, "enclosing"))

    for th, evs in be.items():
        slices.setdefault(th, []).extend(match_be(evs, last.get(th, 0.0)))
    c["flow_ends"] = len(ends)
    c["flows"], c["flow_dropped"] = match_flows(ends, slices)
    c["processes"] = len(processes)
    c["threads"] = len(threads)
    return c


def bind(th, ts, how, slices):
    s = slices.get(th, [])
    if how == "next":
        after = [a for a, _ in s if a >= ts]
        return min(after) if after else None
    return ts if any(a <= ts <= b for a, b in s) else None


def match_flows(ends, slices):
    """(links, ends dropped): unbound, starts never continued, steps and ends with no open chain."""
    groups = {}
    for end in ends:
        groups.setdefault(end[0], []).append(end)
    links = dropped = 0
    for g in groups.values():
        g.sort(key=lambda x: (x[1], x[2], x[3]))
        open_ = stepped = False
        for _, ts, role, _, th, how in g:
            if bind(th, ts, how, slices) is None:
                dropped += 1
            elif role == 0:
                if open_ and not stepped:
                    dropped += 1  # a duplicate start: the open one is kept
                else:
                    open_, stepped = True, False
            elif open_:
                links += 1
                open_, stepped = role == 1, True
            else:
                dropped += 1
        dropped += open_ and not stepped
    return links, dropped


def main():
    for path in sys.argv[1:]:
        try:
            out = analyse(load(path))
        except Exception as exc:  # an unreadable file is reported, not fatal to the others
            out = {"error": repr(exc)}
        out["file"] = path
        print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
