"""The viewer inline (issue #56): ``weft.serve`` serves the page shipped in the package and the trace (or a
store folder, with Range requests) on 127.0.0.1; the page it serves loads and draws the trace in headless
chromium (python/tests/show_check.mjs, with the browser tests' harness); ``show()`` displays an iframe of it;
the wheel carries the page.

The page is the static build scripts/python-test.sh puts in python/weft/viewer; tests that need it skip,
saying so, where it is absent.
"""

import io
import json
import os
import sys
import shutil
import subprocess
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest

import weft
from weft import _server

from test_weft import ROOT, SHARED, cli, cli_json


def need_viewer():
    try:
        _server.viewer_dir()
    except weft.ViewerMissing as e:
        pytest.skip(f"SKIPPED: {e}")


def get(url, headers=None):
    """(status, headers, body) of a GET, errors included."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def opened(page_url, key):
    """The URL the page's ``?trace=``/``?store=`` names."""
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(page_url).query)
    assert list(q) == [key], page_url
    return q[key][0]


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    """A generated OTF2 archive (a folder) and its store (small tiles: many files)."""
    need_viewer()
    base = tmp_path_factory.mktemp("show")
    cli("generate", "otf2", "--ranks", "4", "--events", "20000", "--jobs", "1", "-o", base / "gen")
    cli("index", base / "gen" / "traces.otf2", "-o", base / "store", "--tile-intervals", "2000")
    return base


