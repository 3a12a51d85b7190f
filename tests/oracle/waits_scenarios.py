#!/usr/bin/env python3
"""MPI runs with wait states known by construction, written with the official OTF2 writer (PyPI `otf2`).

  waits_scenarios.py OUTDIR     write each scenario into OUTDIR/<name>/ (anchor traces.otf2) with expected.json:
                                {"patterns": {key: {total_ns, instances, per_location, by_region}} for every
                                pattern `weft waits --json` reports, "total_wait_ns"}, and its Paraver twin
                                (twin.prv, .pcf, .row: the same run as Extrae writes it); prints the names

Each scenario states its waits as it builds the run: the times are chosen, and each wait is written down from them
by the definitions of issue #53 (docs/diagnosis.md), not computed by an analysis. Timer resolution 1e9: ticks are
ns. Every rank runs `main` around its calls; MPI_COMM_WORLD is a COMM_GROUP over a COMM_LOCATIONS group, and
MPI_COMM_SELF a communicator whose group is empty (of type COMM_SELF), as Score-P writes them.
"""
import json
import os
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationType, Paradigm, RegionRole

PATTERNS = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce",
            "omp_barrier", "nccl_collective", "gpu_synchronize", "thread_wait"]
UNDEFINED = 0xFFFFFFFF

ROLES = {
    "main": (RegionRole.FUNCTION, Paradigm.USER),
    "compute": (RegionRole.FUNCTION, Paradigm.USER),
    "MPI_Barrier": (RegionRole.BARRIER, Paradigm.MPI),
    "MPI_Allreduce": (RegionRole.COLL_ALL2ALL, Paradigm.MPI),
    "MPI_Alltoall": (RegionRole.COLL_ALL2ALL, Paradigm.MPI),
    "MPI_Iallreduce": (RegionRole.COLL_ALL2ALL, Paradigm.MPI),
    "MPI_Ibarrier": (RegionRole.BARRIER, Paradigm.MPI),
    "MPI_Bcast": (RegionRole.COLL_ONE2ALL, Paradigm.MPI),
    "MPI_Reduce": (RegionRole.COLL_ALL2ONE, Paradigm.MPI),
}
OPS = {
    "MPI_Barrier": CollectiveOp.BARRIER,
    "MPI_Ibarrier": CollectiveOp.BARRIER,
    "MPI_Allreduce": CollectiveOp.ALLREDUCE,
    "MPI_Iallreduce": CollectiveOp.ALLREDUCE,
    "MPI_Alltoall": CollectiveOp.ALLTOALL,
    "MPI_Bcast": CollectiveOp.BCAST,
    "MPI_Reduce": CollectiveOp.REDUCE,
}


