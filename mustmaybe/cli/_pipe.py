"""Console output that a closed pipe never stops: `mustmaybe run … | head` still stores its episode.

Rich's default answer to a closed standard output is `SystemExit(1)` from inside whatever is printing,
which for the live view means from inside the episode: the run folder was never written and a paid
episode was thrown away. Here the console goes quiet instead (output to /dev/null), the command
finishes and stores what it ran, and the caller exits with 141 (as a process killed by SIGPIPE).
"""

from __future__ import annotations

import contextlib
import os
import sys

from rich.console import Console

EXIT_BROKEN_PIPE = 141


class PipeSafeConsole(Console):
    """A rich Console that, when its reader goes away, stops writing and remembers it (`pipe_closed`)."""

    pipe_closed = False

    def on_broken_pipe(self) -> None:
        self.quiet = True
        PipeSafeConsole.pipe_closed = True  # class-wide: every console of this command writes to the same pipe
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
