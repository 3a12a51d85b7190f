#!/usr/bin/env python3
"""Perfetto protobuf traces written with Perfetto's own protos (the `perfetto` package from PyPI, its
TraceProtoBuilder), each beside what it holds by construction, for tests/perfetto_oracle.rs.

    perfetto_traces.py OUT_DIR [SCENARIO ...]

writes OUT_DIR/NAME.pftrace and OUT_DIR/NAME.json for each scenario (or those named). The JSON says, from how the trace was
built (not from reading it back):
  slices:   [process, track, name, category, start_ns, dur_ns, depth], sorted
  instants: [process, track, name, ts_ns], sorted
  counters: {series name: [[ts_ns, value], ...]}
  flows:    [[from track, from ts, to track, to ts]], sorted (a flow's ends at the starts of its slices)
  args:     [[slice name, start_ns, key, value]], sorted (every slice's debug annotations, flattened)
  rows:     {"process/track name": rows}: async rows the tracks of one name take (first fit in time)
  lost:     packets skipped for lost incremental state
  packets_not_read: {kind: count}
  locations: {"process/location": kind} (rocprofv3 scenarios: the readable locations and their kinds)
  ftrace_not_read: ftrace events other than sched_switch (sched scenarios)
Scenarios: basic (inline names, nesting, instants, counters with units, flows, args), interned (interned names,
categories and annotation names on two sequences, cleared and lost incremental state), clock (an incremental
sequence clock with packet defaults), async (custom tracks sharing rows), rocprofv3_queues and rocprofv3_streams
(rocprofv3's pftrace layout, both its track naming generations and groupings), sched and sched_compact (ftrace
sched_switch bundles, full and compact), random_N (generated traces of several sizes, seeded), and rank_K /
rank_plain_K (a run's per-process traces, with and without a REALTIME clock snapshot: `realtime_base`).
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


def rank_trace(k, real):
    """Rank k of a run written as one Perfetto trace per process (tests/perfetto_ranks.rs): a random trace
    (its own seed and size), and when `real` a clock snapshot reading BOOTTIME beside REALTIME, so that the
    files line up on wall-clock time. The JSON's `realtime_base` is REALTIME minus BOOTTIME (null without)."""
    s = random_trace(300 + 100 * k, 20 + k)
    s.realtime_base = None
    if real:
        boot, wall = 500 + 37 * k, 1_700_000_000_000_000_000 + 3_000_000 * k + 12_345
        p = s.packet(99)
        p.clock_snapshot.clocks.add(clock_id=6, timestamp=boot)
        p.clock_snapshot.clocks.add(clock_id=1, timestamp=wall)
        s.realtime_base = wall - boot
    return s


ROCPROF_CATEGORY_LABEL = {"hip_api": "HIP API", "hsa_api": "HSA API", "marker_api": "markers",
                          "kernel_dispatch": "kernels", "memory_copy": "memory copies"}