class Run:
    """One archive being written, with the waits its scenario states."""

    def __init__(self, out, name, ranks):
        self.dir = os.path.join(out, name)
        self.ranks = ranks
        self._ctx = otf2.writer.open(self.dir, timer_resolution=1000000000)
        self.trace = self._ctx.__enter__()
        d = self.trace.definitions
        root = d.system_tree_node("machine")
        node = d.system_tree_node("node0", parent=root)
        locs = []
        for r in range(ranks):
            g = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
            locs.append(d.location("Master thread", group=g, type=LocationType.CPU_THREAD))
        d.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                members=locs)
        world_group = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                              members=list(range(ranks)))
        self.world = d.comm("MPI_COMM_WORLD", group=world_group)
        self_group = d.group("MPI_COMM_SELF group", group_type=GroupType.COMM_SELF, paradigm=Paradigm.MPI,
                             members=[])
        self.self_comm = d.comm("MPI_COMM_SELF", group=self_group)
        self.w = [self.trace.event_writer_from_location(l) for l in locs]
        self._regions = {}
        self.waits = []  # (pattern, rank, region name, ns)
        # What was written, for the Paraver twin: (time, rank, what, fields...), per rank in time order.
        self.log = []

    def region(self, name):
        if name not in self._regions:
            role, paradigm = ROLES.get(name, (RegionRole.POINT2POINT, Paradigm.MPI))
            self._regions[name] = self.trace.definitions.region(name, region_role=role, paradigm=paradigm)
        return self._regions[name]

    def expect(self, pattern, rank, region, ns):
        assert ns > 0, "a wait is positive"
        self.waits.append((pattern, rank, region, ns))

    # Calls: each writes ENTER, its records, LEAVE on rank r.
    def enter(self, r, name, t):
        self.w[r].enter(t, self.region(name))
        self.log.append((t, r, "enter", name))

    def leave(self, r, name, t):
        self.w[r].leave(t, self.region(name))
        self.log.append((t, r, "leave", name))

    def _peer(self, r, rank, comm):
        """The rank in MPI_COMM_WORLD of `rank` in `comm`."""
        return r if comm is self.self_comm else rank

    def send(self, r, enter, leave, to, tag, comm=None, name="MPI_Send"):
        comm = comm or self.world
        self.enter(r, name, enter)
        self.w[r].mpi_send(enter + 1, to, comm, tag, 8)
        self.log.append((enter + 1, r, "send", self._peer(r, to, comm), comm is self.self_comm, tag))
        self.leave(r, name, leave)

    def isend(self, r, enter, leave, to, tag, request, comm=None):
        comm = comm or self.world
        self.enter(r, "MPI_Isend", enter)
        self.w[r].mpi_isend(enter + 1, to, comm, tag, 8, request)
        self.log.append((enter + 1, r, "send", self._peer(r, to, comm), comm is self.self_comm, tag))
        self.leave(r, "MPI_Isend", leave)

    def recv(self, r, enter, leave, frm, tag, comm=None, name="MPI_Recv"):
        comm = comm or self.world
        self.enter(r, name, enter)
        self.w[r].mpi_recv(leave - 1, frm, comm, tag, 8)
        self.log.append((leave - 1, r, "recv", self._peer(r, frm, comm), comm is self.self_comm, tag, enter))
        self.leave(r, name, leave)

    def irecv(self, r, enter, leave, request):
        self.enter(r, "MPI_Irecv", enter)
        self.w[r].mpi_irecv_request(enter + 1, request)
        self.log.append((enter + 1, r, "post", request))
        self.leave(r, "MPI_Irecv", leave)

    def wait(self, r, enter, leave, completions, name="MPI_Wait"):
        """completions: [(time, "irecv", sender, tag, request) or (time, "isend", request)] inside the call."""
        self.enter(r, name, enter)
        for c in completions:
            if c[1] == "irecv":
                t, _, frm, tag, req = c
                self.w[r].mpi_irecv(t, frm, self.world, tag, 8, req)
                self.log.append((t, r, "complete", frm, False, tag, req))
            else:
                t, _, req = c
                self.w[r].mpi_isend_complete(t, req)
        self.leave(r, name, leave)

    def collective(self, r, name, enter, leave, root=UNDEFINED, comm=None):
        comm = comm or self.world
        self.enter(r, name, enter)
        self.w[r].mpi_collective_begin(enter + 1)
        self.log.append((enter + 1, r, "collective", comm is self.self_comm, root))
        self.w[r].mpi_collective_end(leave - 1, OPS[name], comm, root, 8, 8)
        self.leave(r, name, leave)

    def compute(self, r, enter, leave):
        self.enter(r, "compute", enter)
        self.leave(r, "compute", leave)

    def close(self):
        self._ctx.__exit__(None, None, None)
        n = self.ranks
        pats = {p: {"total_ns": 0, "instances": 0, "per_location": [0] * n, "by_region": {}} for p in PATTERNS}
        for pattern, rank, region, ns in self.waits:
            p = pats[pattern]
            p["total_ns"] += ns
            p["instances"] += 1
            p["per_location"][rank] += ns
            p["by_region"][region] = p["by_region"].get(region, 0) + ns
        for p in pats.values():
            p["by_region"] = [{"name": k, "ns": v}
                              for k, v in sorted(p["by_region"].items(), key=lambda kv: (-kv[1], kv[0]))]
        expected = {"patterns": pats, "total_wait_ns": sum(w[3] for w in self.waits)}
        with open(os.path.join(self.dir, "expected.json"), "w") as f:
            json.dump(expected, f, indent=1)
        write_paraver(self, os.path.join(self.dir, "twin"))


# The Paraver twin: the same run as Extrae would write it (one thread per task, times in ns). User functions are
# type 60000019, point-to-point calls 50000001, collectives 50000002 (values named in the .pcf); a message is one
# communication record (logical send: the send record; logical receive: when the receive was posted, the
# MPI_Recv's enter or the MPI_Irecv's request; physical receive: the receive's completion record), paired as
# MPI pairs them (per channel first in, first out, receives in posting order); a collective member is a global
# communication record (`4:`) at its begin, communicator 1 (world) or 2 + rank (a rank's MPI_COMM_SELF), with
# its root task. What a .prv cannot say: cancelled sends, the non-blocking collective records of OTF2 3.
USER = ("main", "compute")
COLLECTIVE_TYPE, P2P_TYPE, USER_TYPE = 50000002, 50000001, 60000019


