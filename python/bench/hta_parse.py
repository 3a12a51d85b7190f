#!/usr/bin/env python3
# Usage: .venv/bin/python python/bench/hta_parse.py FOLDER... (folders of per-rank Kineto traces, as HTA's
# trace_dir; each is read once to warm up, then timed). BENCHMARKS.md, "Session 39: Python notebooks".
# weft.open(...).intervals().to_pandas() for each file against HTA's TraceAnalysis(trace_dir) on the same
# Kineto folders: each tool in a fresh process, warmed up first on the folder itself (imports, first-use costs
# left out); best of 3 runs; memory as the growth of the process's peak RSS over the warmed-up process.
import subprocess
import sys
code_weft = """
import resource, time, sys, glob, weft
def run(d):
    for f in sorted(glob.glob(d + '/*')):
        weft.open(f).intervals().to_pandas()
run(sys.argv[2]); base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
best = 1e9
for _ in range(3):
    t0 = time.perf_counter(); run(sys.argv[1]); best = min(best, time.perf_counter() - t0)
print(best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
"""
code_hta = """
import resource, time, sys, logging, warnings
logging.disable(logging.CRITICAL); warnings.filterwarnings('ignore')
from hta.trace_analysis import TraceAnalysis
TraceAnalysis(trace_dir=sys.argv[2]); base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
best = 1e9
for _ in range(3):
    t0 = time.perf_counter(); TraceAnalysis(trace_dir=sys.argv[1]); best = min(best, time.perf_counter() - t0)
print(best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
"""
for d in sys.argv[1:]:
    res = {}
    for name, code in (("weft", code_weft), ("hta", code_hta)):
        out = subprocess.run([sys.executable, "-c", code, d, d], capture_output=True, text=True, check=True)
        secs, rss = out.stdout.split()
        res[name] = (float(secs), int(rss))
    w, h = res["weft"], res["hta"]
    print(f"| {d.rsplit('/',1)[-1]} | {w[0]*1000:.1f} ms, +{w[1]/1024:.1f} MiB | {h[0]*1000:.0f} ms, +{h[1]/1024:.1f} MiB | {h[0]/w[0]:.0f}x |")
