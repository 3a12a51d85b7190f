#!/usr/bin/env python3
"""Perfetto protobuf traces written with Perfetto's own protos (the `perfetto` package from PyPI, its
TraceProtoBuilder), each beside what it holds by construction, for tests/perfetto_oracle.rs.

    perfetto_traces.py OUT_DIR

writes OUT_DIR/NAME.pftrace and OUT_DIR/NAME.json for each scenario. The JSON says, from how the trace was
built (not from reading it back):
  slices:   [process, track, name, category, start_ns, dur_ns, depth], sorted
  instants: [process, track, name, ts_ns], sorted
  counters: {series name: [[ts_ns, value], ...]}
  flows:    [[from track, from ts, to track, to ts]], sorted (a flow's ends at the starts of its slices)
  args:     [[slice name, start_ns, key, value]], sorted (every slice's debug annotations, flattened)
  rows:     {"process/track name": rows}: async rows the tracks of one name take (first fit in time)
  lost:     packets skipped for lost incremental state
  packets_not_read: {kind: count}
Scenarios: basic (inline names, nesting, instants, counters with units, flows, args), interned (interned names,
categories and annotation names on two sequences, cleared and lost incremental state), clock (an incremental
sequence clock with packet defaults), async (custom tracks sharing rows), and random_N (generated traces of
several sizes, seeded).
"""

import json
import os
import random
import sys

from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import CounterDescriptor, TracePacket, TrackEvent
from perfetto.trace_builder.proto_builder import TraceProtoBuilder

BEGIN, END, INSTANT, COUNTER = (TrackEvent.TYPE_SLICE_BEGIN, TrackEvent.TYPE_SLICE_END, TrackEvent.TYPE_INSTANT,
                                TrackEvent.TYPE_COUNTER)
CLEARED = TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
NEEDS = TracePacket.SEQ_NEEDS_INCREMENTAL_STATE