class Rocprof(Scenario):
    """A pftrace laid out as rocprofv3 (rocprofiler-sdk's perfetto output) writes one: all on one sequence, names,
    categories and annotation names interned; the main thread's thread track, other host threads as custom
    tracks "THREAD <i> (<tid>)"; kernels on per-agent queue tracks "COMPUTE ... QUEUE [q] ..." and copies on
    "COPY to AGENT [n] THREAD [i] (GPU)" (--group-by-queue), or both on "STREAM [" s "] " tracks (its default
    with HIP); every API call, kernel and copy a begin/end pair carrying a process-scoped flow id made from its
    correlation id (a kernel or copy shares its HIP call's); debug annotations as rocprofv3 writes them;
    counter tracks for bytes copied (bytes, x1024) and a PMC counter. Events are written grouped by kind, HSA
    first, as rocprofv3 does (so each track's events are out of time order in the file).

    `new_names`: ROCm 6.4's names ("COMPUTE GPU [0] QUEUE [1] GPU", "COPY BYTES to GPU [0] (GPU)") instead of
    the older "COMPUTE AGENT [1] QUEUE [0] (GPU)". Expected locations: weft's readable names for rocprofv3's
    tracks, by construction ("thread 4251 · HIP API", "GPU 0 · queue 1 · kernels", "stream 2 · memory copies").
    """

    PID = 4242
    PROCESS_UUID = 0x5EED_0000_0000 ^ 4242
    FLOW_SCOPE = 0x0F10_0000_0000_0000

    def __init__(self, seed, new_names, by_queue, calls_per_thread):
        super().__init__()
        self.rnd = random.Random(seed)
        self.new_names, self.by_queue = new_names, by_queue
        self.iids = {"name": {}, "cat": {}, "ann": {}}
        self.locations = {}
        self.by_kind = {k: [] for k in ("hsa_api", "hip_api", "marker_api", "memory_copy", "kernel_dispatch")}
        self.corr = 0
        p = self.packet(1, CLEARED)
        p.track_descriptor.uuid = self.PROCESS_UUID
        p.track_descriptor.process.pid = self.PID
        p.track_descriptor.process.process_name = "hip_app"
        self.process_name = "hip_app"
        self.build(calls_per_thread)

    # Tracks.
    def track(self, uuid, name=None, thread=None):
        p = self.packet(1)
        d = p.track_descriptor
        d.uuid, d.parent_uuid = uuid, self.PROCESS_UUID
        if name is not None:
            d.name = name
        if thread is not None:
            d.thread.pid, d.thread.tid, d.thread.thread_name = self.PID, thread, "hip_app"

    def agent_name(self, gpu):
        # Agent 0 is the CPU: GPU g is agent g + 1 by absolute index.
        return f"GPU {gpu}" if self.new_names else f"agent {gpu + 1} (GPU)"

    def build(self, calls_per_thread):
        rnd = self.rnd
        main = self.PID
        hosts = [(main, self.PROCESS_UUID ^ main, f"thread {main} (hip_app)")]
        self.track(hosts[0][1], thread=main)
        for i, tid in enumerate([4250, 4251], start=1):
            uuid = self.PROCESS_UUID ^ tid
            self.track(uuid, name=f"THREAD {i} ({tid})")
            hosts.append((tid, uuid, f"thread {tid}"))
        gpus, queues = 2, 2
        devices = {}  # (kind, key) -> (uuid, label); kind "queue" (gpu, q), "copy" (gpu, thread index), "stream" s
        uuid = 0x7000

        def device(kind, key):
            nonlocal uuid
            if (kind, key) in devices:
                return devices[(kind, key)]
            uuid += 1
            if kind == "queue":
                g, q = key
                name = (f"COMPUTE GPU [{g}] QUEUE [{q}] GPU" if self.new_names
                        else f"COMPUTE AGENT [{g + 1}] QUEUE [{q}] (GPU)")
                label = f"{self.agent_name(g)} · queue {q}"
            elif kind == "copy":
                g, t = key
                name = f"COPY to AGENT [{g + 1}] THREAD [{t}] (GPU)"
                label = f"agent {g + 1} (GPU) · thread {t}"
            else:
                name, label = f'STREAM [" {key} "] ', f"stream {key}"
            self.track(uuid, name=name)
            devices[(kind, key)] = (uuid, label)
            return devices[(kind, key)]

        busy = {}  # device uuid -> when its last activity ends
        copy_bytes = {}  # gpu -> [(start, end, bytes)]
        pmc = {}  # gpu -> [(start, end, value)]
        for ti, (tid, track, label) in enumerate(hosts):
            t = 1_000_000 + ti * 137
            for c in range(calls_per_thread):
                t += rnd.randint(200, 2_000)
                if c % 4 == 0:
                    # A ROCTx range around the next calls (written as marker_api slices on the thread).
                    marker = (t, f"step {c // 4}")
                    t += rnd.randint(5, 50)
                what = rnd.choice(["hipLaunchKernel", "hipLaunchKernel", "hipMemcpyAsync", "hipStreamSynchronize"])
                corr = self.next_corr()
                start = t
                # HSA calls made inside the HIP call.
                hsa_t = start + rnd.randint(10, 50)
                for _ in range(rnd.randint(1, 3)):
                    name = rnd.choice(["hsa_signal_create", "hsa_queue_load_write_index_relaxed", "hsa_signal_store"])
                    d = rnd.randint(5, 40)
                    self.api("hsa_api", name, track, f"{label} · HSA API", tid, hsa_t, hsa_t + d, self.next_corr(), corr)
                    hsa_t += d + rnd.randint(5, 30)
                end = hsa_t + rnd.randint(10, 100)
                self.api("hip_api", what, track, f"{label} · HIP API", tid, start, end, corr, 0)
                gpu = rnd.randrange(gpus)
                stream = 1 + rnd.randrange(2)
                if what == "hipLaunchKernel":
                    q = rnd.randrange(queues)
                    dev = device("queue", (gpu, q)) if self.by_queue else device("stream", stream)
                    # On a queue a kernel may start as the one before ends (rocprofv3's own fix of overlapping
                    # firmware times does that; written in order, the end is matched first). On a stream, kernels
                    # and copies share the track but are written apart: no tie there, or their ends would pair
                    # with the wrong begins (in Perfetto's slice tracker too).
                    tie = 0 if self.by_queue else 1
                    k0 = max(end + rnd.randint(100, 500), busy.get(dev[0], 0) + rnd.randint(tie, 50))
                    k1 = k0 + rnd.randint(1_000, 20_000)
                    busy[dev[0]] = k1
                    kernel = rnd.choice(["void vector_add<float>(float*, float const*, int)", "matmul_tile", "reduce"])
                    waves = rnd.randint(1, 500) + 0.25
                    pmc.setdefault(gpu, []).append((k0, k1, waves))
                    self.kernel(dev, kernel, gpu, q, tid, k0, k1, corr, waves)
                elif what == "hipMemcpyAsync":
                    dev = device("copy", (gpu, ti)) if self.by_queue else device("stream", stream)
                    m0 = max(end + rnd.randint(50, 300), busy.get(dev[0], 0) + rnd.randint(1, 50))
                    m1 = m0 + rnd.randint(500, 5_000)
                    busy[dev[0]] = m1
                    nbytes = 1024 * rnd.randint(1, 4096)
                    copy_bytes.setdefault(gpu, []).append((m0, m1, nbytes))
                    self.copy(dev, gpu, tid, m0, m1, corr, nbytes)
                t = end
                if c % 4 == 3 or c == calls_per_thread - 1:
                    t += rnd.randint(5, 50)
                    self.api("marker_api", marker[1], track, f"{label} · markers", tid, marker[0], t, self.next_corr(), 0)
        for kind in ("hsa_api", "hip_api", "marker_api", "memory_copy", "kernel_dispatch"):
            for args in self.by_kind[kind]:
                self.emit(*args)
        # Counter tracks: bytes copied to each GPU (bytes, multiplier 1024) and a PMC counter per GPU.
        cuuid = 0x9000
        for g, copies in sorted(copy_bytes.items()):
            cuuid += 1
            name = f"COPY BYTES to GPU [{g}] (GPU)" if self.new_names else f"COPY BYTES to AGENT [{g + 1}] (GPU)"
            counter = self.rocprof_counter(cuuid, name, f"{self.agent_name(g)} · bytes copied to (bytes)", True)
            # Written in time order (copies to one GPU overlap), each copy's bytes at its start, 0 at its end.
            points = sorted([(m0, nbytes // 1024) for m0, _, nbytes in copies] + [(m1, 0) for _, m1, _ in copies],
                            key=lambda x: x[0])
            for ts, value in points:
                self.sample(1, ts, cuuid, counter, value)
        for g, kernels in sorted(pmc.items()):
            cuuid += 1
            name = f"GPU [{g}] PMC SQ_WAVES" if self.new_names else f"Agent [{g + 1}] PMC SQ_WAVES"
            shown = f"GPU {g} · SQ_WAVES" if self.new_names else f"agent {g + 1} · SQ_WAVES"
            counter = self.rocprof_counter(cuuid, name, shown, False)
            for k0, k1, waves in sorted(kernels):
                self.sample(1, k0, cuuid, counter, waves)
        for tid, _, label in hosts:
            for kind in ("HIP API", "HSA API", "markers"):
                self.locations[f"{self.process_name}/{label} · {kind}"] = "CpuThread"
        for _, label in devices.values():
            for kind in ("kernels", "memory copies"):
                if any(s[1] == f"{label} · {kind}" for s in self.slices):
                    self.locations[f"{self.process_name}/{label} · {kind}"] = "GpuStream"

    def rocprof_counter(self, uuid, name, shown, bytes_unit):
        p = self.packet(1)
        d = p.track_descriptor
        d.uuid, d.parent_uuid, d.name = uuid, self.PROCESS_UUID, name
        if bytes_unit:
            d.counter.unit = CounterDescriptor.UNIT_SIZE_BYTES
            d.counter.unit_multiplier = 1024
        d.counter.is_incremental = False
        self.counters.setdefault(shown, [])
        return (shown, 1024 if bytes_unit else 1, False)

    def next_corr(self):
        self.corr += 1
        return self.corr

    def api(self, category, name, track, location, tid, start, end, corr, ancestor):
        args = [("begin_ns", start), ("end_ns", end), ("delta_ns", end - start), ("tid", tid),
                ("kind", 2 if category == "hip_api" else 1), ("operation", len(name)), ("corr_id", corr),
                ("ancestor_id", ancestor)]
        self.by_kind[category].append((category, name, track, location, start, end, corr, args))

    def kernel(self, dev, name, gpu, queue, tid, start, end, corr, waves):
        agent = str(gpu) if self.new_names else str(gpu + 1)
        args = [("begin_ns", start), ("end_ns", end), ("delta_ns", end - start), ("kind", 12), ("agent", agent),
                ("agent_type", "GPU"), ("corr_id", corr), ("queue", 0x7F00 + queue), ("tid", tid),
                ("kernel_id", len(name)), ("private_segment_size", 0), ("group_segment_size", 1024),
                ("workgroup_size", 256), ("grid_size", 256 * (1 + corr % 64)), ("SQ_WAVES", waves)]
        self.by_kind["kernel_dispatch"].append(
            ("kernel_dispatch", name, dev[0], f"{dev[1]} · kernels", start, end, corr, args))

    def copy(self, dev, gpu, tid, start, end, corr, nbytes):
        args = [("begin_ns", start), ("end_ns", end), ("delta_ns", end - start), ("kind", 11), ("operation", 1),
                ("src_agent", "0"), ("dst_agent", str(gpu + 1)), ("copy_bytes", nbytes), ("corr_id", corr),
                ("tid", tid)]
        self.by_kind["memory_copy"].append(
            ("memory_copy", "MEMORY_COPY_HOST_TO_DEVICE", dev[0], f"{dev[1]} · memory copies", start, end, corr, args))

    def intern(self, p, kind, text):
        table = self.iids[kind]
        if text not in table:
            table[text] = len(table) + 1
            d = p.interned_data
            {"name": d.event_names, "cat": d.event_categories, "ann": d.debug_annotation_names}[kind].add(
                iid=table[text], name=text)
        return table[text]

    def emit(self, category, name, track, location, start, end, corr, args):
        p = self.packet(1, NEEDS)
        p.timestamp = start
        e = p.track_event
        e.type = BEGIN
        e.track_uuid = track
        e.name_iid = self.intern(p, "name", name)
        e.category_iids.append(self.intern(p, "cat", category))
        e.flow_ids.append(self.FLOW_SCOPE ^ corr)
        pairs = []
        for key, value in args:
            a = e.debug_annotations.add()
            a.name_iid = self.intern(p, "ann", key)
            if isinstance(value, str):
                a.string_value, shown = value, value
            elif isinstance(value, float):
                a.double_value, shown = value, repr(value)
            elif key == "kind":
                a.int_value, shown = value, str(value)
            else:
                a.uint_value, shown = value, str(value)
            pairs.append((key, shown))
        p = self.packet(1, NEEDS)
        p.timestamp = end
        p.track_event.type = END
        p.track_event.track_uuid = track
        self.slices.append([self.process_name, location, name, category, start, end - start, 0])
        for k, v in pairs:
            self.args.append([name, start, k, v])
        self.flow_points.append((self.FLOW_SCOPE ^ corr, start, len(self.flow_points), location, False))

    def write(self, out, name):
        super().write(out, name)
        path = os.path.join(out, name + ".json")
        with open(path) as f:
            expected = json.load(f)
        expected["locations"] = self.locations
        with open(path, "w") as f:
            json.dump(expected, f, indent=1, sort_keys=True)


def sched(n_per_cpu, seed, compact_cpus=()):
    """ftrace bundles with sched_switch events on 4 CPUs (CPUs in `compact_cpus` in the compact_sched form),
    other ftrace events between them (print, cpu_idle), in bundles of up to 50 switches. Expected: per CPU a
    slice per stretch a non-idle thread ran, named by its comm, pid as arg; the last one on each CPU ending
    at the trace's last switch; the "CPUs" process."""
    rnd = random.Random(seed)
    s = Scenario()
    threads = [(0, "swapper/0")] + [(100 + i, f"worker-{i}") for i in range(12)] + [(7, "kworker/0:1")]
    per_cpu = {}
    for cpu in range(4):
        t = 10_000 + cpu * 7
        events = []
        for _ in range(n_per_cpu):
            t += rnd.randint(1, 5_000)
            pid, comm = rnd.choice(threads)
            events.append((t, pid, comm))
        per_cpu[cpu] = events
    other = 0
    for cpu, events in per_cpu.items():
        for b0 in range(0, len(events), 50):
            bundle = events[b0:b0 + 50]
            p = s.packet(1)
            fb = p.ftrace_events
            fb.cpu = cpu
            if cpu in compact_cpus:
                c = fb.compact_sched
                table = []
                prev = 0
                for t, pid, comm in bundle:
                    if comm not in table:
                        table.append(comm)
                    c.switch_timestamp.append(t - prev)
                    prev = t
                    c.switch_prev_state.append(0)
                    c.switch_next_pid.append(pid)
                    c.switch_next_prio.append(120)
                    c.switch_next_comm_index.append(table.index(comm))
                c.intern_table.extend(table)
            else:
                prev_pid, prev_comm = 0, "swapper"
                for t, pid, comm in bundle:
                    e = fb.event.add()
                    e.timestamp, e.pid = t, prev_pid
                    sw = e.sched_switch
                    sw.prev_comm, sw.prev_pid, sw.prev_state = prev_comm, prev_pid, 1
                    sw.next_comm, sw.next_pid, sw.next_prio = comm, pid, 120
                    prev_pid, prev_comm = pid, comm
                    if rnd.random() < 0.3:
                        o = fb.event.add()
                        o.timestamp = t + 1
                        if rnd.random() < 0.5:
                            o.print.buf = "hello"
                        else:
                            o.cpu_idle.state, o.cpu_idle.cpu_id = 1, cpu
                        other += 1
    end = max(t for events in per_cpu.values() for t, _, _ in events)
    for cpu, events in per_cpu.items():
        for k, (t, pid, comm) in enumerate(events):
            nxt = events[k + 1][0] if k + 1 < len(events) else end
            if pid == 0 or nxt <= t:
                continue
            s.slices.append(["CPUs", f"CPU {cpu}", comm, "sched", t, nxt - t, 0])
            s.args.append([comm, t, "pid", str(pid)])
    s.ftrace_not_read = other
    return s


def main():
    out = sys.argv[1]
    only = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    scenarios = {
        "basic": basic,
        "interned": interned,
        "clock": clock,
        "async": async_tracks,
        "rocprofv3_queues": lambda: Rocprof(5, new_names=False, by_queue=True, calls_per_thread=40),
        "rocprofv3_streams": lambda: Rocprof(6, new_names=True, by_queue=False, calls_per_thread=400),
        "sched": lambda: sched(300, 7),
        "sched_compact": lambda: sched(2_000, 8, compact_cpus=(1, 3)),
    }
    for n, seed in [(200, 1), (5_000, 2), (50_000, 3)]:
        scenarios[f"random_{n}"] = lambda n=n, seed=seed: random_trace(n, seed)
    for k in range(3):
        scenarios[f"rank_{k}"] = lambda k=k: rank_trace(k, True)
        scenarios[f"rank_plain_{k}"] = lambda k=k: rank_trace(k, False)
    for name, make in scenarios.items():
        if not only or name in only:
            s = make()
            s.write(out, name)
            extra = {k: getattr(s, k) for k in ("ftrace_not_read", "realtime_base") if hasattr(s, k)}
            if extra:
                path = os.path.join(out, name + ".json")
                with open(path) as f:
                    expected = json.load(f)
                expected.update(extra)
                with open(path, "w") as f:
                    json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
