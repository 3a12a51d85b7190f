"""examples/diagnosis.ipynb, executed with nbclient (issue #56): every cell runs without an error on a generated
trace and on the shared stencil trace (skipped, saying so, where ../shared/traces is absent), and its
figures are the command line's (info, the largest wait pattern, the critical path's length); its last cell
displays the weft page in an iframe served on 127.0.0.1."""

import json
import os
import re
from pathlib import Path

import pytest

import weft
from weft import _server as weft_server

from test_weft import ROOT, SHARED, cli, cli_json

NOTEBOOK = ROOT / "examples" / "diagnosis.ipynb"


def run_notebook(trace: Path):
    nbformat = pytest.importorskip("nbformat", reason="SKIPPED: no nbformat (pip install -r python/requirements-test.txt)")
    nbclient = pytest.importorskip("nbclient", reason="SKIPPED: no nbclient (pip install -r python/requirements-test.txt)")
    pytest.importorskip("ipykernel", reason="SKIPPED: no ipykernel (pip install -r python/requirements-test.txt)")
    try:
        weft_server.viewer_dir()
    except weft.ViewerMissing as e:
        pytest.skip(f"SKIPPED: the notebook's last cell shows the page: {e}")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    old = os.environ.get("WEFT_TRACE")
    os.environ["WEFT_TRACE"] = str(trace)
    try:
        # The kernel: this interpreter's ipykernel (the environment weft is installed in).
        client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                         resources={"metadata": {"path": str(NOTEBOOK.parent)}})
        client.execute()
    finally:
        if old is None:
            os.environ.pop("WEFT_TRACE", None)
        else:
            os.environ["WEFT_TRACE"] = old
    return nb


def outputs(nb):
    """Every code cell's outputs: (source, [(mime or stream name, text)])."""
    out = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        got = []
        for o in c.get("outputs", []):
            assert o.output_type != "error", f"{c.source}: {o.get('ename')}: {o.get('evalue')}"
            if o.output_type == "stream":
                got.append((o.name, o.text))
            else:
                for mime, v in o.get("data", {}).items():
                    got.append((mime, v if isinstance(v, str) else json.dumps(v)))
        out.append((c.source, got))
    return out


def check(nb, trace):
    cells = outputs(nb)
    assert all(got for _, got in cells[1:]), [src for src, got in cells if not got]
    text = "\n".join(v for _, got in cells for k, v in got if k in ("stdout", "text/plain"))
    info = cli_json("info", "--json", trace)
    for k in ("format", "processes", "locations", "intervals", "messages", "span_ns"):
        assert re.search(rf"'{k}': {re.escape(repr(info[k]))}", text), (k, info[k])
    waits = cli_json("waits", "--json", trace)
    worst = max(waits["patterns"].items(), key=lambda kv: kv[1]["total_ns"])
    assert f"largest wait pattern: {worst[0]} {worst[1]['total_ns']} ns of {waits['total_wait_ns']} ns waiting" in text
    length = cli_json("critical-path", "--json", trace)["length_ns"]
    assert f"critical path: {length} ns of a {info['span_ns']} ns run" in text
    # The last cell: the page in an iframe of the kernel's server.
    src, got = cells[-1]
    assert src.strip() == "t.show(height=520)"
    html = [v for k, v in got if k == "text/html"]
    assert len(html) == 1 and re.search(r'<iframe[^>]+src="http://127\.0\.0\.1:\d+/[^"]+\?trace=', html[0]), got


def test_the_notebook_on_a_generated_trace(tmp_path):
    out = tmp_path / "run"
    cli("generate", "otf2", "--ranks", "4", "--events", "20000", "--jobs", "1", "-o", out)
    trace = out / "traces.otf2"
    check(run_notebook(trace), trace)


def test_the_notebook_on_the_shared_stencil_trace():
    trace = SHARED / "otf2" / "tracer-stencil4d-mpi-32" / "traces.otf2"
    if not trace.is_file():
        pytest.skip(f"SKIPPED: {trace} is absent")
    check(run_notebook(trace), trace)
