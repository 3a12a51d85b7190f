"""Every DXT segment of a Darshan log as pydarshan (the `darshan` package, darshan-util's own reader) reads
it, for tests/darshan_oracle.rs.

Usage: darshan_dxt.py LOG. Prints JSON {"segments": [[module, rank, file, op, offset, size, start_ns, end_ns],
...]} sorted, with module "POSIX" or "MPI-IO", op "read" or "write", and times in ns on the job's clock:
job start + floor(seconds * 1e9 + 0.5) (the rounding weft's reader does, so that agreement is exact).
`--logs` instead lists the .darshan files the package ships (its test and example logs).
"""

import glob
import json
import math
import os
import sys

import darshan


def ns(start_ns: int, seconds: float) -> int:
    return start_ns + int(math.floor(seconds * 1e9 + 0.5))


def main() -> None:
    if sys.argv[1] == "--logs":
        root = os.path.dirname(darshan.__file__)
        print(json.dumps(sorted(glob.glob(os.path.join(root, "**", "*.darshan"), recursive=True))))
        return
    report = darshan.DarshanReport(sys.argv[1], read_all=True)
    job = report.metadata["job"]
    start = job["start_time_sec"] * 1_000_000_000 + job.get("start_time_nsec", 0)
    names = report.name_records
    out = []
    for mod, label in (("DXT_POSIX", "POSIX"), ("DXT_MPIIO", "MPI-IO")):
        if mod not in report.records:
            continue
        for rec in report.records[mod]:
            name = names.get(rec["id"], "record %#018x" % rec["id"])
            for op in ("write", "read"):
                for seg in rec[op + "_segments"]:
                    out.append([
                        label,
                        int(rec["rank"]),
                        name,
                        op,
                        int(seg["offset"]),
                        int(seg["length"]),
                        ns(start, seg["start_time"]),
                        ns(start, seg["end_time"]),
                    ])
    out.sort()
    print(json.dumps({"segments": out}))


if __name__ == "__main__":
    main()
