#!/usr/bin/env python3
"""Oracle for weft's OTF2 reader, using the official OTF2 library (PyPI `otf2`).

  otf2_oracle.py gen DIR            write archives covering every record kind weft reads into DIR/<name>/
  otf2_oracle.py big DIR N          write one archive of about N events (benchmark input) into DIR
  otf2_oracle.py dump ANCHOR        print the archive as JSON lines, read by the official reader
  otf2_oracle.py sends ANCHOR [T0 T1]  the communication matrix from the send records, per "sender\treceiver"
                                    process [count, bytes], of sends at T0 <= t < T1 (ns from the first event)
  otf2_oracle.py iterate ANCHOR     iterate all events with the official reader; print count and seconds
  otf2_oracle.py counts ANCHOR      counts per record kind and of complete tasks, as JSON (corpus test)
  otf2_oracle.py profile ANCHOR     per region name [count, inclusive ns, exclusive ns] of the whole trace from
                                    its Enter/Leave records (recursion counted once in inclusive time), as JSON
  otf2_oracle.py threads DIR        write thread programs (pthreads, nested OpenMP teams, OpenMP tasks,
                                    MPI + OpenMP, bad events, bad task events, task-parallel fib on 8
                                    threads with and without THREAD_FORK and implicit-task switches) into DIR/<name>/, each with expect.json: what weft's OTF2 thread
                                    mapping (docs/otf2-threads.md) must make of them, computed here from what
                                    was written
  otf2_oracle.py tasks DIR N        write the OpenMP task program for fib(N) into DIR (benchmark input)
  otf2_oracle.py metricsgen DIR     write an archive with metrics of every value type, scaled by exponents,
                                    recorded by threads (classes) and for a process (an instance) into DIR
  otf2_oracle.py rocm DIR          write a ROCm-SMI-shaped archive into DIR/rocm: ranks computing, and METRIC
                                    locations that only record metrics (GPU counters, constant cpuinfo fields)
  otf2_oracle.py metrics ANCHOR     every METRIC event's values per (location, member) as the official reader
                                    gives them, scaled by base^exponent, with times in ns since the global
                                    offset, as JSON

Generated traces use timer resolution 1e9 unless said otherwise, so times are nanoseconds.
"""
import json
import sys
import time

import otf2
from otf2.enums import (Base, CollectiveOp, GroupType, LocationType, MeasurementMode, Paradigm, RegionRole, Type)


def mpi_setup(trace, ranks, threads_per_rank=1):
    d = trace.definitions
    root = d.system_tree_node("machine")
    node = d.system_tree_node("node0", parent=root)
    locs = []
    for r in range(ranks):
        g = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
        for t in range(threads_per_rank):
            name = "Master thread" if t == 0 else "OpenMP thread %d" % t
            locs.append(d.location(name, group=g, type=LocationType.CPU_THREAD))
    masters = locs[::threads_per_rank]
    comm_locs = d.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
                        paradigm=Paradigm.MPI, members=masters)
    world_group = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP,
                          paradigm=Paradigm.MPI, members=list(range(ranks)))
    world = d.comm("MPI_COMM_WORLD", group=world_group)
    return locs, masters, world


