"""The progress bar of ``weft.open`` for long reads: tqdm's where tqdm is installed (``tqdm.auto``: a widget in
a notebook with ipywidgets; tqdm's text bar in a terminal or a notebook without), else a line on stderr rewritten in
place. It is driven by the Rust reader's ``progress(done, total)`` calls (src/progress.rs: at most ten a
second, and one at the end)."""

from __future__ import annotations

import sys
import time
from typing import Optional

from . import _weft

#: Files at least this large show a progress bar by default (``weft.open(path, progress=None)``).
PROGRESS_MIN_BYTES = 256 << 20


def bar_for(path: str, progress: Optional[bool]):
    """The bar for reading ``path``, or None (no bar asked for, a small file, or nothing to report)."""
    if progress is False:
        return None
    if progress not in (None, True):
        raise ValueError(f"progress: expected True, False or None, not {progress!r}")
    size = _weft.progress_size(path)
    if size is None or (progress is None and size < PROGRESS_MIN_BYTES):
        return None
    label = f"reading {path.rsplit('/', 1)[-1] or path}"
    try:
        import tqdm as _  # noqa: F401
    except ImportError:
        return LineBar(label, size)
    try:
        # A widget in a notebook that has ipywidgets; tqdm.auto elsewhere warns ("IProgress not found") and
        # falls back to text, which the plain tqdm draws without the warning.
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm
    return TqdmBar(tqdm, label, size)


class TqdmBar:
    def __init__(self, tqdm, label: str, total: int):
        self._bar = tqdm(total=total, desc=label, unit="B", unit_scale=True, unit_divisor=1024, leave=True)
        self._done = 0

    def update(self, done: int, total: int) -> None:
        if total != self._bar.total:
            self._bar.total = total
        self._bar.update(done - self._done)
        self._done = done

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._bar.close()
        return False


class LineBar:
    """``reading NAME: 45% (1.2 of 2.6 GiB, 310 MiB/s)`` on stderr, rewritten in place, then a newline."""

    def __init__(self, label: str, total: int, stream=None):
        self.label, self.total, self.done = label, total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()

    def update(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        pct = 100 * done // total if total else 100
        secs = time.monotonic() - self.started
        rate = f", {_bytes(done / secs)}/s" if secs > 0 and done else ""
        self.stream.write(f"\r{self.label}: {pct}% ({_bytes(done)} of {_bytes(total)}{rate})")
        self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.write("\n")
        self.stream.flush()
        return False


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
