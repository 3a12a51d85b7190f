"""The Python package against the command line (issue #56): every table's rows and sums equal
``weft info --json``'s on the shared traces (../shared/traces, skipped when absent) and on a generated OTF2
archive; the analyses equal ``weft moments/waits/critical-path --json``; weft's columns reach pyarrow
without a copy; errors carry weft's message and the file.

The CLI is ``$WEFT_BIN``, else the workspace's target/debug/weft (built by ``cargo build --features mpi``).
"""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import weft

ROOT = Path(__file__).resolve().parents[2]
WEFT_BIN = Path(os.environ.get("WEFT_BIN", ROOT / "target" / "debug" / "weft"))
SHARED = ROOT.parent / "shared" / "traces"


def cli(*args, check=True):
    if not WEFT_BIN.is_file():
        pytest.skip(f"SKIPPED: no weft CLI at {WEFT_BIN} (cargo build --features mpi, or set WEFT_BIN)")
    r = subprocess.run([str(WEFT_BIN), *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"weft {' '.join(map(str, args))}: {r.stderr}")
    return r


def cli_json(*args):
    return json.loads(cli(*args).stdout)


def shared_inputs():
    """Every input in the shared traces: each file (an OTF2 archive by its anchor, not its parts), and the
    folders of multi-file formats."""
    if not SHARED.is_dir():
        return []
    out = []
    for p in sorted(SHARED.rglob("*")):
        rel = p.relative_to(SHARED)
        if p.name in ("README.md", "SOURCES.md") or p.name.startswith("."):
            continue
        # An OTF2 archive's parts are read through its anchor.
        if any((a / "traces.otf2").is_file() or a.suffix == ".otf2" for a in p.parents if SHARED in a.parents):
            if p.suffix in (".evt", ".def") or p.parent.name == "traces":
                continue
        if p.is_file():
            out.append(p)
        elif p.is_dir() and any(c.suffix in (".prv", ".sts", ".db") for c in p.iterdir() if c.is_file()):
            out.append(p)
    return out


SHARED_INPUTS = shared_inputs()


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """A generated OTF2 archive (weft generate): MPI ranks with messages and collectives."""
    out = tmp_path_factory.mktemp("gen") / "gen"
    cli("generate", "otf2", "--ranks", "4", "--events", "20000", "--jobs", "1", "-o", out)
    return out / "traces.otf2"


def check_tables(t, info):
    """Rows and sums of the Arrow tables against `weft info --json`'s dict."""
    iv = t.intervals()
    assert iv.num_rows == info["intervals"]
    regions = info["regions"]
    assert sum(r["count"] for r in regions) == iv.num_rows
    if iv.num_rows:
        # Each region's count from the table equals the profile's.
        counts = iv.group_by("region").aggregate([("region", "count")]).to_pydict()
        got = dict(zip(counts["region"], counts["region_count"]))
        assert got == {r["region"]: r["count"] for r in regions}
        # Exclusive times telescope to the outermost intervals' durations.
        outer = pc.sum(pc.filter(iv["dur_ns"], pc.equal(iv["depth"], 0))).as_py() or 0
        assert sum(r["exclusive_ns"] for r in regions) == outer
        assert pc.max(pc.add(iv["start_ns"], iv["dur_ns"])).as_py() <= info["span_ns"]
    msgs = t.messages()
    kinds = msgs["kind"].to_pylist()
    assert kinds.count("point_to_point") == info["messages"]
    assert kinds.count("flow") == info["flows"]
    assert msgs.num_rows == info["messages"] + info["flows"]
    matrix = info.get("comm_matrix")
    if matrix is not None:
        p2p = pc.equal(msgs["kind"].cast(pa.string()), "point_to_point")
        assert sum(map(sum, matrix["count"])) == info["messages"]
        assert sum(map(sum, matrix["bytes"])) == (pc.sum(pc.filter(msgs["size_bytes"], p2p)).as_py() or 0)
    coll = t.collectives()
    assert len(set(coll["operation"].to_pylist())) == info["collectives"]
    assert t.instants().num_rows == info["instants"]
    series = set(t.counters()["series"].to_pylist())
    assert all(s < info["counters"] for s in series)
    locs = t.locations()
    assert locs.num_rows == info["locations"]
    assert set(locs["process"].to_pylist()) <= set(range(info["processes"]))
    assert t.regions().num_rows >= len(regions)


def check_pandas(t):
    for name in weft.TABLES:
        table = t.table(name)
        frame = table.to_pandas()
        assert len(frame) == table.num_rows
        assert list(frame.columns) == table.column_names


@pytest.mark.parametrize("path", SHARED_INPUTS, ids=[str(p.relative_to(SHARED)) for p in SHARED_INPUTS])
def test_shared_trace_equals_the_cli(path):
    r = cli("info", "--json", path, check=False)
    if r.returncode != 0:
        # Not a timeline the CLI reads: the package refuses it with the CLI's message, naming the file.
        with pytest.raises(weft.WeftError) as e:
            weft.open(path)
        assert str(e.value) == r.stderr.strip().removeprefix("weft: ")
        assert e.value.file
        return
    info = json.loads(r.stdout)
    t = weft.open(path)
    assert t.info() == info
    check_tables(t, info)
    check_pandas(t)


def test_shared_traces_are_there_or_skipped():
    if not SHARED_INPUTS:
        pytest.skip(f"SKIPPED: no shared traces at {SHARED}")
    assert len(SHARED_INPUTS) > 10


def test_generated_otf2_equals_the_cli(generated):
    info = cli_json("info", "--json", generated)
    t = weft.open(generated)
    assert t.info() == info
    assert info["messages"] > 0 and info["collectives"] > 0
    check_tables(t, info)
    check_pandas(t)
    # A window: the same dict as `--window`, by text and by a pair of ns.
    a, b = info["span_ns"] // 4, info["span_ns"] // 2
    windowed = cli_json("info", "--json", "--window", f"{a}:{b}", generated)
    assert t.info(window=f"{a}:{b}") == windowed
    assert t.info(window=(a, b)) == windowed
    prof = t.profile(window=(a, b))
    assert prof.to_dict("records") == windowed["regions"]


def mpi_traces(generated):
    out = [generated]
    for rel in ("otf2/tracer-stencil4d-mpi-32/traces.otf2", "otf2/pipit-ping-pong-mpi/traces.otf2"):
        if (SHARED / rel).is_file():
            out.append(SHARED / rel)
    return out


def test_analyses_equal_the_cli(generated):
    for path in mpi_traces(generated):
        t = weft.open(path)
        for busy in ("compute", "any", "waiting", "pattern:MPI_*"):
            want = cli_json("moments", "--json", "--busy", busy, path)
            assert t.moments(busy=busy).to_dict("records") == want, (path, busy)
        span = t.span_ns
        w = (span // 3, span // 2)
        want = cli_json("moments", "--json", "--window", f"{w[0]}:{w[1]}", "--sort", "m0", path)
        assert t.moments(window=w, sort="m0").to_dict("records") == want
        waits = cli_json("waits", "--json", path)
        assert t.wait_report() == waits
        frame = t.waits()
        for pattern, totals in waits["patterns"].items():
            assert frame[pattern + "_ns"].tolist() == totals["per_location"]
        assert int(frame["total_ns"].sum()) == waits["total_wait_ns"]
        assert t.waits(by="root_cause").to_dict("records") == waits["root_causes"]
        assert t.wait_report(window=w) == cli_json("waits", "--json", "--window", f"{w[0]}:{w[1]}", path)
        cp = cli_json("critical-path", "--json", path)
        assert t.critical_path_report() == cp
        assert t.critical_path().to_dict("records") == cp["by_region"]
        assert t.critical_path(by="location")["ns"].tolist() == cp["by_location"]
        info = cli_json("info", "--json", path)
        m = t.comm_matrix(value="count")
        assert m.values.tolist() == info["comm_matrix"]["count"]
        assert list(m.index) == info["comm_matrix"]["senders"]
        assert t.comm_matrix().values.tolist() == info["comm_matrix"]["bytes"]


def test_profile_of_some_locations(generated):
    t = weft.open(generated)
    n = t.locations().num_rows
    whole = t.profile()
    halves = [t.profile(locations=range(0, n // 2)), t.profile(locations=range(n // 2, n))]
    for col in ("count", "exclusive_ns"):
        by_region = {}
        for h in halves:
            for region, v in zip(h["region"], h[col]):
                by_region[region] = by_region.get(region, 0) + v
        assert by_region == dict(zip(whole["region"], whole[col]))
    with pytest.raises(ValueError, match="not a location"):
        t.profile(locations=[n])


def test_columns_are_lent_without_a_copy(generated):
    t = weft.open(generated)
    checked = 0
    for name in weft.TABLES:
        table = t.table(name)
        for column in weft._weft.lent_columns(name):
            chunks = table[column].chunks
            assert len(chunks) == 1
            data = chunks[0].buffers()[1]
            assert data.address == t._t._column_address(name, column), f"{name}.{column} was copied"
            checked += 1
    assert checked >= 15
    # The memory outlives the trace object: the table keeps it.
    iv = t.intervals()
    total = pc.sum(iv["dur_ns"]).as_py()
    del t
    import gc

    gc.collect()
    assert pc.sum(iv["dur_ns"]).as_py() == total
    assert iv.to_pandas()["dur_ns"].sum() == total


def test_tables_read_into_polars(generated):
    pl = pytest.importorskip("polars", reason="SKIPPED: polars is not installed (python/requirements-test.txt)")
    t = weft.open(generated)
    for name in weft.TABLES:
        table = t.table(name)
        frame = pl.from_arrow(table)
        assert frame.height == table.num_rows and frame.columns == table.column_names, name
    iv = pl.from_arrow(t.intervals())
    assert iv["dur_ns"].sum() == pc.sum(t.intervals()["dur_ns"]).as_py()
    # The regions' counts in Polars are the profile's, as in pyarrow (check_tables).
    info = t.info()
    by_region = iv.group_by("region").len()
    got = sorted(by_region["len"].to_list())
    assert got == sorted(r["count"] for r in info["regions"] if r["count"])


def test_errors_carry_weft_s_message_and_the_file(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "ts": 1, ')
    r = cli("info", bad, check=False)
    with pytest.raises(weft.WeftError) as e:
        weft.open(bad)
    assert str(bad) in str(e.value)
    assert e.value.file == str(bad)
    assert str(e.value) == r.stderr.strip().removeprefix("weft: ")
    missing = tmp_path / "nothing-here.otf2"
    with pytest.raises(weft.WeftError) as e:
        weft.open(missing)
    assert e.value.file == str(missing) and str(missing) in str(e.value)
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(weft.WeftError, match="garbage.bin"):
        weft.open(garbage)
    assert issubclass(weft.WeftError, Exception)


def test_bad_arguments_are_value_errors(generated):
    t = weft.open(generated)
    with pytest.raises(ValueError, match="time window"):
        t.info(window="soon")
    with pytest.raises(ValueError, match="window"):
        t.info(window=(5, 1))
    with pytest.raises(ValueError, match="not a table"):
        t.table("spans")
    with pytest.raises(ValueError):
        t.moments(busy="sometimes")


def sorted_frame(table):
    frame = table.to_pandas()
    for c in frame.columns:
        if str(frame[c].dtype) == "category":
            frame[c] = frame[c].astype(str)
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def test_a_store_answers_like_its_trace(generated, tmp_path):
    store = tmp_path / "store"
    # Small tiles: many windows, so a window's tiles are a few of them.
    cli("index", generated, "-o", store, "--tile-intervals", "2000")
    s, t = weft.open(store), weft.open(generated)
    assert s.is_store and not t.is_store
    assert s.span_ns == t.span_ns and s.origin_ns == t.origin_ns
    span = t.span_ns
    # A window read lazily: only some of the store's files.
    opened = s.store_reads
    w = (span * 2 // 5, span // 2)
    for name in ("intervals", "messages", "collectives", "instants"):
        got, want = s.table(name, window=w), t.table(name, window=w)
        assert got.num_rows == want.num_rows, name
        if name == "intervals":
            assert got.equals(want)  # both in the model's order: location, start, depth
        else:
            assert sorted_frame(got).equals(sorted_frame(want)), name
    tiles = sum(1 for p in (store).rglob("*") if p.is_file()) - 1
    window_reads = s.store_reads - opened
    assert 0 < window_reads < tiles / 2, (window_reads, tiles)
    # The window's rows are those reaching into it.
    iv = t.intervals().to_pandas()
    reach = iv[(iv.start_ns <= w[1]) & (iv.start_ns + iv.dur_ns >= w[0])]
    assert len(reach) == t.intervals(window=w).num_rows > 0
    assert s.counters(window=w).equals(t.counters(window=w))
    # The whole store: every table equal to the trace's, the CLI's numbers.
    assert s.info() == cli_json("info", "--json", store)
    ws = f"{span // 5}:{span // 2}"
    assert s.info(window=ws) == cli_json("info", "--json", "--window", ws, store)
    for name in weft.TABLES:
        assert s.table(name).equals(t.table(name)), name
    assert s.moments(window=ws).to_dict("records") == cli_json("moments", "--json", "--window", ws, store)
    with pytest.raises(weft.WeftError, match="store"):
        s.waits()


def test_a_broken_store_names_its_file(generated, tmp_path):
    store = tmp_path / "store"
    cli("index", generated, "-o", store)
    tile = next(p for p in (store / "e").rglob("*") if p.is_file())
    tile.write_bytes(b"not a tile")
    s = weft.open(store)
    r = cli("info", "--json", store, check=False)
    assert r.returncode != 0
    with pytest.raises(weft.WeftError) as e:
        s.intervals()
    assert str(e.value) == r.stderr.strip().removeprefix("weft: ")
    assert tile.name in str(e.value)


def test_to_pipit_has_pipit_s_columns_and_nests(generated):
    t = weft.open(generated)
    ev = t.to_pipit()
    assert list(ev.columns) == ["Timestamp (ns)", "Event Type", "Name", "Thread", "Process"]
    iv = t.intervals().to_pandas()
    counts = ev["Event Type"].value_counts()
    assert counts["Enter"] == counts["Leave"] == len(iv)
    assert counts.get("Instant", 0) == t.instants().num_rows
    assert ev["Timestamp (ns)"].is_monotonic_increasing
    # Per thread, Enter/Leave nest like brackets, with matching names.
    for _, rows in ev[ev["Event Type"] != "Instant"].groupby(["Process", "Thread"]):
        stack = []
        for kind, name in zip(rows["Event Type"], rows["Name"]):
            if kind == "Enter":
                stack.append(name)
            else:
                assert stack.pop() == name
        assert not stack
    # Each rank is one process with its threads numbered from 0.
    locs = t.locations().to_pandas()
    assert set(ev["Process"]) <= set(locs["process_native_id"])
    assert ev.groupby("Process")["Thread"].min().eq(0).all()
