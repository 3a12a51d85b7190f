#!/usr/bin/env python3
"""Oracle for weft's OTF2 reader, using the official OTF2 library (PyPI `otf2`).

  otf2_oracle.py gen DIR            write archives covering every record kind weft reads into DIR/<name>/
  otf2_oracle.py big DIR N          write one archive of about N events (benchmark input) into DIR
  otf2_oracle.py dump ANCHOR        print the archive as JSON lines, read by the official reader
  otf2_oracle.py iterate ANCHOR     iterate all events with the official reader; print count and seconds

Generated traces use timer resolution 1e9 unless said otherwise, so times are nanoseconds.
"""
import json
import sys
import time

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationType, MeasurementMode, Paradigm, RegionRole, Type)


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
    elif len(argv) >= 4 and argv[1] == "big":
        gen_big(argv[2], int(argv[3]))
    elif len(argv) >= 3 and argv[1] == "dump":
        dump(argv[2])
    elif len(argv) >= 3 and argv[1] == "iterate":
        iterate(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