class Scenario:
    """A trace being built and what it holds."""

    def __init__(self):
        self.b = TraceProtoBuilder()
        self.slices, self.instants, self.flows, self.args = [], [], [], []
        self.counters = {}
        self.rows = {}
        self.lost = 0
        self.not_read = {}
        self.track_name = {}  # uuid -> (process name, track name)
        self.stack = {}  # uuid -> [(name, cat, start, args, flow_ids)]
        self.flow_points = []  # (flow id, ts, order, track, terminating)

    def packet(self, seq=1, flags=None):
        p = self.b.add_packet()
        p.trusted_packet_sequence_id = seq
        if flags is not None:
            p.sequence_flags = flags
        return p

    def process(self, uuid, pid, name):
        p = self.packet()
        p.track_descriptor.uuid = uuid
        p.track_descriptor.process.pid = pid
        p.track_descriptor.process.process_name = name
        self.track_name[uuid] = (name, name)

    def thread(self, uuid, parent, pid, tid, name):
        p = self.packet()
        d = p.track_descriptor
        d.uuid, d.parent_uuid = uuid, parent
        d.thread.pid, d.thread.tid, d.thread.thread_name = pid, tid, name
        self.track_name[uuid] = (self.track_name[parent][0], name)

    def custom(self, uuid, parent, name):
        p = self.packet()
        d = p.track_descriptor
        d.uuid, d.parent_uuid, d.name = uuid, parent, name
        self.track_name[uuid] = (self.track_name[parent][0], name)

    def counter(self, uuid, parent, name, unit=None, unit_name=None, multiplier=None, incremental=False):
        p = self.packet()
        d = p.track_descriptor
        d.uuid, d.parent_uuid, d.name = uuid, parent, name
        if unit is not None:
            d.counter.unit = unit
        if unit_name is not None:
            d.counter.unit_name = unit_name
        if multiplier is not None:
            d.counter.unit_multiplier = multiplier
        if incremental:
            d.counter.is_incremental = True
        suffix = unit_name or {CounterDescriptor.UNIT_SIZE_BYTES: "bytes", CounterDescriptor.UNIT_TIME_NS: "ns"}.get(unit)
        series = f"{name} ({suffix})" if suffix else name
        self.track_name[uuid] = (self.track_name[parent][0], series)
        self.counters.setdefault(series, [])
        return (series, multiplier or 1, incremental)

    # Events. `named` gives the name inline, or (iid, text) interned; `cat` likewise.
    def _event(self, seq, ts, uuid, ty, flags=None, name=None, cat=None, annotations=(), flows=(), terminating=()):
        p = self.packet(seq, flags)
        p.timestamp = ts
        e = p.track_event
        e.type = ty
        e.track_uuid = uuid
        text = None
        if isinstance(name, tuple):
            e.name_iid, text = name
        elif name is not None:
            e.name, text = name, name
        cats = ""
        if isinstance(cat, tuple):
            e.category_iids.append(cat[0])
            cats = cat[1]
        elif cat is not None:
            e.categories.append(cat)
            cats = cat
        pairs = []
        for key, value in annotations:
            a = e.debug_annotations.add()
            if isinstance(key, tuple):
                a.name_iid = key[0]
                key = key[1]
            else:
                a.name = key
            if isinstance(value, bool):
                a.bool_value, shown = value, "true" if value else "false"
            elif isinstance(value, int):
                a.int_value, shown = value, str(value)
            elif isinstance(value, float):
                a.double_value, shown = value, repr(value)
            else:
                a.string_value, shown = value, value
            pairs.append((key, shown))
        for f in flows:
            e.flow_ids.append(f)
        for f in terminating:
            e.terminating_flow_ids.append(f)
        return p, text, cats, pairs

    def _flow(self, uuid, ts, flows, terminating):
        track = self.track_name[uuid][1]
        for f in flows:
            self.flow_points.append((f, ts, len(self.flow_points), track, False))
        for f in terminating:
            self.flow_points.append((f, ts, len(self.flow_points), track, True))

    def chain_flows(self):
        """Perfetto's trace processor sorts events by time: each id's occurrences chain in time order (file
        order breaking ties); a flow_ids occurrence continues the flow, a terminating one ends it."""
        open_at = {}
        for f, ts, _, track, terminating in sorted(self.flow_points):
            if f in open_at:
                self.flows.append([*open_at.pop(f), track, ts])
            if not terminating:
                open_at[f] = (track, ts)

    def begin(self, seq, ts, uuid, name, cat=None, flags=None, annotations=(), flows=(), terminating=()):
        _, text, cats, pairs = self._event(seq, ts, uuid, BEGIN, flags, name, cat, annotations, flows, terminating)
        self.stack.setdefault(uuid, []).append((text, cats, ts, pairs))
        self._flow(uuid, ts, flows, terminating)

    def end(self, seq, ts, uuid, flags=None):
        self._event(seq, ts, uuid, END, flags)
        text, cats, start, pairs = self.stack[uuid].pop()
        process, track = self.track_name[uuid]
        self.slices.append([process, track, text, cats, start, ts - start, len(self.stack[uuid])])
        for k, v in pairs:
            self.args.append([text, start, k, v])

    def instant(self, seq, ts, uuid, name, cat=None, flags=None, flows=()):
        _, text, _, _ = self._event(seq, ts, uuid, INSTANT, flags, name, cat, flows=flows)
        process, track = self.track_name[uuid]
        self.instants.append([process, track, text, ts])
        self._flow(uuid, ts, flows, ())

    def sample(self, seq, ts, uuid, counter, value):
        series, multiplier, incremental = counter
        p = self.packet(seq)
        p.timestamp = ts
        p.track_event.type = COUNTER
        p.track_event.track_uuid = uuid
        if isinstance(value, float):
            p.track_event.double_counter_value = value
        else:
            p.track_event.counter_value = value
        v = value * multiplier
        if incremental and self.counters[series]:
            v += self.counters[series][-1][1]
        self.counters[series].append([ts, float(v)])

    def write(self, out, name):
        self.chain_flows()
        with open(os.path.join(out, name + ".pftrace"), "wb") as f:
            f.write(self.b.serialize())
        expected = {
            "slices": sorted(self.slices),
            "instants": sorted(self.instants),
            "counters": self.counters,
            "flows": sorted(self.flows),
            "args": sorted(self.args),
            "rows": self.rows,
            "lost": self.lost,
            "packets_not_read": self.not_read,
        }
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)


