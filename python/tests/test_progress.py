"""weft.open's progress bar (issue #56): driven by the Rust reader (bytes read of the file's size, from 0 to the
size, never backwards), the same trace with and without it on every shared trace file, tqdm's bar where tqdm
is installed and a stderr line where it is not, off for small files by default and with progress=False."""

import builtins
import json
import sys

import pytest

import weft
from weft import _progress, _weft

from test_weft import SHARED_INPUTS, check_tables, cli_json


def big_chrome(path, events):
    """A Chrome JSON trace of `events` complete events on 8 threads (about 110 bytes each)."""
    with open(path, "w") as f:
        f.write('{"traceEvents":[')
        for i in range(events):
            sep = "," if i else ""
            f.write(f'{sep}{{"ph":"X","name":"k{i % 50}","pid":1,"tid":{i % 8},"ts":{i * 2},"dur":1,"cat":"c"}}\n')
        f.write("]}")
    return path


def reports(path):
    seen = []
    t = weft.Trace(_weft.open(str(path), progress=lambda done, total: seen.append((done, total))))
    return t, seen


def check_reports(seen, size):
    assert seen[0] == (0, size) and seen[-1] == (size, size), (seen[:3], seen[-3:])
    done = [d for d, _ in seen]
    assert done == sorted(done) and all(t == size for _, t in seen)


FILES = [p for p in SHARED_INPUTS if p.is_file() and _weft.progress_size(str(p)) is not None]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_same_trace_with_progress(path):
    try:
        plain = weft.open(path, progress=False)
    except weft.WeftError as e:
        with pytest.raises(weft.WeftError) as again:
            reports(path)
        assert str(again.value) == str(e)
        return
    t, seen = reports(path)
    # A file's size, or an OTF2 archive's files the reader takes (the anchor names its archive).
    check_reports(seen, _weft.progress_size(str(path)))
    for name in weft.TABLES:
        assert t.table(name).equals(plain.table(name)), name
    check_tables(t, cli_json("info", "--json", path))


def test_shared_files_with_progress_are_there_or_skipped():
    if not FILES:
        pytest.skip("SKIPPED: no shared trace files (../shared/traces is absent)")
    # Chrome JSON (streamed through the reader: its bytes parsed) and whole-file formats both.
    assert any(p.suffix == ".json" for p in FILES) and any(p.suffix != ".json" for p in FILES)


def test_a_long_read_reports_as_it_goes(tmp_path):
    path = big_chrome(tmp_path / "big.json", 600_000)
    size = path.stat().st_size
    assert size > 16 << 20
    t, seen = reports(path)
    check_reports(seen, size)
    assert len({d for d, _ in seen}) >= 3, seen
    assert t.intervals().num_rows == 600_000
    assert t.info() == cli_json("info", "--json", path)


def test_the_bar_is_tqdm_s_or_a_stderr_line(tmp_path, capsys, monkeypatch):
    path = big_chrome(tmp_path / "small.json", 2000)
    size = path.stat().st_size
    # Small files: no bar by default, nor with progress=False.
    weft.open(path)
    weft.open(path, progress=False)
    assert capsys.readouterr().err == ""
    # Forced, with tqdm (installed with python/requirements-test.txt).
    pytest.importorskip("tqdm", reason="SKIPPED: no tqdm")
    weft.open(path, progress=True)
    err = capsys.readouterr().err
    assert "reading small.json" in err and "100%" in err, err
    # The default threshold lowered: the default shows it.
    monkeypatch.setattr(_progress, "PROGRESS_MIN_BYTES", size)
    weft.open(path)
    assert "reading small.json" in capsys.readouterr().err