def gen_mpi(path):
    """4 ranks: blocking and non-blocking point-to-point, cancelled isend, collectives, metrics."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs, masters, world = mpi_setup(trace, 4)
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        send = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        isend = d.region("MPI_Isend", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        irecv = d.region("MPI_Irecv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        wait = d.region("MPI_Wait", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        test = d.region("MPI_Test", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        cancel = d.region("MPI_Cancel", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        allreduce = d.region("MPI_Allreduce", region_role=RegionRole.COLL_ALL2ALL, paradigm=Paradigm.MPI)
        bcast = d.region("MPI_Bcast", region_role=RegionRole.COLL_ONE2ALL, paradigm=Paradigm.MPI)
        barrier = d.region("MPI_Barrier", region_role=RegionRole.BARRIER, paradigm=Paradigm.MPI)
        metric = d.metric("PAPI_TOT_CYC", unit="cycles", value_type=Type.UINT64)
        n = len(masters)
        writers = [trace.event_writer_from_location(l) for l in masters]
        for r, w in enumerate(writers):
            t = 1000 + r
            w.enter(t, main)
            w.metric(t, metric, 100 + r)
            for it in range(3):
                base = 10000 * (it + 1)
                right, left = (r + 1) % n, (r - 1) % n
                # Blocking ring: even ranks send first.
                for phase in (0, 1):
                    t = base + 100 * phase + r
                    if (r % 2) == phase:
                        w.enter(t, send); w.mpi_send(t + 1, right, world, 7, 1024 * (it + 1)); w.leave(t + 2, send)
                    else:
                        w.enter(t + 3, recv); w.mpi_recv(t + 4, left, world, 7, 1024 * (it + 1)); w.leave(t + 5, recv)
                # Non-blocking exchange with request ids.
                t = base + 1000 + r
                req_s, req_r = 2 * it + 1, 2 * it + 2
                w.enter(t, irecv); w.mpi_irecv_request(t + 1, req_r); w.leave(t + 2, irecv)
                w.enter(t + 3, isend); w.mpi_isend(t + 4, right, world, 9, 64 * (r + 1), req_s); w.leave(t + 5, isend)
                w.enter(t + 6, test); w.mpi_request_test(t + 7, req_s); w.leave(t + 8, test)
                w.enter(t + 10, wait); w.mpi_isend_complete(t + 11, req_s)
                w.mpi_irecv(t + 12, left, world, 9, 64 * (left + 1), req_r); w.leave(t + 13, wait)
                # Collectives.
                t = base + 2000
                w.enter(t + r, allreduce); w.mpi_collective_begin(t + r + 1)
                w.mpi_collective_end(t + 50, CollectiveOp.ALLREDUCE, world, 0xFFFFFFFF, 8, 8); w.leave(t + 51, allreduce)
                w.enter(t + 60 + r, bcast); w.mpi_collective_begin(t + 61 + r)
                w.mpi_collective_end(t + 90, CollectiveOp.BCAST, world, 0, 16 if r == 0 else 0, 16); w.leave(t + 91, bcast)
                w.metric(t + 95, metric, 1000 * (it + 1) + r)
            # A cancelled non-blocking send (rank 0 only): never matched.
            t = 50000 + r
            if r == 0:
                w.enter(t, isend); w.mpi_isend(t + 1, 1, world, 99, 4, 77); w.leave(t + 2, isend)
                w.enter(t + 3, cancel); w.mpi_request_cancelled(t + 4, 77); w.leave(t + 5, cancel)
            t = 60000
            w.enter(t + r, barrier); w.mpi_collective_begin(t + r + 1)
            w.mpi_collective_end(t + 20, CollectiveOp.BARRIER, world, 0xFFFFFFFF, 0, 0); w.leave(t + 21, barrier)
            w.leave(70000 + r, main)


def gen_threads(path):
    """One process, 4 threads: fork/join, thread teams, OpenMP tasks (THREAD_TASK_* and OMP_TASK_*),
    pthread-style create/begin/wait/end, measurement on/off, buffer flush, and a metric."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        root = d.system_tree_node("machine")
        g = d.location_group("Process", system_tree_parent=root)
        locs = [d.location("Master thread" if i == 0 else "OpenMP thread %d" % i, group=g) for i in range(4)]
        team_locs = d.group("team locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP,
                            members=locs)
        team_group = d.group("team", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.OPENMP,
                             members=list(range(4)))
        team = d.comm("OpenMP team", group=team_group)
        pt_locs = d.group("pthread locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.PTHREAD,
                          members=locs)
        pt_group = d.group("pthreads", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.PTHREAD,
                           members=list(range(4)))
        contingent = d.comm("pthread contingent", group=pt_group)
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("!$omp parallel @fib.c:10", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        task = d.region("!$omp task @fib.c:12", region_role=RegionRole.TASK, paradigm=Paradigm.OPENMP)
        tcreate = d.region("!$omp create task @fib.c:12", region_role=RegionRole.TASK_CREATE, paradigm=Paradigm.OPENMP)
        twait = d.region("!$omp taskwait @fib.c:14", region_role=RegionRole.TASK_WAIT, paradigm=Paradigm.OPENMP)
        ibar = d.region("!$omp implicit barrier @fib.c:20", region_role=RegionRole.IMPLICIT_BARRIER,
                        paradigm=Paradigm.OPENMP)
        work = d.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        pcreate = d.region("pthread_create", region_role=RegionRole.THREAD_CREATE, paradigm=Paradigm.PTHREAD)
        pjoin = d.region("pthread_join", region_role=RegionRole.THREAD_WAIT, paradigm=Paradigm.PTHREAD)
        metric = d.metric("mem_used", unit="bytes", value_type=Type.DOUBLE)
        w = [trace.event_writer_from_location(l) for l in locs]
        w[0].enter(100, main)
        w[0].measurement_on_off(110, MeasurementMode.OFF)
        w[0].measurement_on_off(120, MeasurementMode.ON)
        w[0].buffer_flush(130, 140)
        w[0].metric(150, metric, 1.5)
        for rep in range(2):
            b = 1000 + rep * 10000
            w[0].thread_fork(b, Paradigm.OPENMP, 4)
            w[0].omp_fork(b + 1, 4)
            for i in range(4):
                t = b + 10 + i
                w[i].thread_team_begin(t, team)
                w[i].enter(t + 1, par)
                # Each thread creates one task, runs it, then waits.
                w[i].enter(t + 100, tcreate)
                w[i].thread_task_create(t + 101, team, i, rep + 1)
                w[i].omp_task_create(t + 102, 1000 * rep + i)
                w[i].leave(t + 103, tcreate)
                w[i].thread_task_switch(t + 200, team, i, rep + 1)
                w[i].omp_task_switch(t + 201, 1000 * rep + i)
                w[i].enter(t + 202, task)
                w[i].enter(t + 210, work)
                w[i].leave(t + 300, work)
                w[i].leave(t + 310, task)
                w[i].thread_task_complete(t + 311, team, i, rep + 1)
                w[i].omp_task_complete(t + 312, 1000 * rep + i)
                w[i].enter(t + 400, twait)
                w[i].leave(t + 410, twait)
                w[i].enter(t + 500, ibar)
                w[i].leave(t + 600, ibar)
                w[i].leave(t + 601, par)
                w[i].thread_team_end(t + 602, team)
            w[0].omp_join(b + 700)
            w[0].thread_join(b + 701, Paradigm.OPENMP)
        # pthread-style: master creates three threads and waits for them.
        b = 30000
        for i in range(1, 4):
            w[0].enter(b + 10 * i, pcreate)
            w[0].thread_create(b + 10 * i + 1, contingent, i)
            w[0].leave(b + 10 * i + 2, pcreate)
            w[i].thread_begin(b + 100 + i, contingent, i)
            w[i].enter(b + 110 + i, work)
            w[i].leave(b + 500 + i, work)
            w[i].thread_end(b + 600 + i, contingent, i)
        for i in range(1, 4):
            w[0].enter(b + 700 + 10 * i, pjoin)
            w[0].thread_wait(b + 701 + 10 * i, contingent, i)
            w[0].leave(b + 702 + 10 * i, pjoin)
        w[0].leave(40000, main)


def gen_metrics(path):
    """2 processes x 2 threads. Each thread records a class of three members (an accumulated uint64 counter,
    an int64 that goes negative, a double in microseconds scaled to seconds by exponent -6) at every Enter and
    Leave; the master thread also records, for its whole process (a metric instance scoped to the location
    group), a binary-scaled memory figure (KiB, exponent 10 makes bytes)."""
    from otf2.enums import MetricMode, MetricType, RecorderKind
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs, masters, world = mpi_setup(trace, 2, threads_per_rank=2)
        work = d.region("work", paradigm=Paradigm.USER)
        cyc = d.metric_member("PAPI_TOT_CYC", unit="#", metric_type=MetricType.PAPI,
                              metric_mode=MetricMode.ACCUMULATED_START, value_type=Type.UINT64)
        delta = d.metric_member("balance", unit="items", metric_type=MetricType.USER,
                                metric_mode=MetricMode.ABSOLUTE_POINT, value_type=Type.INT64)
        utime = d.metric_member("ru_utime", unit="s", metric_type=MetricType.RUSAGE,
                                metric_mode=MetricMode.ACCUMULATED_START, value_type=Type.DOUBLE,
                                base=Base.DECIMAL, exponent=-6)
        cls = d.metric_class([cyc, delta, utime], recorder_kind=RecorderKind.CPU)
        mem = d.metric_member("mem", unit="B", metric_type=MetricType.OTHER, metric_mode=MetricMode.ABSOLUTE_POINT,
                              value_type=Type.UINT64, base=Base.BINARY, exponent=10)
        mem_cls = d.metric_class([mem], recorder_kind=RecorderKind.ABSTRACT)
        for i, loc in enumerate(locs):
            w = trace.event_writer_from_location(loc)
            inst = None
            if i % 2 == 0:
                inst = d.metric_instance(mem_cls, loc, scope=loc.group)
            t = 1000 + 7 * i
            for k in range(25):
                w.enter(t, work)
                w.metric(t, cls, [1000 * k * k + i, 50 - 7 * k + i, 1.5 * k + 0.25 * i])
                if inst is not None:
                    w.metric(t + 1, inst, [(k % 5) * 3 + i])
                w.leave(t + 100 + 13 * (k % 3), work)
                w.metric(t + 100 + 13 * (k % 3), cls, [1000 * k * k + 500 + i, 48 - 7 * k + i, 1.5 * k + 0.75])
                t += 400


def gen_rocm(path, devices=8, cpuinfo=12):
    """A ROCm-SMI-shaped run: 2 MPI ranks computing, and METRIC locations that only record metrics, as Score-P's
    ROCm SMI plugin writes them on an MI300 node: devices-2 of them in rank 0's location group ("ROCm SMI
    device k"), 2 in a location group of their own ("rocm_smi"), each sampling busy, memory busy, energy (a
    large count that moves little: 132.52e12 to 132.54e12 uJ) and power every 100 us; and a cpuinfo location
    whose `cpuinfo` fields never change (constant series). None of the METRIC locations has an interval."""
    from otf2.enums import MetricMode, MetricType, RecorderKind
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs, masters, world = mpi_setup(trace, 2)
        node = d.system_tree_node("mi300-node")
        own = d.location_group("rocm_smi", system_tree_parent=node)
        work = d.region("compute", paradigm=Paradigm.USER)
        member = lambda name, unit: d.metric_member("A2rocm_smi:::" + name, unit=unit, metric_type=MetricType.PAPI,
                                                    metric_mode=MetricMode.ABSOLUTE_POINT, value_type=Type.DOUBLE)
        cls = d.metric_class([member("busy_percent", "%"), member("memory_busy_percent", "%"),
                              member("energy_count", "uJ"), member("power_average", "W")],
                             recorder_kind=RecorderKind.ABSTRACT)
        gpus = []
        for k in range(devices):
            group = masters[0].group if k < devices - 2 else own
            gpus.append(d.location("ROCm SMI device %d" % k, group=group, type=LocationType.METRIC))
        info_members = [d.metric_member("cpuinfo:::field_%02d" % f, unit="", metric_type=MetricType.OTHER,
                                        metric_mode=MetricMode.ABSOLUTE_POINT, value_type=Type.DOUBLE)
                        for f in range(cpuinfo)]
        info_cls = d.metric_class(info_members, recorder_kind=RecorderKind.ABSTRACT)
        info = d.location("cpuinfo", group=own, type=LocationType.METRIC)
        for r, loc in enumerate(locs):
            w = trace.event_writer_from_location(loc)
            for k in range(10):
                w.enter(1000 + k * 100000 + r * 50, work)
                w.leave(1000 + k * 100000 + 80000 + r * 50, work)
        for k, loc in enumerate(gpus):
            w = trace.event_writer_from_location(loc)
            for i in range(101):
                t = 1000 + i * 10000
                w.metric(t, cls, [float((i * 7 + k * 13) % 100), float((i * 3 + k) % 40),
                                  132.52e12 + i * 0.0002e12 + k * 1e6, 100.0 + (i + k) % 50])
        w = trace.event_writer_from_location(info)
        for i in range(11):
            w.metric(1000 + i * 100000, info_cls, [1000.0 + 10 * f for f in range(cpuinfo)])


def metrics(anchor):
    """Per location and member: the samples [ns since the global offset, value x base^exponent] in file
    order, with the location's group (process) name and the member's unit."""
    series = {}
    events = 0
    with otf2.reader.open(anchor) as trace:
        d = trace.definitions
        res = trace.timer_resolution
        offset = d.clock_properties.global_offset
        for loc, ev in trace.events:
            if type(ev).__name__ != "Metric":
                continue
            events += 1
            m = ev.metric
            cls = m.metric_class if hasattr(m, "metric_class") else m
            for member, value in zip(cls.members, ev.values):
                base = 2.0 if member.base == Base.BINARY else 10.0
                key = (loc._ref, member.name)
                s = series.setdefault(key, {"location": loc._ref, "location_name": loc.name,
                                            "group": loc.group.name, "member": member.name, "unit": member.unit,
                                            "scope": None, "samples": []})
                if hasattr(m, "scope"):
                    s["scope"] = getattr(m.scope, "name", None)
                s["samples"].append([(ev.time - offset) * 1e9 / res, float(value) * base ** member.exponent])
    print(json.dumps({"events": events, "series": list(series.values())}))


def gen_big(path, n_events):
    """Many ranks of Enter/Leave nests with some messages: about n_events events."""
    ranks = 16
    per_rank = n_events // ranks
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs, masters, world = mpi_setup(trace, ranks)
        regions = [d.region("function_%d" % i, paradigm=Paradigm.USER) for i in range(32)]
        send = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        for r, loc in enumerate(masters):
            w = trace.event_writer_from_location(loc)
            t = 1000
            written = 0
            i = 0
            while written + 6 <= per_rank:
                if i % 64 == 0:
                    peer = r ^ 1
                    if r % 2 == 0:
                        w.enter(t, send); w.mpi_send(t + 1, peer, world, i % 100, 4096); w.leave(t + 2, send)
                    else:
                        w.enter(t, recv); w.mpi_recv(t + 1, peer, world, i % 100, 4096); w.leave(t + 2, recv)
                    written += 3
                    t += 3
                a, b = regions[i % 32], regions[(i * 7 + 3) % 32]
                w.enter(t, a); w.enter(t + 1, b); w.leave(t + 5, b); w.leave(t + 9, a)
                written += 4
                t += 10
                i += 1


# ---- Thread programs for the execution-graph and grain-graph mapping (docs/otf2-threads.md) ----------------
# Each generator returns its own record of what it wrote, in the mapping's terms: per thread (location id,
# instance on that location, or a task) its nodes as [kind, absolute time]; for tasks their parents, runs and
# synchronization. `origin` is the first time written (the trace's zero).


def one_process(trace, n, names):
    d = trace.definitions
    root = d.system_tree_node("machine")
    g = d.location_group("Process", system_tree_parent=root)
    return [d.location(names(i), group=g, type=LocationType.CPU_THREAD) for i in range(n)]


def comm(trace, name, paradigm, locs, members):
    """A communicator over `members` (indices into `locs`), with the per-paradigm location group OTF2 needs."""
    d = trace.definitions
    key = "%s locations" % paradigm
    d.group(key, group_type=GroupType.COMM_LOCATIONS, paradigm=paradigm, members=locs)
    grp = d.group(name, group_type=GroupType.COMM_GROUP, paradigm=paradigm, members=members)
    return d.comm(name, group=grp)


def join_chain(start, ends):
    """The mapping's join chain: children in order of their ends; b-join at the wait so far, a-join at the
    later of that and the child's end; a pair at one time is one merged join node."""
    nodes, cursor = [], start
    for _end, who in sorted(ends):
        a = max(cursor, _end)
        nodes += [["join", a]] if a == cursor else [["b-join", cursor], ["a-join", a]]
        cursor = a
    return nodes


def gen_pthreads(path, n=5):
    """A master creates n pthreads (pthread_create), then joins them in order inside pthread_join regions;
    the last is waited for without a region (a merged join)."""
    threads = {}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, n + 1, lambda i: "Master thread" if i == 0 else "pthread %d" % i)
        contingent = comm(trace, "pthread contingent", Paradigm.PTHREAD, locs, list(range(n + 1)))
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        pcreate = d.region("pthread_create", region_role=RegionRole.THREAD_CREATE, paradigm=Paradigm.PTHREAD)
        pjoin = d.region("pthread_join", region_role=RegionRole.THREAD_WAIT, paradigm=Paradigm.PTHREAD)
        work = d.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        w = [trace.event_writer_from_location(l) for l in locs]
        w[0].enter(100, main)
        master = [["start", 100]]
        ends = {}
        for i in range(1, n + 1):
            tc = 1000 + 100 * i
            w[0].enter(tc, pcreate)
            w[0].thread_create(tc + 10, contingent, i)
            w[0].leave(tc + 20, pcreate)
            master.append(["fork", tc + 10])
            b = tc + 50
            e = b + 3000 + 1500 * ((i * 7) % 5)
            w[i].thread_begin(b, contingent, i)
            w[i].enter(b + 5, work)
            w[i].leave(e - 5, work)
            w[i].thread_end(e, contingent, i)
            threads["%d/1" % locs[i]._ref] = [["start", b], ["end", e]]
            ends[i] = e
        t = 6000
        for i in range(1, n + 1):
            if i == n:
                wt = max(t, ends[i] + 1)
                w[0].thread_wait(wt, contingent, i)
                master.append(["join", wt])
            else:
                w[0].enter(t, pjoin)
                wt = max(t + 5, ends[i] + 5)
                w[0].thread_wait(wt, contingent, i)
                w[0].leave(wt + 5, pjoin)
                master += [["b-join", t], ["a-join", wt]]
            t = wt + 20
        w[0].leave(t + 100, main)
        master.append(["end", t + 100])
        threads["%d/0" % locs[0]._ref] = master
    return {"origin": 100, "threads": threads}


