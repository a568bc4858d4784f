"""`mustmaybe watch RUN`: follow a sweep from another terminal by polling its run folder.

It reads only the store (read-only) and the manifest, and shows the sweep's own display. It
stops when the manifest says the sweep ended, or when the process that runs it is gone (a
killed sweep never gets to say so), or on Ctrl-C.
"""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError
from mustmaybe.store import RunStore, pid_alive, read_manifest

from ._display import render
from ._tally import Tally

if TYPE_CHECKING:
    from rich.console import Console


def _seconds_since(iso: str | None) -> float | None:
    if not iso:
        return None
    try:
        return (datetime.now(UTC) - datetime.fromisoformat(iso)).total_seconds()
    except ValueError:
        return None


def run_status(manifest: dict[str, Any]) -> str:
    """The manifest's status, or `stopped` for a `running` sweep whose process is gone."""
    status = str(manifest.get("status", "unknown"))
    if status != "running":
        return status
    sessions = manifest.get("sessions") or []
    last = sessions[-1] if sessions else {}
    pid, host = last.get("pid"), last.get("host")
    if isinstance(pid, int) and host == socket.gethostname() and not pid_alive(pid):
        return "stopped"
    return status


def snapshot(run_dir: Path, store: RunStore) -> tuple[Tally, dict[str, Any]]:
    """The run's counts now, as the sweep itself would show them."""
    manifest = read_manifest(run_dir)
    sweep = manifest.get("sweep") or {}
    # A sweep plans its episodes; a single `run` folder's manifest counts what it stored.
    total = int(sweep.get("episodes") or manifest.get("episodes") or store.count())
    tally = Tally.from_store(store, name=str(manifest.get("name", run_dir.name)), total=total,
                             simulated=bool(manifest.get("simulated")))
    for name, n in (sweep.get("calls_by_endpoint") or {}).items():
        tally.endpoint(name).planned = int(n)
    tally.status = run_status(manifest)
    sessions = manifest.get("sessions") or []
    timing: dict[str, Any] = manifest if manifest.get("kind") == "run" else {}  # a run: the manifest's own times
    if sessions:
        last = timing = sessions[-1]
        this, this_failed = store.query(f"SELECT COUNT(*), COALESCE(SUM({store.failed_sql}), 0) FROM episodes "
                                        "WHERE session = ?", (last.get("session", 0),))[0]
        tally.done_before -= int(this) - int(this_failed)  # failed episodes were never in done_before
        tally.ran = int(this)
        tally.ran_failed = int(this_failed)  # already in `failed`, as they are in a live sweep's counts
    ago, ended_ago = _seconds_since(timing.get("started_at")), _seconds_since(timing.get("ended_at"))
    if ago is not None:
        now = time.monotonic()
        tally.started = tally.first_start = now - ago
        tally.last_end = now - ended_ago if ended_ago is not None else now
        if ended_ago is not None and tally.status != "running":
            tally.ended = now - ended_ago  # a finished session: its real duration, not a growing clock
    return tally, manifest


def watch_run(run_dir: str | Path, *, once: bool = False, interval: float = 1.0, live: bool = True,
              console: Console | None = None) -> tuple[int, Tally]:
    """Follow the run until it ends (or one snapshot with `once`); returns the exit status and the
    last counts. With `live` and a terminal, the display updates in place; otherwise nothing is
    printed and the caller prints the returned counts.

    Raises:
        UserError: not a run folder.
    """
    run = Path(run_dir)
    from rich.console import Console
    from rich.live import Live

    console = console or Console(highlight=False)
    try:
        store = RunStore(run, readonly=True)
        read_manifest(run)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    with store:
        tally, _ = snapshot(run, store)
        if once:
            return 0, tally
        if not (live and console.is_terminal):
            try:
                while tally.status == "running":
                    time.sleep(interval)
                    tally, _ = snapshot(run, store)
            except KeyboardInterrupt:
                return 130, tally
            return 0, tally
        with Live(render(tally, source="watch"), console=console, auto_refresh=False) as display:
            try:
                while tally.status == "running":
                    time.sleep(interval)
                    tally, _ = snapshot(run, store)
                    display.update(render(tally, source="watch"), refresh=True)
            except KeyboardInterrupt:
                return 130, tally
    return 0, tally
