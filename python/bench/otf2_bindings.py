"""BENCHMARKS.md "Session 38: Python (#56)": an OTF2 archive into pandas with weft against the official
OTF2 Python bindings iterating its events, side by side in one run, each in its own process (wall time and
peak RSS from wait4).

    PYTHON python/bench/otf2_bindings.py ANCHOR [--skip-bindings]

PYTHON is one where weft is installed from a release build (`pip install ./python`); the bindings run
with .venv's Python (the official `otf2` package, scripts/setup.sh --browser).

weft: ``weft.open(ANCHOR).intervals().to_pandas()`` (every event decoded, ENTER/LEAVE paired, the model
built, the intervals table as a DataFrame). The bindings: ``tests/oracle/otf2_oracle.py iterate`` (every
event decoded into a Python object; no table built), which is a floor for a Python reader such as pipit's.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WEFT = """
import json, sys, time
t0 = time.perf_counter()
import weft
t = weft.open(sys.argv[1])
frame = t.intervals().to_pandas()
info = t.info()
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": len(frame), "events": info["events"]}))
"""


def run(argv):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    out = p.stdout.read()
    if status != 0:
        raise SystemExit(f"{argv}: exit status {status}")
    result = json.loads(out.strip().splitlines()[-1])
    result["wall_s"] = wall
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    return result


def main():
    anchor = sys.argv[1]
    py = sys.executable
    weft = run([py, "-c", WEFT, anchor])
    print(f"weft      {weft['wall_s']:.2f} s wall ({weft['seconds']:.2f} s in Python), {weft['rows']:,} intervals "
          f"from {weft['events']:,} events, {weft['events'] / weft['wall_s'] / 1e6:.2f} M events/s, "
          f"peak RSS {weft['peak_rss_mb']:.0f} MB")
    if "--skip-bindings" in sys.argv:
        return
    oracle = ROOT / ".venv" / "bin" / "python"
    bindings = run([str(oracle), str(ROOT / "tests" / "oracle" / "otf2_oracle.py"), "iterate", anchor])
    print(f"bindings  {bindings['wall_s']:.2f} s wall ({bindings['seconds']:.2f} s iterating), "
          f"{bindings['events']:,} events, {bindings['events'] / bindings['wall_s'] / 1e6:.2f} M events/s, "
          f"peak RSS {bindings['peak_rss_mb']:.0f} MB")
    print(f"weft is {bindings['wall_s'] / weft['wall_s']:.0f}x faster")


if __name__ == "__main__":
    main()