def write_paraver(run, stem):
    names = sorted({e[3] for e in run.log if e[2] == "enter"})
    value = {n: i + 1 for i, n in enumerate(names)}

    def type_of(name):
        if name in USER:
            return USER_TYPE
        return COLLECTIVE_TYPE if name in OPS else P2P_TYPE

    lines = []  # (time, seq, text)
    seq = 0

    def who(r):
        return "%d:1:%d:1" % (r + 1, r + 1)

    def line(t, text):
        nonlocal seq
        lines.append((t, seq, text))
        seq += 1

    # Pair each receive with its send: per channel (sender, receiver, self?, tag) FIFO, receives by posting.
    sends, recvs, posted = {}, {}, {}
    post_order = [0] * run.ranks
    for e in run.log:
        t, r, what = e[0], e[1], e[2]
        if what == "send":
            sends.setdefault((r, e[3], e[4], e[5]), []).append(t)
        elif what == "post":
            posted[(r, e[3])] = (t, post_order[r])
            post_order[r] += 1
        elif what == "recv":
            recvs.setdefault((e[3], r, e[4], e[5]), []).append((post_order[r], e[6], t))
            post_order[r] += 1
        elif what == "complete":
            order, t_post = posted[(r, e[6])][1], posted[(r, e[6])][0]
            recvs.setdefault((e[3], r, e[4], e[5]), []).append((order, t_post, t))
    for ch, rs in recvs.items():
        for t_send, (_, t_post, t_recv) in zip(sends.get(ch, []), sorted(rs)):
            frm, to, _, tag = ch
            line(t_send, "3:%s:%d:%d:%s:%d:%d:8:%d" % (who(frm), t_send, t_send, who(to), t_post, t_recv, tag))
    stacks = [[] for _ in range(run.ranks)]
    for e in run.log:
        t, r, what = e[0], e[1], e[2]
        if what == "enter":
            stacks[r].append(e[3])
            line(t, "2:%s:%d:%d:%d" % (who(r), t, type_of(e[3]), value[e[3]]))
        elif what == "leave":
            stacks[r].pop()
            line(t, "2:%s:%d:%d:0" % (who(r), t, type_of(e[3])))
        elif what == "collective":
            comm = 2 + r if e[3] else 1
            root = "" if e[4] == UNDEFINED else ":%d" % e[4]  # the root's rank (Extrae: root_rank)
            line(t, "4:%s:%d:%d:8:8:0%s" % (who(r), t, comm, root))
    lines.sort(key=lambda x: (x[0], x[1]))
    end = max(t for t, _, _ in lines)
    n = run.ranks
    with open(stem + ".prv", "w") as f:
        f.write("#Paraver (07/12/26 at 00:00):%d_ns:1(%d):1:%d(%s),1\n"
                % (end, n, n, ",".join("1:1" for _ in range(n))))
        f.write("c:1:1:%d:%s\n" % (n, ":".join(str(k + 1) for k in range(n))))
        for _, _, text in lines:
            f.write(text + "\n")
    with open(stem + ".pcf", "w") as f:
        f.write("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\n")
        f.write("STATES\n0    Idle\n1    Running\n\n\n")
        for ty, label in ((USER_TYPE, "User function"), (P2P_TYPE, "MPI Point-to-point"),
                          (COLLECTIVE_TYPE, "MPI Collective Comm")):
            f.write("EVENT_TYPE\n0    %d    %s\nVALUES\n0   %s\n" % (ty, label, "End" if ty == USER_TYPE
                                                                     else "Outside MPI"))
            for name in names:
                if type_of(name) == ty:
                    f.write("%d   %s\n" % (value[name], name))
            f.write("\n\n")
    with open(stem + ".row", "w") as f:
        f.write("LEVEL CPU SIZE %d\n" % n)
        f.write("".join("%d.node1\n" % (k + 1) for k in range(n)))
        f.write("\nLEVEL NODE SIZE 1\nnode1\n\nLEVEL TASK SIZE %d\n" % n)
        f.write("".join("MPI Rank %d\n" % k for k in range(n)))
        f.write("\nLEVEL THREAD SIZE %d\n" % n)
        f.write("Master thread\n" * n)


