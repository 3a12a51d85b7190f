"""Per-file and per-rank bytes read and written of a Darshan log as pydarshan (the `darshan` package,
darshan-util's own reader) reads it, for tests/io.rs: the totals `weft io` must give.

Usage: darshan_io.py LOG. Prints JSON {"layer", "read_bytes", "write_bytes", "operations", "files": {name:
[read, written, operations]}, "ranks": {rank: [read, written]}}. With DXT in the log: its POSIX segments (the
MPI-IO ones when it has no POSIX segment), each a read or write of its length. Without: every POSIX record
with both an open start and a close end (the records weft shows as intervals), its POSIX_BYTES_READ and
POSIX_BYTES_WRITTEN, its POSIX_READS + POSIX_WRITES operations.
"""

import json
import sys

import darshan


def main() -> None:
    report = darshan.DarshanReport(sys.argv[1], read_all=True)
    names = report.name_records
    files, ranks = {}, {}
    totals = [0, 0, 0]

    def add(name, rank, read, written, ops):
        f = files.setdefault(name, [0, 0, 0])
        r = ranks.setdefault(str(rank), [0, 0])
        f[0] += read
        f[1] += written
        f[2] += ops
        r[0] += read
        r[1] += written
        totals[0] += read
        totals[1] += written
        totals[2] += ops

    def segments(mod):
        return [
            (rec, op, seg)
            for rec in report.records[mod]
            for op in ("read", "write")
            for seg in rec[op + "_segments"]
        ]

    dxt = {m: segments(m) for m in ("DXT_POSIX", "DXT_MPIIO") if m in report.records}
    layer = None
    if dxt.get("DXT_POSIX"):
        layer, segs = "POSIX", dxt["DXT_POSIX"]
    elif dxt.get("DXT_MPIIO"):
        layer, segs = "MPI-IO", dxt["DXT_MPIIO"]
    if layer is not None:
        for rec, op, seg in segs:
            name = names.get(rec["id"], "record %#018x" % rec["id"])
            n = int(seg["length"])
            add(name, int(rec["rank"]), n if op == "read" else 0, n if op == "write" else 0, 1)
    elif "POSIX" in report.records:
        layer = "POSIX"
        df = report.records["POSIX"].to_df()
        c, fc = df["counters"], df["fcounters"]
        for k in range(len(c)):
            opened = float(fc["POSIX_F_OPEN_START_TIMESTAMP"][k])
            closed = float(fc["POSIX_F_CLOSE_END_TIMESTAMP"][k])
            if not (opened > 0.0 and closed >= opened):
                continue
            rid = int(c["id"][k])
            name = names.get(rid, "record %#018x" % rid)
            ops = int(c["POSIX_READS"][k]) + int(c["POSIX_WRITES"][k])
            add(name, int(c["rank"][k]), int(c["POSIX_BYTES_READ"][k]), int(c["POSIX_BYTES_WRITTEN"][k]), ops)
    print(json.dumps({"layer": layer, "read_bytes": totals[0], "write_bytes": totals[1], "operations": totals[2],
                      "files": files, "ranks": ranks}))


if __name__ == "__main__":
    main()