def gen_omp_nested(path, reps=2):
    """Nested OpenMP: an outer team {L0, L1, L2}; L1 and L2 each fork an inner team with one more thread
    (L3, L4). Team communicators are reused by every repetition (matched by time)."""
    threads = {}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, 5, lambda i: "Master thread" if i == 0 else "OpenMP thread %d" % i)

        def team(name, members):
            return comm(trace, name, Paradigm.OPENMP, locs, members)

        outer, inner_a, inner_b = team("outer team", [0, 1, 2]), team("inner A", [1, 3]), team("inner B", [2, 4])
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("!$omp parallel @nest.c:5", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        par2 = d.region("!$omp parallel @nest.c:9", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        ibar = d.region("!$omp implicit barrier @nest.c:20", region_role=RegionRole.IMPLICIT_BARRIER,
                        paradigm=Paradigm.OPENMP)
        work = d.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        w = [trace.event_writer_from_location(l) for l in locs]
        key = lambda i, k: "%d/%d" % (locs[i]._ref, k)
        w[0].enter(100, main)
        root = [["start", 100]]

        def member(i, b, begin, bar, end, comm, region):
            w[i].thread_team_begin(b + begin, comm)
            w[i].enter(b + begin + 1, region)
            w[i].enter(b + begin + 2, work)
            w[i].leave(b + bar - 1, work)
            w[i].enter(b + bar, ibar)
            w[i].leave(b + end - 2, ibar)
            w[i].leave(b + end - 1, region)
            w[i].thread_team_end(b + end, comm)

        def master_fork(i, b, fork, comm, region):
            w[i].thread_fork(b + fork, Paradigm.OPENMP, 2)
            w[i].thread_team_begin(b + fork + 1, comm)
            w[i].enter(b + fork + 2, region)

        def master_join(i, b, bar, end, join, comm, region):
            w[i].enter(b + bar, ibar)
            w[i].leave(b + end - 2, ibar)
            w[i].leave(b + end - 1, region)
            w[i].thread_team_end(b + end, comm)
            w[i].thread_join(b + join, Paradigm.OPENMP)

        for r in range(reps):
            b = 1000 + 3000 * r
            master_fork(0, b, 0, outer, par)
            # L1: outer member, master of inner A with L3.
            w[1].thread_team_begin(b + 11, outer)
            w[1].enter(b + 12, par)
            master_fork(1, b, 100, inner_a, par2)
            member(3, b, 110, 200, 600, inner_a, par2)
            master_join(1, b, 400, 620, 630, inner_a, par2)
            w[1].enter(b + 650, ibar)
            w[1].leave(b + 898, ibar)
            w[1].leave(b + 899, par)
            w[1].thread_team_end(b + 900, outer)
            # L2: outer member, master of inner B with L4 (which ends before L2's barrier: a merged join).
            w[2].thread_team_begin(b + 12, outer)
            w[2].enter(b + 13, par)
            master_fork(2, b, 150, inner_b, par2)
            member(4, b, 160, 250, 300, inner_b, par2)
            master_join(2, b, 500, 520, 530, inner_b, par2)
            w[2].enter(b + 560, ibar)
            w[2].leave(b + 798, ibar)
            w[2].leave(b + 799, par)
            w[2].thread_team_end(b + 800, outer)
            master_join(0, b, 700, 910, 920, outer, par)
            k = r + 1
            threads[key(1, k)] = [["start", b + 11], ["fork", b + 100]] + join_chain(b + 400, [(b + 600, 3)]) + \
                [["end", b + 900]]
            threads[key(2, k)] = [["start", b + 12], ["fork", b + 150]] + join_chain(b + 500, [(b + 300, 4)]) + \
                [["end", b + 800]]
            threads[key(3, k)] = [["start", b + 110], ["end", b + 600]]
            threads[key(4, k)] = [["start", b + 160], ["end", b + 300]]
            root += [["fork", b], ["fork", b]] + join_chain(b + 700, [(b + 900, 1), (b + 800, 2)])
        w[0].leave(9000, main)
        threads[key(0, 0)] = root + [["end", 9000]]
    return {"origin": 100, "threads": threads}


def gen_omp_tasks(path, n=6, cutoff=2):
    """fib(n) with OpenMP tasks: the master creates the root task in a single region and waits at the
    implicit barrier; the other thread runs the whole task tree in its barrier, each task creating fib(k-1)
    and fib(k-2) (for k >= cutoff) and running them in its taskwait."""
    tasks = []  # in creation order: {parent, k, creation, runs, first_in, complete, waits}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, 2, lambda i: "Master thread" if i == 0 else "OpenMP thread 1")
        team = comm(trace, "team", Paradigm.OPENMP, locs, [0, 1])
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("!$omp parallel @fib.c:5", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        single = d.region("!$omp single @fib.c:6", region_role=RegionRole.SINGLE, paradigm=Paradigm.OPENMP)
        # The root task at line 9, fib(k-1) at line 10, fib(k-2) at line 11: a task's source is its own.
        task_r = {line: d.region("!$omp task @fib.c:%d" % line, region_role=RegionRole.TASK,
                                 paradigm=Paradigm.OPENMP) for line in (9, 10, 11)}
        tcreate = {line: d.region("!$omp create task @fib.c:%d" % line, region_role=RegionRole.TASK_CREATE,
                                  paradigm=Paradigm.OPENMP) for line in (9, 10, 11)}
        twait = d.region("!$omp taskwait @fib.c:14", region_role=RegionRole.TASK_WAIT, paradigm=Paradigm.OPENMP)
        ibar = d.region("!$omp implicit barrier @fib.c:20", region_role=RegionRole.IMPLICIT_BARRIER,
                        paradigm=Paradigm.OPENMP)
        w0, w1 = [trace.event_writer_from_location(l) for l in locs]
        generation = {0: 0, 1: 0}

        def create(w, rank, t, parent, k, line):
            generation[rank] += 1
            key = (rank, generation[rank])
            w.enter(t, tcreate[line])
            w.thread_task_create(t + 2, team, rank, key[1])
            w.leave(t + 5, tcreate[line])
            tasks.append({"parent": parent, "k": k, "created": t + 2, "creation": 5, "runs": [], "waits": [],
                          "key": key, "source": "fib.c:%d" % line})
            return len(tasks) - 1

        def run(i, t):
            """Task i was switched in at t on L1; returns the time it completes (written)."""
            me = tasks[i]
            me["first_in"] = t
            seg = t
            line = int(me["source"].split(":")[1])
            w1.enter(t + 1, task_r[line])
            t += 2 + 10 + 3 * me["k"]
            if me["k"] >= cutoff:
                kids = []
                for kk, ln in ((me["k"] - 1, 10), (me["k"] - 2, 11)):
                    kids.append(create(w1, 1, t, i, kk, ln))
                    t += 6
                w1.enter(t, twait)
                me["waits"].append(t)
                t += 1
                for c in kids:
                    me["runs"].append([seg, t])
                    w1.thread_task_switch(t, team, *tasks[c]["key"])
                    done = run(c, t)
                    t = done + 1
                    w1.thread_task_switch(t, team, *me["key"])
                    seg = t
                t += 2
                w1.leave(t, twait)
            t += 20 + me["k"]
            w1.leave(t, task_r[line])
            t += 1
            w1.thread_task_complete(t, team, *me["key"])
            me["runs"].append([seg, t])
            me["complete"] = t
            return t

        w0.enter(100, main)
        w0.thread_fork(200, Paradigm.OPENMP, 2)
        w0.thread_team_begin(201, team)
        w0.enter(202, par)
        w0.enter(210, single)
        root = create(w0, 0, 220, None, n, 9)
        w0.leave(240, single)
        w0.enter(250, ibar)
        w1.thread_team_begin(205, team)
        w1.enter(206, par)
        w1.enter(260, ibar)
        w1.thread_task_switch(300, team, *tasks[root]["key"])
        end = run(root, 300)
        w1.thread_task_switch(end + 1, team, 1, 0)
        w1.leave(end + 20, ibar)
        w1.leave(end + 21, par)
        w1.thread_team_end(end + 22, team)
        w0.leave(end + 25, ibar)
        w0.leave(end + 26, par)
        w0.thread_team_end(end + 27, team)
        w0.thread_join(end + 28, Paradigm.OPENMP)
        w0.leave(end + 100, main)
    for t in tasks:
        t["exec"] = sum(b - a for a, b in t["runs"])
        del t["key"]
    return {"origin": 100, "tasks": tasks, "barrier_enter": 250, "join": None}


def gen_hybrid(path, ranks=2):
    """MPI + OpenMP: each rank (a location group) forks a team of two once; every rank is a node with its own
    master thread."""
    threads, nodes = {}, {}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs, masters, _world = mpi_setup(trace, ranks, threads_per_rank=2)
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("!$omp parallel @hyb.c:7", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        ibar = d.region("!$omp implicit barrier @hyb.c:9", region_role=RegionRole.IMPLICIT_BARRIER,
                        paradigm=Paradigm.OPENMP)
        for r in range(ranks):
            m, wk = locs[2 * r], locs[2 * r + 1]
            team = comm(trace, "team %d" % r, Paradigm.OPENMP, locs, [2 * r, 2 * r + 1])
            wm, ww = trace.event_writer_from_location(m), trace.event_writer_from_location(wk)
            b = 100 + 10 * r
            wm.enter(b, main)
            wm.thread_fork(b + 100, Paradigm.OPENMP, 2)
            wm.thread_team_begin(b + 101, team)
            wm.enter(b + 102, par)
            ww.thread_team_begin(b + 110, team)
            ww.enter(b + 111, par)
            ww.enter(b + 400 + 50 * r, ibar)
            ww.leave(b + 600, ibar)
            ww.leave(b + 601, par)
            ww.thread_team_end(b + 602 + r, team)
            wm.enter(b + 300, ibar)
            wm.leave(b + 610, ibar)
            wm.leave(b + 611, par)
            wm.thread_team_end(b + 612, team)
            wm.thread_join(b + 620, Paradigm.OPENMP)
            wm.leave(b + 1000, main)
            threads["%d/0" % m._ref] = [["start", b], ["fork", b + 100]] + join_chain(b + 300, [(b + 602 + r, 1)]) + \
                [["end", b + 1000]]
            threads["%d/1" % wk._ref] = [["start", b + 110], ["end", b + 602 + r]]
            nodes["%d/0" % m._ref] = r
            nodes["%d/1" % wk._ref] = r
    return {"origin": 100, "threads": threads, "nodes": nodes}


def gen_bad(path):
    """Unmatched events: a create nobody begins, a begin nobody created, a wait for an unknown thread, a team
    end without a begin, a task completed that was never created; one good create/begin/end/wait."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, 3, lambda i: "Master thread" if i == 0 else "pthread %d" % i)
        contingent = comm(trace, "pthread contingent", Paradigm.PTHREAD, locs, [0, 1, 2])
        team = comm(trace, "team", Paradigm.OPENMP, locs, [0])
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        w = [trace.event_writer_from_location(l) for l in locs]
        w[0].enter(100, main)
        w[0].thread_create(200, contingent, 1)
        w[0].thread_create(210, contingent, 2)
        w[1].thread_begin(300, contingent, 1)
        w[1].thread_end(400, contingent, 1)
        w[2].thread_begin(310, contingent, 3)
        w[2].thread_end(410, contingent, 3)
        w[0].thread_team_end(450, team)
        w[0].thread_task_complete(460, team, 0, 7)
        w[0].thread_wait(500, contingent, 1)
        w[0].thread_wait(510, contingent, 9)
        w[0].leave(600, main)
    return {"origin": 100, "threads": 3, "warnings_at_least": 5}


def gen_tasks_bad(path):
    """Tasks with unmatched records: of three tasks created, one runs to completion, one is never run, one
    runs and never completes; a complete names a task never created."""
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, 2, lambda i: "Master thread" if i == 0 else "OpenMP thread 1")
        team = comm(trace, "team", Paradigm.OPENMP, locs, [0, 1])
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        task_r = d.region("!$omp task @bad.c:3", region_role=RegionRole.TASK, paradigm=Paradigm.OPENMP)
        w0, w1 = [trace.event_writer_from_location(l) for l in locs]
        w0.enter(100, main)
        w0.thread_fork(110, Paradigm.OPENMP, 2)
        w0.thread_team_begin(111, team)
        w1.thread_team_begin(112, team)
        for g in (1, 2, 3):
            w0.thread_task_create(120 + g, team, 0, g)
        w1.thread_task_switch(200, team, 0, 1)
        w1.enter(201, task_r)
        w1.leave(250, task_r)
        w1.thread_task_complete(251, team, 0, 1)
        w1.thread_task_switch(260, team, 0, 3)
        w1.thread_task_complete(300, team, 0, 9)
        w1.thread_team_end(400, team)
        w0.thread_team_end(410, team)
        w0.thread_join(420, Paradigm.OPENMP)
        w0.leave(500, main)
    return {"origin": 100, "grains": 2, "warnings_at_least": 3}


def gen_fib_team(path, fork=True, implicit_switches=True, n=20, cutoff=10, threads=8):
    """Task-parallel fib(n) on `threads` threads, as the OpenMP runtime schedules it: every thread has
    THREAD_TEAM_BEGIN/END; the master creates the root task in a single region; the threads take ready tasks
    (newest first) in their implicit barrier and in their taskwaits, so tasks are created on one thread and
    run and completed on another. `fork`: the master writes THREAD_FORK/JOIN around its team (Score-P's
    OpenMP adapter does; some writers do not). `implicit_switches`: a thread switches back to its implicit
    task (generation 0) after an explicit one completes in its barrier. Tasks are named (team, creating
    thread's rank, generation), generation counted per creating thread from 1, as OTF2 prescribes."""
    import collections
    import heapq
    tasks = []  # {key, parent, creator (rank), created, runs: [[from, to, rank]], complete}
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        locs = one_process(trace, threads, lambda i: "Master thread" if i == 0 else "OpenMP thread %d" % i)
        team = comm(trace, "team", Paradigm.OPENMP, locs, list(range(threads)))
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("!$omp parallel @fib.c:5", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        single = d.region("!$omp single @fib.c:6", region_role=RegionRole.SINGLE, paradigm=Paradigm.OPENMP)
        task_r = d.region("!$omp task @fib.c:10", region_role=RegionRole.TASK, paradigm=Paradigm.OPENMP)
        tcreate = d.region("!$omp create task @fib.c:10", region_role=RegionRole.TASK_CREATE,
                           paradigm=Paradigm.OPENMP)
        twait = d.region("!$omp taskwait @fib.c:14", region_role=RegionRole.TASK_WAIT, paradigm=Paradigm.OPENMP)
        ibar = d.region("!$omp implicit barrier @fib.c:20", region_role=RegionRole.IMPLICIT_BARRIER,
                        paradigm=Paradigm.OPENMP)
        w = [trace.event_writer_from_location(l) for l in locs]
        generation = [0] * threads
        ready = collections.deque()
        clock = [0] * threads
        stats = {"first": None, "last": 0}

        def at(i, t):
            clock[i] = max(clock[i], t)
            if stats["first"] is None:
                stats["first"] = clock[i]
            stats["last"] = max(stats["last"], clock[i])
            return clock[i]

        def create(i, parent, k):
            t = at(i, clock[i] + 1)
            w[i].enter(t, tcreate)
            generation[i] += 1
            key = (i, generation[i])
            w[i].thread_task_create(at(i, t + 2), team, *key)
            tasks.append({"key": key, "parent": parent, "creator": i, "k": k, "created": t + 2, "runs": [],
                          "complete": None})
            ready.append(len(tasks) - 1)
            w[i].leave(at(i, t + 5), tcreate)
            return len(tasks) - 1

        def run(i, c, resume_parent):
            """Thread i runs task c to completion (a generator: yields the time to go on at)."""
            me = tasks[c]
            # Threads run ahead of each other between yields: a task is taken no earlier than its creation.
            t = at(i, max(clock[i], me["created"]) + 1)
            w[i].thread_task_switch(t, team, *me["key"])
            seg = t
            w[i].enter(at(i, t + 1), task_r)
            at(i, clock[i] + 40 + 7 * me["k"])
            yield clock[i]
            if me["k"] >= cutoff:
                kids = [create(i, c, me["k"] - 1), create(i, c, me["k"] - 2)]
                w[i].enter(at(i, clock[i] + 1), twait)
                while not all(tasks[k]["complete"] is not None for k in kids):
                    if ready:
                        nxt = ready.pop()
                        me["runs"].append([seg, max(clock[i], tasks[nxt]["created"]) + 1, i])
                        yield from run(i, nxt, me["key"])
                        seg = at(i, clock[i] + 1)
                        w[i].thread_task_switch(seg, team, *me["key"])
                    else:
                        yield at(i, clock[i] + 10)
                # ... and a wait ends no earlier than the completions it waited for.
                w[i].leave(at(i, max([clock[i]] + [tasks[k]["complete"] for k in kids]) + 2), twait)
            at(i, clock[i] + 30 + 3 * me["k"])
            w[i].leave(clock[i], task_r)
            yield clock[i]
            t = at(i, clock[i] + 1)
            w[i].thread_task_complete(t, team, *me["key"])
            me["runs"].append([seg, t, i])
            me["complete"] = t
            yield t

        def thread(i):
            if i == 0:
                w[0].enter(at(0, 100), main)
                if fork:
                    w[0].thread_fork(at(0, 999), Paradigm.OPENMP, threads)
            b = at(i, 1000 + 3 * i)
            w[i].thread_team_begin(b, team)
            w[i].enter(at(i, b + 1), par)
            yield clock[i]
            if i == 0:
                w[0].enter(at(0, clock[0] + 5), single)
                create(0, None, n)
                w[0].leave(at(0, clock[0] + 3), single)
            w[i].enter(at(i, clock[i] + 2), ibar)
            while True:
                if ready:
                    yield from run(i, ready.pop(), None)
                    if implicit_switches:
                        w[i].thread_task_switch(at(i, clock[i] + 1), team, i, 0)
                elif all(t["complete"] is not None for t in tasks):
                    break
                else:
                    yield at(i, clock[i] + 10)
            # Everyone leaves the barrier once the last task completed.
            done = max(t["complete"] for t in tasks)
            w[i].leave(at(i, max(clock[i], done) + 5 + i), ibar)
            w[i].leave(at(i, clock[i] + 1), par)
            w[i].thread_team_end(at(i, clock[i] + 1), team)
            yield clock[i]

        gens = [thread(i) for i in range(threads)]
        heap = [(0, i) for i in range(threads)]
        while heap:
            _t, i = heapq.heappop(heap)
            try:
                heapq.heappush(heap, (next(gens[i]), i))
            except StopIteration:
                pass
        end = max(clock) + 10
        if fork:
            w[0].thread_join(at(0, end), Paradigm.OPENMP)
        w[0].leave(at(0, end + 50), main)
    for t in tasks:
        t["exec"] = sum(b - a for a, b, _ in t["runs"])
        t["key"] = list(t["key"])
    moved = sum(1 for t in tasks if t["runs"][0][2] != t["creator"])
    return {"origin": stats["first"], "last": stats["last"], "tasks": tasks, "threads_n": threads,
            "fork": fork, "implicit_switches": implicit_switches, "created_elsewhere": moved}


def gen_thread_programs(out):
    import os
    for name, gen in (("pthreads", gen_pthreads), ("omp_nested", gen_omp_nested), ("omp_tasks", gen_omp_tasks),
                      ("hybrid", gen_hybrid), ("bad", gen_bad),
                      ("tasks_bad", gen_tasks_bad),
                      ("fib8_fork_implicit", lambda p: gen_fib_team(p, True, True)),
                      ("fib8_fork", lambda p: gen_fib_team(p, True, False)),
                      ("fib8_nofork_implicit", lambda p: gen_fib_team(p, False, True)),
                      ("fib8_nofork", lambda p: gen_fib_team(p, False, False))):
        os.makedirs(out + "/" + name, exist_ok=True)
        expect = gen(out + "/" + name + "/trace")
        with open(out + "/" + name + "/expect.json", "w") as f:
            json.dump(expect, f)


def field(v):
    if hasattr(v, "_ref"):
        return v._ref
    if hasattr(v, "value") and not isinstance(v, (int, float)):
        return int(v.value) if isinstance(v.value, int) else str(v)
    if isinstance(v, (int, float, str)) or v is None:
        return v
    return str(v)


def dump(anchor):
    out = sys.stdout
    with otf2.reader.open(anchor) as trace:
        d = trace.definitions
        out.write(json.dumps({
            "kind": "definitions",
            "timer_resolution": trace.timer_resolution,
            "locations": [{"id": l._ref, "name": l.name, "group": l.group.name, "type": str(l.type)}
                          for l in d.locations],
            "regions": [r.name for r in d.regions],
        }) + "\n")
        for loc, ev in trace.events:
            rec = {"kind": "event", "type": type(ev).__name__, "location": loc._ref, "time": ev.time}
            for name in ("region", "receiver", "sender", "msg_tag", "msg_length", "request_id",
                         "collective_op", "root", "size_sent", "size_received", "model",
                         "number_of_requested_threads", "thread_team", "creating_thread", "generation_number",
                         "thread_contingent", "sequence_count", "task_id", "measurement_mode", "stop_time"):
                if hasattr(ev, name):
                    rec[name] = field(getattr(ev, name))
            comm = getattr(ev, "communicator", None)
            if comm is not None:
                rec["communicator"] = comm._ref
                for role in ("receiver", "sender", "root"):
                    rank = getattr(ev, role, None)
                    if isinstance(rank, int) and rank != 0xFFFFFFFF:
                        try:
                            rec[role + "_location"] = comm.location(rank)._ref
                        except Exception:
                            pass
            if hasattr(ev, "region"):
                rec["region_name"] = ev.region.name
            out.write(json.dumps(rec) + "\n")


def profile(anchor):
    """The region profile of the whole trace from the Enter/Leave records, one stack per location: a region's
    count, its inclusive time (only activations with no enclosing activation of the same region) and its
    exclusive time (minus the direct children's time), in ns from ticks (floats: compare within a ns per
    interval)."""
    stats = {}
    stacks = {}
    with otf2.reader.open(anchor) as trace:
        scale = 1e9 / trace.timer_resolution
        for loc, ev in trace.events:
            kind = type(ev).__name__
            if kind not in ("Enter", "Leave"):
                continue
            stack = stacks.setdefault(loc._ref, [])
            t = ev.time * scale
            if kind == "Enter":
                stack.append([ev.region.name, t, 0.0])
                continue
            if not stack:
                continue  # a LEAVE with nothing open closes nothing
            name, start, children = stack.pop()
            d = t - start
            s = stats.setdefault(name, [0, 0.0, 0.0])
            s[0] += 1
            s[2] += d - children
            if not any(f[0] == name for f in stack):
                s[1] += d
            if stack:
                stack[-1][2] += d
    print(json.dumps(stats))


def counts(anchor):
    """Counts per record kind as the official reader sees them, for the corpus test: events by class name,
    `MetricValues` (values over all METRIC records), `CancelledIsends`, and the explicit tasks named by
    (thread team, creating thread, generation) that have a create, a switch and a complete
    (`TasksComplete`; `TaskNames`: distinct names created)."""
    c = {}
    requests = set()
    cancelled = 0
    created, switched, completed = set(), set(), set()
    with otf2.reader.open(anchor) as trace:
        for loc, ev in trace.events:
            k = type(ev).__name__
            c[k] = c.get(k, 0) + 1
            if k == "Metric":
                c["MetricValues"] = c.get("MetricValues", 0) + len(ev.values)
            elif k == "MpiIsend":
                requests.add((loc._ref, ev.request_id))
            elif k == "MpiRequestCancelled" and (loc._ref, ev.request_id) in requests:
                cancelled += 1
            elif k in ("ThreadTaskCreate", "ThreadTaskSwitch", "ThreadTaskComplete"):
                key = (ev.thread_team._ref, ev.creating_thread, ev.generation_number)
                {"ThreadTaskCreate": created, "ThreadTaskSwitch": switched,
                 "ThreadTaskComplete": completed}[k].add(key)
    c["CancelledIsends"] = cancelled
    c["TaskNames"] = len(created)
    c["TasksComplete"] = len(created & switched & completed)
    print(json.dumps(c, sort_keys=True))


def sends(anchor, t0=None, t1=None):
    """The communication matrix from the send records (MpiSend, MpiIsend), independent of weft: per
    [sender process, receiver process] (location group names, the receiver's through the communicator)
    [count, bytes]. With T0 T1 (ns from the first event of the archive), only sends at t0 <= t < t1."""
    first = None
    rows = []
    with otf2.reader.open(anchor) as trace:
        scale = 1e9 / trace.timer_resolution
        for loc, ev in trace.events:
            if first is None or ev.time < first:
                first = ev.time
            kind = type(ev).__name__
            if kind not in ("MpiSend", "MpiIsend"):
                continue
            to = ev.communicator.location(ev.receiver).group.name
            rows.append((loc.group.name, to, ev.time, ev.msg_length))
    out = {}
    for frm, to, t, size in rows:
        rel = (t - first) * scale
        if t0 is not None and not (t0 <= rel < t1):
            continue
        c = out.setdefault(frm + "\t" + to, [0, 0])
        c[0] += 1
        c[1] += size
    print(json.dumps(out))


def iterate(anchor):
    start = time.perf_counter()
    n = 0
    with otf2.reader.open(anchor) as trace:
        for _loc, _ev in trace.events:
            n += 1
    print(json.dumps({"events": n, "seconds": time.perf_counter() - start}))


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        gen_mpi(argv[2] + "/mpi")
        gen_threads(argv[2] + "/threads")
    elif len(argv) >= 3 and argv[1] == "threads":
        gen_thread_programs(argv[2])
    elif len(argv) >= 4 and argv[1] == "tasks":
        gen_omp_tasks(argv[2], n=int(argv[3]))
    elif len(argv) >= 4 and argv[1] == "big":
        gen_big(argv[2], int(argv[3]))
    elif len(argv) >= 3 and argv[1] == "dump":
        dump(argv[2])
    elif len(argv) >= 3 and argv[1] == "counts":
        counts(argv[2])
    elif len(argv) >= 3 and argv[1] == "profile":
        profile(argv[2])
    elif len(argv) >= 3 and argv[1] == "metricsgen":
        gen_metrics(argv[2] + "/metrics")
    elif len(argv) >= 3 and argv[1] == "rocm":
        gen_rocm(argv[2] + "/rocm")
    elif len(argv) >= 3 and argv[1] == "metrics":
        metrics(argv[2])
    elif len(argv) >= 5 and argv[1] == "sends":
        sends(argv[2], float(argv[3]), float(argv[4]))
    elif len(argv) >= 3 and argv[1] == "sends":
        sends(argv[2])
    elif len(argv) >= 3 and argv[1] == "iterate":
        iterate(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