def scenario(out, name, ranks, end=100000):
    """A Run with `main` entered on every rank at 0 and left at `end` by finish()."""
    run = Run(out, name, ranks)
    for r in range(ranks):
        run.enter(r, "main", 0)
    run.end = end
    return run


def finish(run):
    for r in range(run.ranks):
        run.leave(r, "main", run.end)
    run.close()


def late_sender(out):
    """Rank 1 receives three messages from rank 0 in MPI_Recv; the sends enter 200, 0 and 35 ns after the
    receives (the second as the receive is posted: no wait on either side). A second pair (2 -> 3) with
    MPI_Ssend: a late sender too."""
    run = scenario(out, "late_sender", 4)
    for it, late in enumerate([200, 0, 35]):
        base = 1000 * (it + 1)
        recv_enter = base + 100
        send_enter = recv_enter + late
        run.send(0, send_enter, send_enter + 20, 1, 7)
        run.recv(1, recv_enter, max(recv_enter, send_enter) + 30, 0, 7)
        if late > 0:
            run.expect("late_sender", 1, "MPI_Recv", late)
    run.send(2, 5000, 5020, 3, 1, name="MPI_Ssend")
    run.recv(3, 4990, 5040, 2, 1)
    run.expect("late_sender", 3, "MPI_Recv", 10)
    finish(run)


def late_receiver(out):
    """Rank 0's MPI_Send enters 250 ns before rank 1 posts the receive (MPI_Recv), and leaves after it; a
    second send entered as its receive is posted (no wait on either side), and an MPI_Rsend whose receive is
    40 ns late."""
    run = scenario(out, "late_receiver", 2)
    run.send(0, 100, 400, 1, 3)
    run.compute(1, 100, 340)
    run.recv(1, 350, 420, 0, 3)
    run.expect("late_receiver", 0, "MPI_Send", 250)
    run.recv(1, 1000, 1050, 0, 4)
    run.send(0, 1000, 1040, 1, 4)
    run.send(0, 2000, 2100, 1, 5, name="MPI_Rsend")
    run.recv(1, 2040, 2110, 0, 5)
    run.expect("late_receiver", 0, "MPI_Rsend", 40)
    finish(run)


def wait_at_barrier(out):
    """Four ranks enter MPI_Barrier at 100, 130, 110, 170 and leave together at 180; twice, the second time
    with rank 0 last."""
    run = scenario(out, "wait_at_barrier", 4)
    for base, enters in ((0, [100, 130, 110, 170]), (1000, [190, 100, 150, 100])):
        last = max(enters)
        for r, e in enumerate(enters):
            run.compute(r, base + 10, base + e)
            run.collective(r, "MPI_Barrier", base + e, base + last + 10)
            if last - e > 0:
                run.expect("wait_at_barrier", r, "MPI_Barrier", last - e)
    finish(run)


def wait_at_nxn(out):
    """MPI_Allreduce then MPI_Alltoall over three ranks, each with its last to enter."""
    run = scenario(out, "wait_at_nxn", 3)
    for base, name, enters in ((0, "MPI_Allreduce", [100, 400, 250]), (1000, "MPI_Alltoall", [300, 120, 100])):
        last = max(enters)
        for r, e in enumerate(enters):
            run.compute(r, base + 10, base + e)
            run.collective(r, name, base + e, base + last + 50)
            if last - e > 0:
                run.expect("wait_at_nxn", r, name, last - e)
    finish(run)


def late_broadcast(out):
    """MPI_Bcast with root 2 entering at 200: ranks 0 and 1 entered at 100 and 150 wait, rank 3 (250) does not,
    nor the root. Then a broadcast from root 0 that enters first: no wait."""
    run = scenario(out, "late_broadcast", 4)
    enters = [100, 150, 200, 250]
    for r, e in enumerate(enters):
        run.compute(r, 10, e)
        run.collective(r, "MPI_Bcast", e, 300, root=2)
        if r != 2 and enters[2] - e > 0:
            run.expect("late_broadcast", r, "MPI_Bcast", enters[2] - e)
    for r, e in enumerate([1000, 1100, 1200, 1300]):
        run.collective(r, "MPI_Bcast", e, 1400, root=0)
    finish(run)


