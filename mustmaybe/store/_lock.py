"""One writer per run folder: an OS file lock on `RUN/.writer.lock`, with the holder's pid for the message.

Two sweeps on one folder at once (a `--resume` in a second terminal while the first still runs) would
both run the episodes left: every model call of those paid twice. The first writer holds an exclusive
`flock` on the lock file for as long as it writes; a second one is refused at once, naming the
holder, before any model call. The OS drops the lock when its holder ends, however it ends (even
SIGKILL), so a dead holder never leaves a stale lock behind; the file itself stays, empty.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

from mustmaybe.errors import UserError

LOCK = ".writer.lock"


def _holder(fd: int) -> str:
    """What the lock file says about its holder ('pid 123 on host: mustmaybe sweep …'), or that it is unknown."""
    with contextlib.suppress(OSError):
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 4096).decode("utf-8", "replace").strip()
        if text:
            return text
    return "another process"


@contextlib.contextmanager
def writer_lock(run_dir: str | Path) -> Iterator[None]:
    """Hold the run folder's writer lock while in the block (the folder is created if needed).

    Raises:
        UserError: another live process holds it (exit 2); the message names that process.
    """
    folder = Path(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise UserError(f"{folder} is being written by {holder}; a run folder has one writer at a time: wait for "
                        f"it to end (or stop it), then --resume") from None
    try:
        os.ftruncate(fd, 0)
        argv = " ".join(["mustmaybe", *sys.argv[1:]])[:300]
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}: {argv}\n".encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # an unheld lock says nothing about a holder
        os.close(fd)  # closing the last descriptor drops the lock
