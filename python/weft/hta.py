"""HTA's first analyses (Holistic Trace Analysis, for PyTorch/Kineto traces) over weft's tables, with HTA's
column names and numbers: ``temporal_breakdown`` (``TraceAnalysis.get_temporal_breakdown``),
``comm_comp_overlap`` (``get_comm_comp_overlap``), ``gpu_kernel_breakdown`` (``get_gpu_kernel_breakdown``) and
``idle_time_breakdown`` (``get_idle_time_breakdown``), over a folder of per-rank Kineto traces (or one trace).

As HTA computes them: a rank's GPU events are those with a ``stream`` arg (kernels, memory copies and sets,
CUDA syncs), and where the run has several ProfilerStep annotations only those launched (by ``correlation``)
before the last step starts; times are in us, a start rounded
up and an end rounded down to the us (HTA's rounding of ns-resolution traces); a kernel is COMMUNICATION when
its name matches ``^ncclKernel|^ncclDevKernel``, MEMORY when ``^Memcpy|^Memset|^dma``, COMPUTATION unless it
matches ``^nccl.*Kernel|.*Memcpy|Memset|.*Sync``; intervals of a kind are merged before they are summed.
The rank is the trace's ``distributedInfo.rank`` (the file's order in the folder where it has none).
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import Dict, List, Optional, Union

import numpy as np

__all__ = ["temporal_breakdown", "comm_comp_overlap", "gpu_kernel_breakdown", "idle_time_breakdown", "gpu_kernels", "kernel_type"]

_NCCL = re.compile(r"^ncclKernel|^ncclDevKernel")
_MEMORY = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
_NOT_COMPUTE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")
_RANK = re.compile(rb'"distributedInfo"\s*:\s*\{[^}]*"rank"\s*:\s*(\d+)')


def kernel_type(name: str) -> str:
    """HTA's kernel type of a GPU event's name: COMMUNICATION, MEMORY, COMPUTATION or OTHER."""
    if _NCCL.match(name):
        return "COMMUNICATION"
    if _MEMORY.match(name):
        return "MEMORY"
    if not _NOT_COMPUTE.match(name):
        return "COMPUTATION"
    return "OTHER"


def _files(path) -> List[Path]:
    p = Path(os.fspath(path))
    if p.is_dir():
        return sorted(f for f in p.iterdir() if f.is_file() and (f.name.endswith(".json") or f.name.endswith(".json.gz")))
    return [p]


def _rank(path: Path, default: int) -> int:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        m = _RANK.search(f.read(1 << 20))
    return int(m.group(1)) if m else default


def _events(trace):
    """Every interval as HTA's trace DataFrame has it: name, stream and correlation (the Kineto args; -1
    where absent), ts and end in us (HTA's rounding of ns-resolution traces: the start up, the end down)."""
    import pandas as pd

    iv = trace.intervals()
    names = trace.regions().column("name").to_numpy(zero_copy_only=False).astype(str)
    start = iv.column("start_ns").to_numpy().astype(np.int64) + trace.origin_ns
    end = start + iv.column("dur_ns").to_numpy().astype(np.int64)

    def number(key):
        return np.array([_int(v) for v in trace._t.interval_arg(key)], dtype=np.int64)

    region = iv.column("region").to_numpy()
    cats = trace.regions().column("category").to_numpy(zero_copy_only=False).astype(str)
    return pd.DataFrame({
        "name": names[region],
        "cat": cats[region],
        "stream": number("stream"),
        "correlation": number("correlation"),
        "ts": -(-start // 1000),
        "end": end // 1000,
    })


_SYNC = ("Event Sync", "Context Sync")


def _int(v) -> int:
    """An arg's number (``7``, ``7.0``, a quoted ``"7"``), as HTA's parser reads it; -1 where there is none
    or it is no number (ROCm's runtime events carry ``"stream": "0x0"``, which HTA does not count as a GPU
    stream)."""
    if v is None:
        return -1
    try:
        return int(float(v))
    except ValueError:
        return -1


def _last_step_filter(events):
    import pandas as pd

    """HTA's filter of a trace with several ProfilerStep annotations (``Trace._filter_irrelevant_gpu_kernels``):
    the CPU events that start before the last ProfilerStep does, and the GPU events they launched (by
    correlation id)."""

    gpu = ((events["stream"] >= 0) & (events["correlation"] >= 0)) | events["name"].isin(_SYNC)
    cpu = events[~gpu]
    steps = cpu[cpu["name"].str.contains("ProfilerStep", regex=False)]
    cpu = cpu[cpu["ts"] < steps["ts"].max()]
    launched = events[gpu & events["correlation"].isin(set(cpu["correlation"]))]
    return pd.concat([launched, cpu])


def gpu_kernels(trace, last_step_filter: bool = False):
    """A trace's GPU events as HTA sees them (the events with a stream): a DataFrame of name, stream,
    kernel_type, ts, end (us), sorted by ts. With ``last_step_filter`` (a run with several ProfilerSteps),
    only those launched before the last ProfilerStep, as HTA keeps."""
    events = _events(trace)
    if last_step_filter:
        events = _last_step_filter(events)
    frame = events[events["stream"] != -1].copy()
    frame["kernel_type"] = [kernel_type(n) for n in frame["name"]]
    return frame.sort_values("ts", kind="stable", ignore_index=True)[["name", "stream", "kernel_type", "ts", "end"]]


def _merged(frame):
    """HTA's merge_kernel_intervals: (ts, end) of the union, in order."""
    if frame.empty:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    f = frame.sort_values("ts", kind="stable")
    ts, end = f["ts"].to_numpy(), f["end"].to_numpy()
    prev = np.maximum.accumulate(end)
    group = np.concatenate([[0], np.cumsum(ts[1:] > prev[:-1])])
    starts = np.minimum.reduceat(ts, np.flatnonzero(np.diff(np.concatenate([[-1], group]))))
    ends = np.maximum.reduceat(end, np.flatnonzero(np.diff(np.concatenate([[-1], group]))))
    return starts, ends


def _ranks(path):
    """Each rank's trace (by ``distributedInfo.rank``), and whether the run has several ProfilerSteps."""
    from . import open as weft_open

    traces = {}
    for k, f in enumerate(_files(path)):
        traces[_rank(f, k)] = weft_open(f)
    steps = set()
    for t in traces.values():
        steps.update(n for n in t.regions().column("name").to_pylist() if "ProfilerStep" in n)
    return dict(sorted(traces.items())), len(steps) > 1


def _by_rank(path) -> Dict[int, "object"]:
    """Each rank's GPU events, HTA's way: with several ProfilerStep annotations in the run (over all ranks),
    only those launched before the last step."""
    traces, several = _ranks(path)
    return {rank: gpu_kernels(t, last_step_filter=several) for rank, t in traces.items()}


def temporal_breakdown(path: Union[str, "os.PathLike[str]"]):
    """HTA's ``get_temporal_breakdown``: per rank, idle_time(us), compute_time(us), non_compute_time(us),
    kernel_time(us) (from the first GPU event's start to the last one's end) and their _pctg of kernel_time."""
    import pandas as pd

    rows = []
    for rank, k in _by_rank(path).items():
        s, e = _merged(k)
        kernel_time = int(e[-1] - s[0]) if len(s) else 0
        idle = kernel_time - int((e - s).sum())
        cs, ce = _merged(k[k["kernel_type"] == "COMPUTATION"])
        compute = int((ce - cs).sum())
        rows.append({"rank": rank, "idle_time(us)": float(idle), "compute_time(us)": float(compute),
                     "non_compute_time(us)": float(kernel_time - compute - idle), "kernel_time(us)": float(kernel_time)})
    df = pd.DataFrame(rows, columns=["rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"])
    for col in ("idle_time", "compute_time", "non_compute_time"):
        df[col + "_pctg"] = round(100 * (df[col + "(us)"] / df["kernel_time(us)"]), 2)
    return df


def comm_comp_overlap(path: Union[str, "os.PathLike[str]"]):
    """HTA's ``get_comm_comp_overlap``: per rank, comp_comm_overlap_pctg, the share of the (merged)
    communication kernels' time that (merged) computation kernels overlap, in percent (NaN without
    communication)."""
    import pandas as pd

    rows = []
    for rank, k in _by_rank(path).items():
        ms, me = _merged(k[k["kernel_type"] == "COMMUNICATION"])
        cs, ce = _merged(k[k["kernel_type"] == "COMPUTATION"])
        # Both unions are disjoint sorted intervals: their intersection's length.
        overlap, i, j = 0, 0, 0
        while i < len(ms) and j < len(cs):
            lo, hi = max(ms[i], cs[j]), min(me[i], ce[j])
            overlap += max(0, hi - lo)
            if me[i] < ce[j]:
                i += 1
            else:
                j += 1
        comm = int((me - ms).sum())
        ratio = overlap / comm if comm else float("nan")
        rows.append({"rank": rank, "comp_comm_overlap_pctg": round(100 * ratio, 2)})
    return pd.DataFrame(rows, columns=["rank", "comp_comm_overlap_pctg"])


def _type_time(k, types):
    """HTA's ``_get_gpu_kernel_type_time``: the time each kernel type (and each overlap of types, "A
    overlapping B") runs, from the merged intervals of each type swept together."""
    import pandas as pd

    bits = {t: 1 << i for i, t in enumerate(types)}
    times, steps = [], []
    for t in types:
        s, e = _merged(k[k["kernel_type"] == t])
        times += [s, e]
        steps += [np.full(len(s), bits[t]), np.full(len(e), -bits[t])]
    time = np.concatenate(times) if times else np.zeros(0, np.int64)
    step = np.concatenate(steps) if steps else np.zeros(0, np.int64)
    order = np.argsort(time, kind="stable")
    time, step = time[order], step[order]
    running = np.cumsum(step)
    dur = np.diff(time, append=time[-1] if len(time) else 0)
    out = {}
    for r, d in zip(running, dur):
        if r > 0:
            label = " overlapping ".join(t for t in types if r & bits[t])
            out[label] = out.get(label, 0) + int(d)
    return pd.DataFrame({"kernel_type": list(out), "sum": list(out.values())})


def _aggregate(k, num_kernels, duration_ratio):
    """HTA's ``_aggr_gpu_kernel_time``: per kernel name sum, max, min, mean, std of its durations (us), the
    names past the top ``num_kernels`` or past ``duration_ratio`` of the cumulated time grouped as
    "others" (whose figures are then over the grouped names' sums, as HTA computes them)."""
    d = k.assign(dur=k["end"] - k["ts"]).groupby("name")["dur"].agg(["sum", "max", "min", "mean", "std"])
    d = d.reset_index().sort_values("sum", ascending=False, ignore_index=True)
    d = d.fillna({"std": 0})
    if d.shape[0] > num_kernels:
        d["cumsum"] = d["sum"].cumsum()
        q = d["cumsum"].quantile(duration_ratio)
        d.loc[d["cumsum"] > q, "name"] = "others"
        d.loc[d.index >= num_kernels, "name"] = "others"
        d = d.groupby("name")["sum"].agg(["sum", "max", "min", "mean", "std"]).reset_index().fillna({"std": 0})
    return d


def gpu_kernel_breakdown(path: Union[str, "os.PathLike[str]"], duration_ratio: float = 0.8,
                         num_kernels: int = 10, include_memory_kernels: bool = True):
    """HTA's ``get_gpu_kernel_breakdown``: (kernel_type_df, kernel_df). kernel_type_df: kernel_type
    (COMPUTATION, COMMUNICATION, MEMORY and their overlaps, "A overlapping B"), sum (us, over every rank),
    percentage; kernel_df: per rank and type the kernels by name (the top ones; the rest as "others") with
    ``sum (us)``, ``max (us)``, ``min (us)``, ``stddev``, ``mean (us)``, kernel_type, rank."""
    import pandas as pd

    types = ["COMPUTATION", "COMMUNICATION"] + (["MEMORY"] if include_memory_kernels else [])
    type_parts, kernel_parts = [], []
    for rank, k in _by_rank(path).items():
        type_parts.append(_type_time(k, types))
        for t in types:
            a = _aggregate(k[k["kernel_type"] == t], num_kernels, duration_ratio)
            a["kernel_type"] = t
            a["rank"] = int(rank)
            kernel_parts.append(a)
    by_type = pd.concat(type_parts, ignore_index=True) if type_parts else pd.DataFrame(columns=["kernel_type", "sum"])
    by_type = by_type.groupby("kernel_type")["sum"].agg(["sum"]).reset_index()
    by_type = by_type.sort_values("sum", ascending=False, ignore_index=True)
    by_type["percentage"] = (by_type["sum"] / by_type["sum"].sum() * 100).round(1)
    cols = ["name", "sum", "max", "min", "std", "mean", "kernel_type", "rank"]
    kernels = pd.concat([p[cols] for p in kernel_parts], ignore_index=True) if kernel_parts else pd.DataFrame(columns=cols)
    kernels = kernels.sort_values(["kernel_type", "name", "rank"], ignore_index=True)
    kernels = kernels.rename(columns={"sum": "sum (us)", "mean": "mean (us)", "max": "max (us)", "min": "min (us)",
                                      "std": "stddev"})
    return by_type, kernels


_KERNEL_CATS = ("kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events")
_IDLE = ("host_wait", "kernel_wait", "other")


def idle_time_breakdown(path: Union[str, "os.PathLike[str]"], ranks: Optional[List[int]] = None,
                        consecutive_kernel_delay: int = 30):
    """HTA's ``get_idle_time_breakdown`` (its first frame) of ``ranks`` (default ``[0]``): per rank and GPU
    stream, the idle time (us) before each kernel (memory copy, set) split into host_wait (the kernel's runtime
    call started after the previous kernel on the stream ended), kernel_wait (a gap under
    ``consecutive_kernel_delay`` us) and other; columns rank, stream, idle_category, idle_time,
    idle_time_ratio. The streams of a rank come in the order of their first kernel (HTA's: the trace file's
    order of its events, which weft's tables do not keep)."""
    import pandas as pd

    traces, several = _ranks(path)
    parts = []
    for rank in ranks or [0]:
        if rank not in traces:
            raise ValueError(f"rank: {rank} is not among the ranks of {path} ({sorted(traces)})")
        parts += _idle_of_rank(traces[rank], rank, several, consecutive_kernel_delay)
    cols = ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    return out[cols].round(2)


def _idle_of_rank(trace, rank, several, delay):
    import pandas as pd

    events = _events(trace)
    if several:
        events = _last_step_filter(events)
    gpu = (events["stream"] >= 0) & (events["correlation"] >= 0) | events["name"].isin(_SYNC)
    runtime = events[~gpu & (events["correlation"] >= 0)].drop_duplicates("correlation").set_index("correlation")["ts"]
    k = events[(events["stream"] != -1) & events["cat"].isin(_KERNEL_CATS)].sort_values("ts", kind="stable")
    k = k.assign(ts_runtime=k["correlation"].map(runtime))
    parts = []
    for stream in k["stream"].unique():
        s = k[k["stream"] == stream]
        prev_end = s["end"].shift(1)
        idle = s["ts"] - prev_end
        host = s["ts_runtime"] > prev_end
        cat = np.where(host, 0, np.where(idle < delay, 1, 2))
        sums = pd.Series(idle.to_numpy(), index=cat).groupby(level=0).sum()
        total = sums.sum()
        parts.append(pd.DataFrame({"rank": rank, "stream": stream, "idle_category": [_IDLE[c] for c in sums.index],
                                   "idle_time": sums.to_numpy().astype(float),
                                   "idle_time_ratio": sums.to_numpy() / total if total else np.nan}))
    return parts