def basic():
    s = Scenario()
    s.process(1, 100, "server")
    s.thread(2, 1, 100, 101, "main")
    s.thread(3, 1, 100, 102, "io")
    s.process(4, 200, "client")
    s.thread(5, 4, 200, 201, "ui")
    heap = s.counter(6, 1, "heap", unit=CounterDescriptor.UNIT_SIZE_BYTES)
    load = s.counter(7, 4, "load", unit_name="%", multiplier=10)
    s.begin(1, 1_000, 2, "handle", cat="rpc", annotations=[("id", 7), ("path", "/x"), ("ok", True)], flows=[11])
    s.begin(1, 1_100, 2, "parse", cat="rpc")
    s.instant(1, 1_150, 2, "token")
    s.end(1, 1_300, 2)
    s.begin(1, 1_400, 2, "reply", annotations=[("size", 2.5)])
    s.end(1, 1_900, 2)
    s.end(1, 2_000, 2)
    s.begin(1, 2_100, 3, "read", flows=[11])
    s.end(1, 2_400, 3)
    s.begin(1, 3_000, 5, "render", terminating=[11])
    s.begin(1, 3_000, 5, "layout")
    s.end(1, 3_200, 5)
    s.end(1, 3_500, 5)
    for i, (t, v) in enumerate([(1_000, 4096), (1_500, 8192), (2_500, 1024)]):
        s.sample(1, t, 6, heap, v)
    s.sample(1, 3_100, 7, load, 3)
    s.sample(1, 3_400, 7, load, 0.5)
    # Two packets of a kind weft does not read (process_stats, field 9).
    for _ in range(2):
        p = s.packet()
        p.timestamp = 500
        p.process_stats.processes.add(pid=100)
    s.not_read["process_stats"] = 2
    return s


def interned():
    s = Scenario()
    s.process(1, 10, "app")
    s.thread(2, 1, 10, 11, "t1")
    s.thread(3, 1, 10, 12, "t2")
    # Sequence 5 clears its state and interns names, categories and an annotation name.
    p = s.packet(5, CLEARED)
    d = p.interned_data
    d.event_names.add(iid=1, name="alpha")
    d.event_names.add(iid=2, name="beta")
    d.event_categories.add(iid=1, name="cat1")
    d.debug_annotation_names.add(iid=1, name="count")
    s.begin(5, 100, 2, (1, "alpha"), cat=(1, "cat1"), flags=NEEDS, annotations=[((1, "count"), 3)])
    s.begin(5, 150, 2, (2, "beta"), flags=NEEDS)
    s.end(5, 180, 2, flags=NEEDS)
    s.end(5, 200, 2, flags=NEEDS)
    # Sequence 6 interns other names under the same iids.
    p = s.packet(6, CLEARED)
    p.interned_data.event_names.add(iid=1, name="gamma")
    s.begin(6, 120, 3, (1, "gamma"), flags=NEEDS)
    s.end(6, 170, 3, flags=NEEDS)
    # Sequence 5 clears again and reuses iid 1 for a new name.
    p = s.packet(5, CLEARED)
    p.interned_data.event_names.add(iid=1, name="delta")
    s.instant(5, 300, 2, (1, "delta"), flags=NEEDS)
    # Sequence 7 never clears: its packets needing state are lost.
    for ts in (400, 450):
        p = s.packet(7, NEEDS)
        p.timestamp = ts
        p.track_event.type = INSTANT
        p.track_event.track_uuid = 2
        p.track_event.name_iid = 1
        s.lost += 1
    return s


