"""weft in Python: traces of parallel programs as Arrow tables and pandas DataFrames.

``weft.open(path)`` reads any file, folder or archive the ``weft`` command line reads (OTF2, Chrome JSON,
Paraver, HPCToolkit, Projections, Nsight Systems SQLite, MPE, ...) or a store folder written by
``weft index``, with weft's own Rust readers. The tables (``intervals()``, ``messages()``, ...) are
``pyarrow.Table`` objects whose number columns are weft's memory, lent without a copy through the Arrow C
data interface; ``.to_pandas()`` and ``polars.from_arrow(...)`` work on them. The analyses give the numbers
the command line prints with ``--json``: ``info()`` is ``weft info --json``'s dict, ``moments()`` is
``weft moments --json``, ``waits()`` ``weft waits --json``, ``critical_path()`` ``weft critical-path --json``.

``weft.show(path)`` / ``Trace.show()`` display the weft page with the trace opened in a notebook (an iframe of
a local server bound to 127.0.0.1 that serves the page shipped inside this package); ``weft.serve(path)``
returns that page's URL from a script.

Times are integers in ns from the trace's first event (``Trace.origin_ns`` is its absolute time), as in the
command line's ``--window T0:T1``. A window is ``"T0:T1"`` (units ns, us, ms, s) or ``(start_ns, end_ns)``.
"""

from __future__ import annotations

import json
import os
from typing import Iterable, Optional, Tuple, Union

from . import _weft
from ._weft import WeftError
from . import _progress
from ._progress import PROGRESS_MIN_BYTES
from ._server import ViewerMissing, serve, show, stop

__all__ = ["open", "Trace", "WeftError", "TABLES", "serve", "show", "stop", "ViewerMissing", "PROGRESS_MIN_BYTES"]

TABLES = tuple(_weft.TABLES)

Window = Union[str, Tuple[int, int], None]

# A wait pattern's columns in ``waits(by="location")``, in the report's order.
_PATTERN_SUFFIX = "_ns"


def _pandas():
    import pandas

    return pandas


def open(path: Union[str, "os.PathLike[str]"], progress: Optional[bool] = None) -> "Trace":
    """Open a trace file, folder or archive, or a store folder (``weft index``).

    ``progress``: a progress bar while a trace file is read (tqdm's, in a notebook or a terminal, where
    tqdm is installed; else a line on stderr), driven by the reader (bytes read of the file's size; a Chrome
    JSON or Perfetto trace's bytes parsed). ``None`` (the default) shows it for files of
    ``PROGRESS_MIN_BYTES`` or more; ``True`` always; ``False`` never. A store, a folder and an OTF2 archive
    are read without one.

    Raises ``weft.WeftError`` with weft's message (the command line prints the same) when the input is not
    a trace weft reads or is malformed; the exception's ``file`` names the file and ``offset`` the byte
    where the format says one.
    """
    path = os.fspath(path)
    bar = _progress.bar_for(path, progress)
    if bar is None:
        return Trace(_weft.open(path))
    with bar:
        return Trace(_weft.open(path, progress=bar.update))