def early_reduce(out):
    """MPI_Reduce to root 0 entering at 100; the others at 160, 130, 220: the root waits for the first (130).
    A second reduce to root 1, entered last: no wait."""
    run = scenario(out, "early_reduce", 4)
    enters = [100, 160, 130, 220]
    for r, e in enumerate(enters):
        run.compute(r, 10, e)
        run.collective(r, "MPI_Reduce", e, 300, root=0)
    run.expect("early_reduce", 0, "MPI_Reduce", 130 - 100)
    for r, e in enumerate([1000, 1500, 1100, 1200]):
        run.collective(r, "MPI_Reduce", e, 1600, root=1)
    finish(run)


def waitall(out):
    """Rank 0 posts three MPI_Irecv (from ranks 1, 2, 3) and completes them in one MPI_Waitall entered at 1000;
    the senders enter at 1150 (MPI_Isend), 1280 (MPI_Isend) and 1200 (MPI_Send): the wait is up to the latest,
    280 ns. Rank 1 then waits in an MPI_Waitall for its send alone (no receive: no late sender)."""
    run = scenario(out, "waitall", 4)
    for k, frm in enumerate((1, 2, 3)):
        run.irecv(0, 100 + 10 * k, 105 + 10 * k, request=k + 1)
    run.wait(0, 1000, 1400, [(1300, "irecv", 2, 0, 2), (1310, "irecv", 1, 0, 1), (1320, "irecv", 3, 0, 3)],
             name="MPI_Waitall")
    run.expect("late_sender", 0, "MPI_Waitall", 280)
    run.isend(1, 1150, 1160, 0, 0, request=9)
    run.wait(1, 1170, 1500, [(1490, "isend", 9)], name="MPI_Waitall")
    run.isend(2, 1280, 1290, 0, 0, request=4)
    run.wait(2, 1300, 1310, [(1305, "isend", 4)])
    # The blocking send's receive was posted at 120: no late receiver.
    run.send(3, 1200, 1250, 0, 0)
    finish(run)


def capped(out):
    """Waits capped by their call's leave (clocks that disagree): rank 1's MPI_Recv [100, 150] completes a
    message whose send entered at 300 (w = 50, not 200); rank 0's MPI_Send [1000, 1030] matches a receive posted
    at 1400 (w = 30, not 400)."""
    run = scenario(out, "capped", 2)
    run.compute(0, 10, 300)
    run.send(0, 300, 320, 1, 1)
    run.recv(1, 100, 150, 0, 1)
    run.expect("late_sender", 1, "MPI_Recv", 50)
    run.send(0, 1000, 1030, 1, 2)
    run.compute(1, 200, 1400)
    run.recv(1, 1400, 1450, 0, 2)
    run.expect("late_receiver", 0, "MPI_Send", 30)
    finish(run)


def irecv_late(out):
    """Rank 0's MPI_Send [100, 500]; rank 1 posts MPI_Irecv at 300 and completes it in MPI_Wait [400, 490]: the
    late receiver's time runs to the MPI_Irecv's enter (200 ns), not the MPI_Wait's (300)."""
    run = scenario(out, "irecv_late", 2)
    run.send(0, 100, 500, 1, 6)
    run.compute(1, 10, 300)
    run.irecv(1, 300, 305, request=11)
    run.compute(1, 310, 390)
    run.wait(1, 400, 490, [(480, "irecv", 0, 6, 11)])
    run.expect("late_receiver", 0, "MPI_Send", 200)
    finish(run)


def irecv_out_of_order(out):
    """MPI matches a channel's messages in the order its receives were posted, whatever order they complete in:
    rank 1 posts MPI_Irecv A (request 1) at 10 and B (request 2) at 20 on one channel, then waits for B first
    (MPI_Wait [300, 700], completed at 690) and A after (MPI_Wait [710, 720]). Rank 0's MPI_Isend calls enter at
    100 and 600: A takes the first message, B the second, so the wait for B is a late sender of 600 - 300."""
    run = scenario(out, "irecv_out_of_order", 2)
    run.isend(0, 100, 110, 1, 1, request=1)
    run.isend(0, 600, 610, 1, 1, request=2)
    run.wait(0, 620, 630, [(625, "isend", 1), (626, "isend", 2)], name="MPI_Waitall")
    run.irecv(1, 10, 15, request=1)
    run.irecv(1, 20, 25, request=2)
    run.wait(1, 300, 700, [(690, "irecv", 0, 1, 2)])
    run.expect("late_sender", 1, "MPI_Wait", 300)
    run.wait(1, 710, 720, [(715, "irecv", 0, 1, 1)])
    finish(run)