def clock():
    s = Scenario()
    s.process(1, 10, "app")
    s.thread(2, 1, 10, 11, "main")
    p = s.packet(3, CLEARED)
    p.trace_packet_defaults.timestamp_clock_id = 64
    p.trace_packet_defaults.track_event_defaults.track_uuid = 2
    p = s.packet(3)
    snap = p.clock_snapshot
    snap.clocks.add(clock_id=6, timestamp=5_000_000)
    snap.clocks.add(clock_id=64, timestamp=1_000, is_incremental=True, unit_multiplier_ns=1_000)
    # Events in µs deltas on clock 64, no track uuid (the default's).
    value, stack = 1_000, []
    for delta, ty, name in [(2, BEGIN, "outer"), (3, BEGIN, "inner"), (4, END, None), (1, END, None)]:
        value += delta
        trace_ts = 5_000_000 + (value - 1_000) * 1_000
        p = s.packet(3)
        p.timestamp = delta
        p.track_event.type = ty
        if name:
            p.track_event.name = name
            stack.append((name, trace_ts))
        else:
            n, start = stack.pop()
            s.slices.append(["app", "main", n, "", start, trace_ts - start, len(stack)])
    return s


def async_tracks():
    s = Scenario()
    s.process(1, 10, "app")
    spans = [(20, 100, 300), (21, 200, 400), (22, 500, 600), (23, 250, 700)]
    for uuid, start, end in spans:
        s.custom(uuid, 1, "request")
        s.begin(1, start, uuid, "step")
        s.end(1, end, uuid)
    # First fit in time order: [100,300] row 1, [200,400] row 2, [250,700] row 3, [500,600] row 1.
    s.rows["app/request"] = 3
    s.custom(30, 1, "once")
    s.instant(1, 50, 30, "mark")
    s.rows["app/once"] = 1
    return s


def random_trace(n, seed):
    rnd = random.Random(seed)
    s = Scenario()
    threads = []
    for pi in range(3):
        s.process(1000 + pi, 10 + pi, f"proc{pi}")
        for ti in range(2):
            uuid = 2000 + pi * 10 + ti
            s.thread(uuid, 1000 + pi, 10 + pi, 100 * (pi + 1) + ti, f"p{pi}t{ti}")
            threads.append(uuid)
    names = [f"fn{i}" for i in range(20)]
    seq_of = {u: 10 + i for i, u in enumerate(threads)}
    for u in threads:
        p = s.packet(seq_of[u], CLEARED)
        for i, nm in enumerate(names):
            p.interned_data.event_names.add(iid=i + 1, name=nm)
    clock = {u: 1_000 for u in threads}
    flow_id = 1
    made = 0
    while made < n:
        u = rnd.choice(threads)
        seq = seq_of[u]
        depth = len(s.stack.get(u, []))
        r = rnd.random()
        clock[u] += rnd.randint(1, 1_000)
        t = clock[u]
        if depth and (r < 0.4 or depth > 6):
            s.end(seq, t, u, flags=NEEDS)
        elif r < 0.9:
            i = rnd.randrange(len(names))
            flows = []
            if rnd.random() < 0.05:
                flows = [flow_id if rnd.random() < 0.7 else max(1, flow_id - 1)]
                flow_id += 1
            s.begin(seq, t, u, (i + 1, names[i]), flags=NEEDS, flows=flows)
            made += 1
        else:
            s.instant(seq, t, u, rnd.choice(names))
    for u in threads:
        while s.stack.get(u):
            clock[u] += 1
            s.end(seq_of[u], clock[u], u, flags=NEEDS)
    return s


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    basic().write(out, "basic")
    interned().write(out, "interned")
    clock().write(out, "clock")
    async_tracks().write(out, "async")
    for n, seed in [(200, 1), (5_000, 2), (50_000, 3)]:
        random_trace(n, seed).write(out, f"random_{n}")


if __name__ == "__main__":
    main()