def test_without_tqdm_the_bar_is_a_stderr_line(tmp_path, capsys, monkeypatch):
    path = big_chrome(tmp_path / "small.json", 2000)
    size = path.stat().st_size
    # Without tqdm: a line on stderr, rewritten in place, ending at 100%.
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm" or name.startswith("tqdm.") or name == "ipywidgets":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    monkeypatch.delitem(sys.modules, "tqdm.auto", raising=False)
    t = weft.open(path, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rreading small.json: 0% (0 B of ") and err.endswith("\n"), repr(err)
    assert f"reading small.json: 100% ({_progress._bytes(size)} of {_progress._bytes(size)}" in err, repr(err)
    assert t.intervals().num_rows == 2000
    with pytest.raises(ValueError, match="progress"):
        weft.open(path, progress="yes")


def test_no_progress_for_stores_and_folders_of_no_archive(tmp_path):
    from test_weft import cli

    out = tmp_path / "gen"
    cli("generate", "otf2", "--ranks", "2", "--events", "2000", "--jobs", "1", "-o", out)
    cli("index", out / "traces.otf2", "-o", tmp_path / "store")
    assert _weft.progress_size(str(tmp_path / "store")) is None
    assert _weft.progress_size(str(tmp_path / "store" / "manifest.json")) is not None  # a file like any
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("not a trace")
    assert _weft.progress_size(str(plain)) is None


def test_an_otf2_archive_reports_the_files_its_reader_takes(tmp_path):
    from test_weft import cli

    out = tmp_path / "gen"
    cli("generate", "otf2", "--ranks", "4", "--events", "200000", "--jobs", "1", "-o", out)
    # The anchor, the global definitions, and every location's definitions and events.
    total = sum(p.stat().st_size for p in (out / "traces.otf2", out / "traces.def"))
    total += sum(p.stat().st_size for p in (out / "traces").rglob("*") if p.suffix in (".def", ".evt"))
    evt = next((out / "traces").rglob("*.evt"))
    for p in (out, out / "traces.otf2", out / "traces.def", evt):
        assert _weft.progress_size(str(p)) == total, p
    plain = weft.open(out / "traces.otf2", progress=False)
    for p in (out, out / "traces.otf2"):
        t, seen = reports(p)
        check_reports(seen, total)
        for name in weft.TABLES:
            assert t.table(name).equals(plain.table(name)), name
    assert t.info() == cli_json("info", "--json", out / "traces.otf2")
    # An archive whose event file is cut short: the same answer (an error's words, or the same trace).
    evt.write_bytes(evt.read_bytes()[:100])

    def outcome(progress):
        try:
            return ("trace", weft.open(out, progress=progress).info())
        except weft.WeftError as e:
            return ("error", str(e))

    assert outcome(True) == outcome(False)


def kineto_rank(path, rank, world, events):
    """A Kineto-like JSON of one rank (distributedInfo, baseTimeNanoseconds) with `events` complete events."""
    with open(path, "w") as f:
        f.write(f'{{"distributedInfo": {{"rank": {rank}, "world_size": {world}}}, ')
        f.write(f'"baseTimeNanoseconds": {1_000_000_000 + rank * 500}, "traceEvents": [')
        for i in range(events):
            sep = "," if i else ""
            f.write(f'{sep}{{"ph":"X","name":"k{i % 7}","pid":{rank},"tid":{i % 2},"ts":{i * 3},"dur":2,"cat":"c"}}\n')
        f.write("]}")
    return path


def test_a_folder_of_per_rank_traces_reports_its_files(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    paths = [kineto_rank(run / f"rank{r}.json", r, 4, 30_000 + r * 1000) for r in range(4)]
    total = sum(p.stat().st_size for p in paths)
    assert _weft.progress_size(str(run)) == total
    plain = weft.open(run, progress=False)
    t, seen = reports(run)
    check_reports(seen, total)
    for name in weft.TABLES:
        assert t.table(name).equals(plain.table(name)), name
    assert t.info() == cli_json("info", "--json", run)
    # One file broken: the same error with and without the bar.
    paths[2].write_text('{"traceEvents": [{"ph": "X", ')
    with pytest.raises(weft.WeftError) as bare:
        weft.open(run, progress=False)
    with pytest.raises(weft.WeftError) as bar:
        weft.open(run, progress=True)
    assert str(bar.value) == str(bare.value)


def test_a_malformed_file_says_the_same_with_progress(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":' + "]" * 3)
    with pytest.raises(weft.WeftError) as plain:
        weft.open(path, progress=False)
    with pytest.raises(weft.WeftError) as bar:
        weft.open(path, progress=True)
    assert str(bar.value) == str(plain.value) and bar.value.file == plain.value.file
    assert bar.value.offset == plain.value.offset
    json.dumps(str(bar.value))