def test_the_page_and_a_trace_folder_over_http(gen):
    url = weft.serve(gen / "gen")
    assert url.startswith("http://127.0.0.1:")
    status, headers, body = get(url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'name="weft-build"' in body, "the static build's page"
    status, headers, body = get(urllib.parse.urljoin(url, "www/pkg-worker/weft_bg.wasm"))
    assert status == 200 and headers["Content-Type"] == "application/wasm" and body[:4] == b"\0asm"
    # The folder as a tar of its files, which the page reads as a dropped .tar.
    trace_url = opened(url, "trace")
    assert trace_url.startswith(url.split("?")[0]) and trace_url.endswith("/gen.tar")
    status, headers, body = get(trace_url)
    assert status == 200 and int(headers["Content-Length"]) == len(body)
    with tarfile.open(fileobj=io.BytesIO(body)) as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        want = {str(p.relative_to(gen)): p for p in (gen / "gen").rglob("*") if p.is_file()}
        assert set(members) == set(want)
        for name, p in want.items():
            assert tar.extractfile(members[name]).read() == p.read_bytes(), name
    # One server per process, one URL per path.
    assert weft.serve(gen / "gen") == url
    assert weft.open(gen / "gen" / "traces.otf2").serve().split("?")[0] == url.split("?")[0]


def test_a_trace_file_with_ranges(gen):
    f = gen / "gen" / "traces.def"
    data = f.read_bytes()
    trace_url = opened(weft.serve(f), "trace")
    assert get(trace_url)[2] == data
    status, headers, body = get(trace_url, {"Range": "bytes=10-19"})
    assert status == 206 and body == data[10:20] and headers["Content-Range"] == f"bytes 10-19/{len(data)}"
    assert get(trace_url, {"Range": "bytes=-7"})[2] == data[-7:]
    assert get(trace_url, {"Range": f"bytes={len(data) - 3}-"})[2] == data[-3:]
    assert get(trace_url, {"Range": f"bytes=5-{len(data) * 2}"})[2] == data[5:]
    status, headers, _ = get(trace_url, {"Range": f"bytes={len(data)}-"})
    assert status == 416 and headers["Content-Range"] == f"bytes */{len(data)}"
    assert get(trace_url, {"Range": "bytes=1-2,4-5"})[0] == 416


def test_a_store_folder_with_ranges(gen):
    url = weft.serve(gen / "store")
    base = opened(url, "store")
    assert base.endswith("/")
    manifest = (gen / "store" / "manifest.json").read_bytes()
    assert get(base + "manifest.json")[2] == manifest
    tiles = sorted(p for p in (gen / "store").rglob("*") if p.is_file() and p.name != "manifest.json")
    assert len(tiles) > 2
    for tile in (tiles[0], tiles[-1]):
        rel = tile.relative_to(gen / "store").as_posix()
        data = tile.read_bytes()
        status, headers, body = get(base + rel)
        assert status == 200 and body == data and headers["Accept-Ranges"] == "bytes"
        status, _, body = get(base + rel, {"Range": f"bytes=3-{len(data) // 2}"})
        assert status == 206 and body == data[3 : len(data) // 2 + 1]
    # The same store opened by weft.open serves as a store.
    assert weft.open(gen / "store").serve() == url


def test_nothing_outside_what_is_served(gen):
    url = weft.serve(gen / "gen" / "traces.def")
    root = url.split("?")[0]
    origin = root.rsplit("/", 2)[0]
    for bad in (
        origin + "/",
        origin + "/index.html",
        origin + "/not-the-key/",
        root + "../index.html",
        root + "%2e%2e/%2e%2e/etc/passwd",
        root + "www/%2e%2e/%2e%2e/__init__.py",
        root + "t/0/other-name",
        root + "t/999/x",
        root + "s/0/manifest.json",
        opened(weft.serve(gen / "store"), "store") + "..%2f..%2fgen/traces.def",
    ):
        assert get(bad)[0] == 404, bad


def test_stop_frees_the_port_and_a_new_server_starts(gen):
    url = weft.serve(gen / "gen")
    weft.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)
    again = weft.serve(gen / "gen")
    assert again != url and get(again)[0] == 200
    with pytest.raises(FileNotFoundError, match="no such file"):
        weft.serve(gen / "missing")


def test_show_outside_a_notebook_prints_the_url(gen, capsys):
    assert weft.show(gen / "gen") is None
    printed = capsys.readouterr().out.strip()
    assert printed == weft.serve(gen / "gen")
    frame = _server._iframe(printed, 500, "100%")
    assert frame.src == printed and 'height="500"' in frame._repr_html_()


def test_a_package_without_the_page_says_how_to_build_it(monkeypatch, tmp_path):
    monkeypatch.setattr(_server, "VIEWER_DIR", tmp_path / "viewer")
    with pytest.raises(weft.ViewerMissing, match="build-static.sh python/weft/viewer"):
        _server.viewer_dir()


# -- the page in headless chromium ------------------------------------------------------------------------


def browser_check(url, shot):
    if not shutil.which("node"):
        pytest.skip("SKIPPED: no node to drive chromium")
    if not (ROOT / "tests" / "browser" / "node_modules" / "playwright-core").is_dir():
        pytest.skip("SKIPPED: no tests/browser/node_modules/playwright-core (cd tests/browser && npm ci)")
    if not Path("/usr/bin/chromium").is_file():
        pytest.skip("SKIPPED: no chromium at /usr/bin/chromium (the browser tests' harness uses Debian's)")
    r = subprocess.run(
        ["node", str(ROOT / "python" / "tests" / "show_check.mjs"), url, shot],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_served_page_draws_the_trace(gen):
    info = cli_json("info", "--json", gen / "gen" / "traces.otf2")
    got = browser_check(weft.serve(gen / "gen"), "python-show-trace")
    assert got["state"] == "ready", got
    assert got["file"] == "gen.tar"
    assert got["rows"] == info["locations"], got
    assert got["span_ns"] == info["span_ns"]
    assert got["marks"] > 0 and got["colours"] > 8, got
    assert got["problems"] == [], got["problems"]


def test_the_served_page_draws_a_store(gen):
    info = cli_json("info", "--json", gen / "store")
    got = browser_check(weft.serve(gen / "store"), "python-show-store")
    assert got["state"] == "ready", got
    assert got["store"] is not None and got["rows"] == info["locations"], got
    assert got["span_ns"] == info["span_ns"]
    assert got["marks"] > 0 and got["colours"] > 8, got
    assert got["problems"] == [], got["problems"]


def test_the_served_page_draws_a_shared_trace():
    need_viewer()
    p = SHARED / "otf2" / "pipit-ping-pong-mpi"
    if not p.is_dir():
        pytest.skip(f"SKIPPED: {p} is absent")
    got = browser_check(weft.serve(p), "python-show-shared")
    assert got["state"] == "ready" and got["rows"] == cli_json("info", "--json", p / "traces.otf2")["locations"], got
    assert got["marks"] > 0 and got["problems"] == [], got


# -- the wheel carries the page ---------------------------------------------------------------------------


def test_the_wheel_carries_the_page(tmp_path):
    need_viewer()
    maturin = shutil.which("maturin") or str(Path(sys.executable).parent / "maturin")
    if not Path(maturin).is_file():
        pytest.skip("SKIPPED: no maturin to build a wheel")
    env = dict(os.environ, CARGO_TARGET_DIR=os.environ.get("CARGO_TARGET_DIR", str(ROOT / "python" / "target")),
               PYO3_PYTHON=sys.executable)
    # The profile `maturin develop` built (scripts/python-test.sh): nothing compiles again.
    r = subprocess.run([maturin, "build", "-q", "--profile", "dev", "-m", str(ROOT / "python" / "Cargo.toml"),
                        "-o", str(tmp_path)], capture_output=True, text=True, env=env, timeout=1800)
    assert r.returncode == 0, r.stderr[-4000:]
    (wheel,) = tmp_path.glob("*.whl")
    viewer = _server.viewer_dir()
    want = {"weft/viewer/" + p.relative_to(viewer).as_posix() for p in viewer.rglob("*") if p.is_file()}
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert want <= names, sorted(want - names)[:10]
        for f in ("index.html", "www/pkg/weft_bg.wasm", "www/pkg-webgl/weft_bg.wasm", "www/pkg-worker/weft_bg.wasm"):
            assert z.read("weft/viewer/" + f) == (viewer / f).read_bytes(), f
