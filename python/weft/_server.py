"""The viewer inline (``weft.serve``, ``weft.show``, ``Trace.show``): a local HTTP server for the weft page.

One server per process, started on first use and reused: a ``ThreadingHTTPServer`` bound to 127.0.0.1 on a
free port, in a daemon thread, stopped by :func:`stop`. It serves

- ``/<key>/``: the weft page, the static build (``scripts/build-static.sh``) shipped inside the package in
  ``weft/viewer/`` (index.html, sw.js, www/ with pkg, pkg-webgl and pkg-worker);
- ``/<key>/t/<n>/<name>``: the n-th trace file registered (a trace folder, such as an OTF2 archive's, is
  packed once into an uncompressed tar, which the page reads as it reads a dropped .tar);
- ``/<key>/s/<n>/<path>``: the files of the n-th store folder registered (``manifest.json``, tiles).

``<key>`` is a random string made per server: another program or web page on this machine cannot guess the
URL of a trace, and the server answers nothing outside it. Files are sent in pieces (a trace is never read
whole into Python), with single ``Range: bytes=`` requests answered (206, 416) and ``Accept-Ranges: bytes``
on every file. The page opens the trace with ``?trace=URL`` or the store with ``?store=URL/``, as a hosted
page does (docs/hosting.md); the URLs are on the page's own origin, so no CORS header is needed.
"""

from __future__ import annotations

import http.server
import os
import re
import secrets
import tarfile
import tempfile
import threading
import urllib.parse
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

#: Where the page is in the installed package (python/README.md, "The viewer").
VIEWER_DIR = Path(__file__).resolve().parent / "viewer"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
_PIECE = 1 << 20
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class ViewerMissing(FileNotFoundError):
    """The weft page is not in this installation of the package (it was built without it)."""


def viewer_dir() -> Path:
    """The folder of the page; :class:`ViewerMissing` saying how to build it where it is absent."""
    d = VIEWER_DIR
    if not (d / "index.html").is_file() or not (d / "www" / "pkg-worker" / "weft_bg.wasm").is_file():
        raise ViewerMissing(
            f"{d}: the weft page is not in this installation of the weft package. Build it into the package "
            "before installing: `scripts/setup.sh --browser` (the wasm) then "
            "`WEFT_SKIP_WASM=1 scripts/build-static.sh python/weft/viewer`, from the repository root "
            "(python/README.md, \"The viewer\")"
        )
    return d


def is_store(path: Path) -> bool:
    """A store folder (``weft index``): a folder holding ``manifest.json``."""
    return path.is_dir() and (path / "manifest.json").is_file()


