#!/usr/bin/env python3
"""An independent count of a Charm++ Projections trace's records, for tests/projections.rs.

Only the standard library (gzip): it reads the folder's .sts (the file whose first line is PROJECTIONS_ID) and
the logs named after it (NAME.PE.log or NAME.PE.log.gz) line by line, without sharing code with weft's reader.

  projections_oracle.py counts DIR   one JSON object:
      processors   the .sts PROCESSORS
      entries      ENTRY lines in the .sts
      pes          PEs with a log
      records      per PE (by PE), the lines after the PROJECTIONS-RECORD header
      by_type      per record type (the first number of a line), over all logs
      processing   BEGIN_PROCESSING records (each an entry method's interval)
      messages     BEGIN_PROCESSING records whose (creating PE, event, entry) names a CREATION,
                   CREATION_BCAST or CREATION_MULTICAST record (event >= 0) in some log
  projections_oracle.py time DIR     parse DIR as `counts` does; print the seconds it took
"""
import collections
import gzip
import json
import os
import re
import sys
import time


def counts(d):
    names = sorted(os.listdir(d))
    sts = None
    for n in names:
        with open(os.path.join(d, n), "rb") as f:
            if f.read(14) == b"PROJECTIONS_ID":
                sts = n
                break
    assert sts, "no .sts"
    stem = sts[:-4] if sts.endswith(".sts") else sts
    processors = entries = 0
    for line in open(os.path.join(d, sts), encoding="utf-8", errors="replace"):
        w = line.split()
        if w and w[0] == "PROCESSORS":
            processors = int(w[1])
        if w and w[0] == "ENTRY":
            entries += 1
    pat = re.compile(re.escape(stem) + r"\.(\d+)\.log(\.gz)?$")
    logs = {}
    for n in names:
        m = pat.match(n)
        if m:
            logs.setdefault(int(m.group(1)), n)
    records = []
    by_type = collections.Counter()
    creations = set()
    begins = []
    for pe in sorted(logs):
        path = os.path.join(d, logs[pe])
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        assert lines[0].startswith("PROJECTIONS-RECORD")
        body = [l.split() for l in lines[1:] if l.strip()]
        records.append(len(body))
        for w in body:
            t = int(w[0])
            by_type[t] += 1
            if t in (1, 20, 21) and int(w[4]) >= 0:
                creations.add((pe, int(w[4]), int(w[2])))
            if t == 2:
                begins.append((int(w[5]), int(w[4]), int(w[2])))
    messages = sum(1 for k in begins if k[0] >= 0 and k[1] >= 0 and k in creations)
    return {
        "processors": processors,
        "entries": entries,
        "pes": len(logs),
        "records": records,
        "by_type": {str(k): v for k, v in sorted(by_type.items())},
        "processing": by_type[2],
        "messages": messages,
    }


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("counts", "time"):
        sys.exit(__doc__)
    if sys.argv[1] == "counts":
        print(json.dumps(counts(sys.argv[2])))
    else:
        t = time.perf_counter()
        c = counts(sys.argv[2])
        print(json.dumps({"seconds": time.perf_counter() - t, "records": sum(c["records"])}))


if __name__ == "__main__":
    main()