def self_comm(out):
    """Messages and collectives on MPI_COMM_SELF (an empty group: rank 0 is the caller). Each rank r sends itself
    a message eagerly (MPI_Send [1000 + 100 r, 1010 + 110 r]) and receives it later: the send's whole call is a
    late receiver (capped by its leave), 10 + 10 r ns. Each rank also calls MPI_Barrier and MPI_Allreduce on
    MPI_COMM_SELF at times far apart: alone in them, nobody waits. A world message 0 -> 1 after it all, its
    receiver 70 ns early (rank 1 waits)."""
    run = scenario(out, "self_comm", 3)
    for r in range(3):
        e = 1000 + 100 * r
        run.send(r, e, e + 10 + 10 * r, 0, 42, comm=run.self_comm)
        run.recv(r, e + 50, e + 60, 0, 42, comm=run.self_comm)
        run.expect("late_receiver", r, "MPI_Send", 10 + 10 * r)
        b = 2000 + 300 * r
        run.collective(r, "MPI_Barrier", b, b + 10, comm=run.self_comm)
        run.collective(r, "MPI_Allreduce", b + 100, b + 110, comm=run.self_comm)
    run.send(0, 4070, 4080, 1, 42)
    run.recv(1, 4000, 4090, 0, 42)
    run.expect("late_sender", 1, "MPI_Recv", 70)
    finish(run)


def nonblocking_collective(out):
    """Non-blocking collectives are left out: MPI_Iallreduce entered at 100 and 400 (with the collective records
    inside the call, as a blocking one has them), each completed in MPI_Wait; then MPI_Ibarrier recorded with the
    non-blocking request and completion records of OTF2 3. A blocking MPI_Allreduce after them still pairs its
    members in call order: rank 0 waits 60 ns."""
    run = scenario(out, "nonblocking_collective", 2)
    for r, e in enumerate([100, 400]):
        run.collective(r, "MPI_Iallreduce", e, e + 10)
        run.enter(r, "MPI_Wait", e + 50)
        run.leave(r, "MPI_Wait", 600)
    for r, e in enumerate([1000, 1300]):
        run.enter(r, "MPI_Ibarrier", e)
        run.w[r].non_blocking_collective_request(e + 1, 77)
        run.leave(r, "MPI_Ibarrier", e + 5)
        run.enter(r, "MPI_Wait", e + 10)
        run.w[r].non_blocking_collective_complete(1390, CollectiveOp.BARRIER, run.world, UNDEFINED, 0, 0, 77)
        run.leave(r, "MPI_Wait", 1400)
    for r, e in enumerate([2000, 2060]):
        run.collective(r, "MPI_Allreduce", e, 2100)
    run.expect("wait_at_nxn", 0, "MPI_Allreduce", 60)
    finish(run)


def no_wait(out):
    """Everything on time: receives posted when their sends enter, sends entered when their receives are
    posted, every collective entered at once by all (and a broadcast's root and a reduce's others no later than
    the rest): every pattern zero."""
    run = scenario(out, "no_wait", 3)
    for it in range(3):
        b = 1000 * (it + 1)
        run.send(0, b, b + 20, 1, it)
        run.recv(1, b, b + 30, 0, it)
        run.irecv(2, b, b + 5, request=it)
        run.isend(1, b + 40, b + 45, 2, it, request=100 + it)
        run.wait(1, b + 50, b + 60, [(b + 55, "isend", 100 + it)])
        run.wait(2, b + 40, b + 70, [(b + 60, "irecv", 1, it, it)])
        for r in range(3):
            run.collective(r, "MPI_Barrier", b + 100, b + 120)
            run.collective(r, "MPI_Allreduce", b + 200, b + 220)
            run.collective(r, "MPI_Bcast", b + 300, b + 320, root=1)
            run.collective(r, "MPI_Reduce", b + 400, b + 420, root=2)
    finish(run)


SCENARIOS = [late_sender, late_receiver, wait_at_barrier, wait_at_nxn, late_broadcast, early_reduce, waitall,
             capped, irecv_late, irecv_out_of_order, self_comm, nonblocking_collective, no_wait]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for s in SCENARIOS:
        s(argv[1])
    print("\n".join(s.__name__ for s in SCENARIOS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