class Server:
    """The process's viewer server (:func:`server` makes it). ``url``: the page's URL."""

    def __init__(self):
        self._key = secrets.token_urlsafe(12)
        self._lock = threading.Lock()
        # id -> (kind "t" or "s", path on disk, name in the URL)
        self._served: List[Tuple[str, Path, str]] = []
        self._ids: Dict[Tuple[str, str], int] = {}
        self._packed = tempfile.TemporaryDirectory(prefix="weft-serve-")
        self._viewer = viewer_dir()
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="weft-serve", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The page's URL (nothing opened)."""
        return f"http://127.0.0.1:{self.port}/{self._key}/"

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def add(self, path: PathLike) -> str:
        """Serve ``path`` (a trace file or folder, or a store folder) and return the page's URL opening it."""
        p = Path(os.fspath(path)).resolve()
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
        kind = "s" if is_store(p) else "t"
        with self._lock:
            n = self._ids.get((kind, str(p)))
            if n is None:
                if kind == "t" and p.is_dir():
                    target, name = self._pack(p, len(self._served)), p.name + ".tar"
                else:
                    target, name = p, p.name
                n = len(self._served)
                self._served.append((kind, target, name))
                self._ids[(kind, str(p))] = n
        kind, _, name = self._served[n]
        if kind == "s":
            return f"{self.url}?store={urllib.parse.quote(self.file_url(n), safe='')}"
        return f"{self.url}?trace={urllib.parse.quote(self.file_url(n), safe='')}"

    def file_url(self, n: int) -> str:
        """The URL of the n-th served trace file, or of the n-th store folder (ending in ``/``)."""
        kind, _, name = self._served[n]
        if kind == "s":
            return f"{self.url}s/{n}/"
        return f"{self.url}t/{n}/{urllib.parse.quote(name)}"

    def _pack(self, folder: Path, n: int) -> Path:
        # A folder trace (an OTF2 archive's folder, per-rank files): an uncompressed tar of its files, as
        # the page reads a dropped .tar; made once per folder.
        out = Path(self._packed.name) / f"{n}-{folder.name}.tar"
        with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
            tar.add(folder, arcname=folder.name)
        return out

    def stop(self) -> None:
        """Stop serving (the port is freed; the tars made for folders are removed)."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        self._packed.cleanup()

    # -- what a request path names --------------------------------------------------------------------

    def resolve(self, url_path: str) -> Optional[Path]:
        """The file a request path names, or None (outside the key, unknown, or escaping its folder)."""
        parts = url_path.split("/")
        # "", key, rest...
        if len(parts) < 2 or parts[0] != "" or not secrets.compare_digest(parts[1], self._key):
            return None
        rest = [urllib.parse.unquote(p) for p in parts[2:]]
        if len(rest) >= 2 and rest[0] in ("t", "s") and rest[1].isdigit():
            n = int(rest[1])
            if n >= len(self._served):
                return None
            kind, target, name = self._served[n]
            if kind != rest[0]:
                return None
            if kind == "t":
                return target if rest[2:] == [name] else None
            return _inside(target, rest[2:])
        if rest in ([], [""]):
            rest = ["index.html"]
        return _inside(self._viewer, rest)


def _inside(root: Path, parts: List[str]) -> Optional[Path]:
    if any(p in ("", ".", "..") or "/" in p or "\\" in p or "\0" in p for p in parts):
        return None
    f = root.joinpath(*parts)
    try:
        f = f.resolve()
    except OSError:
        return None
    if root.resolve() not in f.parents or not f.is_file():
        return None
    return f


class _Handler(http.server.BaseHTTPRequestHandler):
    owner: Server
    server_version = "weft"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # quiet: a notebook's output is no place for an access log

    def _plain(self, code: int, text: str, extra: Optional[Dict[str, str]] = None) -> None:
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):  # noqa: N802 (http.server's name)
        self.do_GET()

    def do_GET(self):  # noqa: N802
        path = urllib.parse.urlsplit(self.path).path
        f = self.owner.resolve(path)
        if f is None:
            self._plain(404, "not found")
            return
        try:
            size = f.stat().st_size
            handle = f.open("rb")
        except OSError as e:
            self._plain(404, f"{f.name}: {e.strerror}")
            return
        with handle:
            start, end = 0, size
            ranged = self.headers.get("Range")
            if ranged is not None:
                span = _byte_range(ranged, size)
                if span is None:
                    self._plain(416, f"range {ranged} is outside the {size} bytes", {"Content-Range": f"bytes */{size}"})
                    return
                start, end = span
            self.send_response(206 if ranged is not None else 200)
            self.send_header("Content-Type", _TYPES.get(f.suffix, "application/octet-stream"))
            self.send_header("Content-Length", str(end - start))
            self.send_header("Accept-Ranges", "bytes")
            if ranged is not None:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            if self.command == "HEAD":
                return
            handle.seek(start)
            left = end - start
            try:
                while left > 0:
                    piece = handle.read(min(_PIECE, left))
                    if not piece:
                        break
                    self.wfile.write(piece)
                    left -= len(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page went away mid-file (a newer view's fetch, a closed tab)


def _byte_range(header: str, size: int) -> Optional[Tuple[int, int]]:
    """[start, end) of a single ``bytes=A-B``, ``bytes=A-`` or ``bytes=-N`` range of a ``size``-byte file; None
    where it is malformed, several, or outside the file."""
    m = _RANGE.match(header.strip())
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return None
    if m.group(1) == "":
        n = int(m.group(2))
        if n == 0 or size == 0:
            return None
        return max(0, size - n), size
    start = int(m.group(1))
    end = size - 1 if m.group(2) == "" else min(int(m.group(2)), size - 1)
    if start >= size or end < start:
        return None
    return start, end + 1


_server: Optional[Server] = None
_server_lock = threading.Lock()


def server() -> Server:
    """The process's server, started on first use (and again after :func:`stop`)."""
    global _server
    with _server_lock:
        if _server is None or not _server.running:
            _server = Server()
        return _server


def stop() -> None:
    """Stop the process's viewer server, if one runs. A later ``serve``/``show`` starts a new one."""
    global _server
    with _server_lock:
        if _server is not None:
            _server.stop()
            _server = None


def serve(path: PathLike) -> str:
    """Serve the weft page and ``path`` (a trace file or folder, or a store folder) from this process, on
    127.0.0.1, and return the URL of the page with it opened: print it, or open it with ``webbrowser``. The
    server runs in a background thread until :func:`stop` or the end of the process (a script that only
    serves must keep running: ``weft.serve(p); input()``)."""
    return server().add(path)


def show(path: PathLike, height: int = 640, width: Union[int, str] = "100%"):
    """Display the weft page with ``path`` opened in the notebook (Jupyter, JupyterLab, VS Code) as an
    iframe of :func:`serve`'s URL; returns nothing. Outside a notebook it prints the URL."""
    url = serve(path)
    frame = _iframe(url, height, width)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        print(url)
        return None
    if get_ipython() is None:
        print(url)
        return None
    display(frame)
    return None


def _iframe(url: str, height: int, width: Union[int, str]):
    try:
        from IPython.display import IFrame
    except ImportError:
        return None
    return IFrame(url, width=width, height=height)
