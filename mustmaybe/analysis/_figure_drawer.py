"""The report's figures drawn in a worker process while the main process computes the tables.

Drawing a report's PNGs with matplotlib (import, layout, rasterizing, PNG encoding) is all Python and takes
about as long as every table of a 100,000-episode report; it needs nothing the later tables compute. So a
large report hands each figure to one worker process (a plain `python -c` child, no multiprocessing, so no
caller's `__main__` is ever re-imported) as soon as its data is ready, and waits for the worker only before
the HTML, which embeds the PNGs. The worker runs the same functions of `_figures` on the same (pickled)
frames, so the files are byte for byte those drawn in-process. It loads `_figures.py` by its path, which
needs only numpy, polars and matplotlib: importing the `mustmaybe.analysis` package (every table module and
what they import) would cost it about half a second of CPU before its first figure.

A small report draws in-process: the worker's start (importing polars and matplotlib) would cost more than
it saves. If the worker fails in any way, every figure it was given is drawn again in-process, so an error
in a figure surfaces exactly as it would without the worker.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Episodes from which the report draws in a worker; MUSTMAYBE_FIGURES=worker|inline overrides it.
WORKER_FROM_EPISODES = 20_000
FIGURES_ENV = "MUSTMAYBE_FIGURES"

Job = tuple[str, tuple[Any, ...], dict[str, Any]]


class FigureDrawer:
    """Draws `_figures` functions inline or in one worker process; `close()` waits until every PNG exists."""

    def __init__(self, episodes: int) -> None:
        mode = os.environ.get(FIGURES_ENV, "")
        use_worker = mode == "worker" or (mode != "inline" and episodes >= WORKER_FROM_EPISODES)
        self._jobs: list[Job] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        if use_worker:
            try:
                # stderr not kept: a worker that fails has its figures drawn again here, where errors show.
                self._proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(_FIGURES)], stdin=subprocess.PIPE,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except OSError:
                self._proc = None  # no worker: draw in-process
            else:
                # A writer thread, so that a job larger than the pipe's buffer never holds up the tables
                # while the worker is still drawing the figure before it.
                self._writer = threading.Thread(target=self._write, args=(self._proc,), daemon=True)
                self._writer.start()

    def draw(self, fn: Callable[..., Path], *args: Any, **kwargs: Any) -> Path:
        """`fn(*args, **kwargs)` (a function of `_figures` that writes the PNG at its Path argument and returns
        that path), now or in the worker; returns the path at once."""
        path = next(a for a in (*args, *kwargs.values()) if isinstance(a, Path))
        if self._proc is None:
            return fn(*args, **kwargs)
        job: Job = (fn.__name__, args, kwargs)
        self._jobs.append(job)
        try:
            self._queue.put(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            self._stop_worker(kill=True)
            self._redraw()
        return path

    def close(self) -> None:
        """Wait for the worker; if it failed, draw its figures here."""
        if self._stop_worker(kill=False) != 0:
            self._redraw()

    def _write(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None
        try:
            while (data := self._queue.get()) is not None:
                proc.stdin.write(data)
                proc.stdin.flush()
            proc.stdin.close()  # the worker's EOF: it exits when its last figure is written
        except OSError:
            proc.kill()  # the worker is gone: close() sees its status and draws its figures here

    def _stop_worker(self, *, kill: bool) -> int:
        """End the writer and the worker (at once with `kill`, else once its last figure is drawn); its status."""
        proc, writer, self._proc, self._writer = self._proc, self._writer, None, None
        if proc is None:
            return 0
        if kill:
            proc.kill()
        self._queue.put(None)
        if writer is not None:
            writer.join()
        return proc.wait()

    def _redraw(self) -> None:
        from . import _figures

        jobs, self._jobs = self._jobs, []
        for name, args, kwargs in jobs:
            getattr(_figures, name)(*args, **kwargs)


_FIGURES = Path(__file__).resolve().with_name("_figures.py")
# The worker: `_figures.py` (argv[1]) loaded on its own, then every figure it reads from stdin drawn with it.
_WORKER = """
import importlib.util, pickle, sys
import matplotlib.figure  # imported while the parent computes its first tables
spec = importlib.util.spec_from_file_location("_mustmaybe_figures", sys.argv[1])
figures = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = figures
spec.loader.exec_module(figures)
stdin = sys.stdin.buffer
while True:
    try:
        name, args, kwargs = pickle.load(stdin)
    except EOFError:
        break
    getattr(figures, name)(*args, **kwargs)
"""
