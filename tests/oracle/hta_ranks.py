"""The per-rank folder as HTA's loader sees it (tests/ranks_oracle.rs): every rank HTA finds (by its regex on
"rank"), and each one's complete events after HTA's alignment of the ranks (`Trace._align_all_ranks`: the
earliest event of all ranks at 0; `align_and_filter_trace` would also drop GPU kernels without a CPU launch).

Usage: hta_ranks.py FOLDER. Prints JSON {"min_ts": us, "ranks": {rank: [[name, ts_us, dur_us], ...]}}, each
rank's events sorted. HTA rounds ts up to whole microseconds; the folders compared hold whole microseconds.
"""

import json
import logging
import sys

from hta.common.trace import Trace

logging.disable(logging.WARNING)


def main() -> None:
    trace = Trace(trace_dir=sys.argv[1])
    trace.parse_traces(use_multiprocessing=False)
    trace._align_all_ranks()
    names = trace.symbol_table.get_sym_table()
    ranks = {}
    for rank, df in trace.get_all_traces().items():
        rows = [
            [names[int(n)], int(ts), int(dur)]
            for n, ts, dur in zip(df["name"], df["ts"], df["dur"])
            if int(dur) >= 0
        ]
        rows.sort()
        ranks[str(rank)] = rows
    print(json.dumps({"min_ts": int(trace.min_ts), "ranks": ranks}))


if __name__ == "__main__":
    main()