class Trace:
    """A trace opened by :func:`weft.open`."""

    def __init__(self, inner: "_weft.Trace"):
        self._t = inner

    def __repr__(self) -> str:
        return repr(self._t)

    @property
    def path(self) -> str:
        """The path the trace was opened from."""
        return self._t.path

    @property
    def is_store(self) -> bool:
        """Whether it was opened from a store folder."""
        return self._t.is_store

    @property
    def store_reads(self) -> int:
        """Files read from the store folder so far (its manifest and tiles; 0 for a trace file)."""
        return self._t._store_reads

    @property
    def origin_ns(self) -> int:
        """The absolute time of the first event in the source's clock (ns)."""
        return self._t.origin_ns

    @property
    def span_ns(self) -> int:
        """The time of the last event's end from the first event (ns)."""
        return self._t.span_ns

    # -- summary ---------------------------------------------------------------------------------------

    def info(self, window: Window = None) -> dict:
        """``weft info --json [--window T0:T1]``: the same dict (format, counts, span, warnings, the
        region profile ``regions`` and the process ``comm_matrix``)."""
        return json.loads(self._t.info_json(window))

    # -- tables ----------------------------------------------------------------------------------------

    def table(self, name: str, window: Window = None):
        """The table ``name`` (one of ``weft.TABLES``) as a ``pyarrow.Table``; with a ``window``, its
        records there: the intervals and collective rows reaching into it, the instants and counter samples
        in it, the messages whose send-to-receive span reaches into it. A store answers a window from the
        tiles it needs, without decoding the rest (but for ``counters``, which its window tiles lack)."""
        return self._t.table(name, window)

    def intervals(self, window: Window = None):
        """Intervals (a region's time on a location): location, region, name, start_ns, dur_ns, depth;
        sorted by location, then start, then depth."""
        return self._t.table("intervals", window)

    def messages(self, window: Window = None):
        """Point-to-point messages and flows: kind, sender, receiver, send_ns, recv_ns, posted_ns,
        size_bytes, tag, name (the communicator, or the flow's name)."""
        return self._t.table("messages", window)

    def collectives(self, window: Window = None):
        """Collective operations, a row per participating location: operation, location, region, name,
        communicator, root, start_ns, end_ns, bytes_sent, bytes_received."""
        return self._t.table("collectives", window)

    def instants(self, window: Window = None):
        """Instant events: location, region, name, time_ns."""
        return self._t.table("instants", window)

    def counters(self, window: Window = None):
        """Counter samples: series, name, process, time_ns, value (sorted by series, then time)."""
        return self._t.table("counters", window)

    def locations(self):
        """Locations (threads, GPU streams, tracks): location, process, process_name, process_native_id,
        native_id, name, kind, sort_key."""
        return self._t.table("locations")

    def regions(self):
        """Regions: region, name, category, paradigm, role."""
        return self._t.table("regions")

    # -- analyses --------------------------------------------------------------------------------------

    def profile(self, window: Window = None, locations: Optional[Iterable[int]] = None):
        """The region profile of ``window`` over ``locations`` (ids; every location if None) as a
        DataFrame: region, name, count, inclusive_ns, exclusive_ns, share (``weft info --json``'s
        ``regions`` without ``locations``)."""
        locs = None if locations is None else [int(l) for l in locations]
        rows = json.loads(self._t.profile_json(window, locs))
        return _frame(rows, ["region", "name", "count", "inclusive_ns", "exclusive_ns", "share"])

    def calltree_report(self, window: Window = None, locations: Optional[Iterable[int]] = None,
                        inverted: bool = False) -> dict:
        """``weft calltree --json [--window] [--locations] [--inverted]``: the dict (total_ns, inverted,
        window, nodes)."""
        locs = None if locations is None else [int(l) for l in locations]
        return json.loads(self._t.calltree_json(window, locs, bool(inverted)))

    def calltree(self, window: Window = None, locations: Optional[Iterable[int]] = None, inverted: bool = False):
        """The call tree of ``window`` over ``locations`` (``weft calltree --json``'s nodes) as a DataFrame, a
        row per call path in preorder (siblings by inclusive time): name (the path's last region), depth,
        path (the region names, outermost first; with ``inverted=True`` the bottom-up tree: roots are where
        time is spent, their children the callers), count, inclusive_ns, exclusive_ns, share (of the
        selection's covered time), region, parent (the row of the enclosing node; -1 for a root)."""
        nodes = self.calltree_report(window, locations, inverted)["nodes"]
        frame = _frame(nodes, ["path", "count", "inclusive_ns", "exclusive_ns", "share", "region", "parent"])
        frame.insert(0, "name", [p[-1] for p in frame["path"]])
        frame.insert(1, "depth", [len(p) - 1 for p in frame["path"]])
        frame["parent"] = frame["parent"].fillna(-1).astype("int64")
        return frame

    def comm_matrix(self, unit: str = "process", window: Window = None, value: str = "bytes"):
        """The communication matrix of point-to-point messages (sent in ``window``), senders as rows and
        receivers as columns, by ``unit`` ("process" or "location"); ``value`` "bytes" or "count"."""
        if value not in ("bytes", "count"):
            raise ValueError(f"value: '{value}' is not bytes or count")
        m = json.loads(self._t.comm_matrix_json(unit, window))
        pd = _pandas()
        frame = pd.DataFrame(m[value], index=m["senders"], columns=m["receivers"], dtype="uint64")
        frame.index.name = "sender"
        frame.columns.name = "receiver"
        return frame

    def moments(self, busy: str = "compute", window: Window = None, sort: str = "location"):
        """``weft moments --json --busy BUSY``: per location, m0_ns (busy time), m1_ns, m2_ns, m3_ns.
        ``busy`` is "compute", "any", "waiting" or "pattern:GLOB"."""
        rows = json.loads(self._t.moments_json(busy, window, sort))
        return _frame(rows, ["location", "name", "m0_ns", "m1_ns", "m2_ns", "m3_ns"])

    def wait_report(self, window: Window = None) -> dict:
        """``weft waits --json [--window]``: the dict (patterns, root_causes, total_wait_ns)."""
        return json.loads(self._t.waits_json(window))

    def waits(self, window: Window = None, by: str = "location"):
        """The wait states of an MPI run (``weft waits``) as a DataFrame:

        - ``by="location"``: a row per location (location, name) and a column per pattern
          (``late_sender_ns``, ...), then ``total_ns``;
        - ``by="region"``: a row per pattern and waiting call (pattern, name, ns);
        - ``by="root_cause"``: the root causes (pattern, waiting_location, causing_location, name, ns).
        """
        report = self.wait_report(window)
        pd = _pandas()
        if by == "location":
            frame = self._location_frame()
            for pattern, totals in report["patterns"].items():
                frame[pattern + _PATTERN_SUFFIX] = pd.Series(totals["per_location"], dtype="uint64")
            frame["total_ns"] = frame[[p + _PATTERN_SUFFIX for p in report["patterns"]]].sum(axis=1).astype("uint64")
            return frame
        if by == "region":
            rows = [
                {"pattern": p, "name": r["name"], "ns": r["ns"]}
                for p, totals in report["patterns"].items()
                for r in totals["by_region"]
            ]
            return _frame(rows, ["pattern", "name", "ns"])
        if by == "root_cause":
            return _frame(report["root_causes"], ["pattern", "waiting_location", "causing_location", "name", "ns"])
        raise ValueError(f"by: '{by}' is not location, region or root_cause")

    def critical_path_report(self) -> dict:
        """``weft critical-path --json``: the dict (length_ns, by_region, by_location, imbalance)."""
        return json.loads(self._t.critical_path_json())

    def critical_path(self, by: str = "region"):
        """The run's critical path (``weft critical-path``) as a DataFrame: ``by="region"`` (name, ns),
        ``by="location"`` (location, name, ns) or ``by="imbalance"`` (name, ns)."""
        report = self.critical_path_report()
        if by in ("region", "imbalance"):
            key = "by_region" if by == "region" else "imbalance"
            return _frame(report[key], ["name", "ns"])
        if by == "location":
            frame = self._location_frame()
            frame["ns"] = _pandas().Series(report["by_location"], dtype="uint64")
            return frame
        raise ValueError(f"by: '{by}' is not region, location or imbalance")

    # -- the viewer ------------------------------------------------------------------------------------

    def serve(self) -> str:
        """:func:`weft.serve` of this trace's path: the URL of the weft page with it opened (a store folder
        is opened as a store, answering the page's views from its tiles)."""
        return serve(self.path)

    def show(self, height: int = 640, width="100%") -> None:
        """:func:`weft.show` of this trace's path: the weft page with it opened, inline in the notebook."""
        return show(self.path, height=height, width=width)

    # -- other tools' shapes ----------------------------------------------------------------------------

    def to_pipit(self):
        """pipit's events DataFrame shape: a row per Enter and Leave of each interval and per Instant,
        columns ``Timestamp (ns)`` (from the first event), ``Event Type`` ("Enter", "Leave", "Instant"),
        ``Name``, ``Thread`` (the location's index within its process), ``Process`` (the process's id in
        the trace: the MPI rank), in time order; at one time a location's Leaves (innermost first) come
        before its Enters (outermost first), as the trace nests them. Built from ``intervals()`` and
        ``instants()``."""
        pd = _pandas()
        import numpy as np

        locs = self.locations().to_pandas()
        thread = locs.groupby("process").cumcount().to_numpy()
        process = locs["process_native_id"].to_numpy()
        iv = self.intervals().to_pandas()
        inst = self.instants().to_pandas()
        loc = iv["location"].to_numpy()
        depth = iv["depth"].to_numpy().astype(np.int64)
        names = iv["name"].astype(str).to_numpy()
        parts = [
            # order: Leave (0, deepest first) before Enter (1, outermost first) before Instant (2)
            pd.DataFrame({"t": iv["start_ns"].to_numpy(), "o": 1, "k": depth, "loc": loc, "type": "Enter", "name": names}),
            pd.DataFrame({"t": (iv["start_ns"] + iv["dur_ns"]).to_numpy(), "o": 0, "k": -depth, "loc": loc, "type": "Leave", "name": names}),
            pd.DataFrame({"t": inst["time_ns"].to_numpy(), "o": 2, "k": 0, "loc": inst["location"].to_numpy(),
                          "type": "Instant", "name": inst["name"].astype(str).to_numpy()}),
        ]
        ev = pd.concat(parts, ignore_index=True)
        ev = ev.sort_values(["t", "loc", "o", "k"], kind="stable", ignore_index=True)
        locations = ev["loc"].to_numpy().astype(np.int64)
        return pd.DataFrame({
            "Timestamp (ns)": ev["t"].astype("int64"),
            "Event Type": ev["type"].astype("category"),
            "Name": ev["name"].astype("category"),
            "Thread": thread[locations] if len(locations) else np.zeros(0, dtype=np.int64),
            "Process": process[locations] if len(locations) else np.zeros(0, dtype=np.int64),
        })

    def _location_frame(self):
        """location and name ("process / location", as ``weft moments`` names them), a row per location."""
        names = self._t.location_labels()
        return _frame({"location": range(len(names)), "name": names}, ["location", "name"])


def _frame(rows, columns):
    pd = _pandas()
    return pd.DataFrame(rows, columns=columns)
