"""Ctrl-C and SIGTERM for the commands that call models: the first signal stops at once, the second quits.

First signal: one line, "stopping…", on standard error; then the main task is cancelled, which
cancels every episode's model calls in flight (teams.run_episode cancels its team's
CancellationToken), so the command can keep what finished and exit 130 (SIGINT) or 143 (SIGTERM).

Second signal: exit at once with that status, quietly. Nothing finished is lost: the run store
writes each episode in one SQLite transaction the moment it finishes. What must be said before
leaving (a sweep closes its session in the manifest) is registered with `on_quit` and runs first.

Whatever AutoGen's abandoned handler tasks do while the loop winds down (its queue raises
"task_done() called too many times" once it has been shut down) is not news to a user who asked
to stop, so after a stop the loop's exception handler stays silent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
STOPPING = "stopping… (press Ctrl-C again to quit at once)"


class Interrupted(Exception):
    """The command was stopped by a signal; `exit_code` is 130 for SIGINT, 143 for SIGTERM."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.exit_code = EXIT_CODES.get(signal.Signals(signum), 128 + signum)
        super().__init__(f"stopped by {signal.Signals(signum).name}")


@dataclass
class StopState:
    """Which signal asked to stop (None until one did)."""

    signum: int | None = None


def say_stopping() -> None:
    """The one line a user sees at the first Ctrl-C (standard error, so piped output stays clean)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"\n{STOPPING}\n")
        sys.stderr.flush()


# Last words before a quit: (the process that registered it, what to call with the signal number).
_LAST_WORDS: list[tuple[int, Callable[[int], None]]] = []


@contextlib.contextmanager
def on_quit(last_words: Callable[[int], None]) -> Iterator[None]:
    """While in this block, a second signal's quit calls `last_words(signum)` before leaving (in this
    process only: a forked worker inherits the list, not the job)."""
    entry = (os.getpid(), last_words)
    _LAST_WORDS.append(entry)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _LAST_WORDS.remove(entry)


def quit_now(signum: int) -> NoReturn:
    """The second signal: leave at once, without a traceback or the event loop's shutdown; only the
    `on_quit` last words run first."""
    me = os.getpid()
    for pid, last_words in reversed(_LAST_WORDS):
        if pid == me:
            with contextlib.suppress(Exception):
                last_words(signum)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
        sys.stdout.flush()
    os._exit(EXIT_CODES.get(signal.Signals(signum), 128 + signum))


def quiet_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Silence the loop's exception handler (used once a stop was asked for)."""
    loop.set_exception_handler(lambda _loop, _context: None)


def ignored_by_parent(signum: int) -> bool:
    """True when this process started with `signum` ignored (nohup, a shell's background job)."""
    return signal.getsignal(signum) is signal.SIG_IGN


def install(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], signals: Iterable[int],
            on_stop: Callable[[int], None] | None = None, *, announce: bool = True) -> StopState:
    """Handle `signals` in `loop`: the first cancels `task` (after `on_stop`), the second quits.

    A SIGINT this process inherited as ignored stays ignored.
    """
    state = StopState()

    def handler(signum: int) -> None:
        if state.signum is not None:
            quit_now(signum)
        state.signum = signum
        quiet_loop(loop)
        if announce:
            say_stopping()
        if on_stop is not None:
            on_stop(signum)
        task.cancel()

    for sig in signals:
        if sig == signal.SIGINT and ignored_by_parent(sig):
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler, sig)
    return state


def run(main: Coroutine[Any, Any, T], *, signals: Iterable[int] = (signal.SIGINT, signal.SIGTERM),
        on_stop: Callable[[int], None] | None = None) -> T:
    """`asyncio.run(main)` under the stop rule above.

    Raises:
        Interrupted: after `main` has unwound from the first signal.
    """
    sigs = tuple(signals)

    async def wrapper() -> T:
        task = asyncio.current_task()
        assert task is not None
        state = install(asyncio.get_running_loop(), task, sigs, on_stop)
        try:
            result = await main
        except asyncio.CancelledError:
            if state.signum is not None:
                raise Interrupted(state.signum) from None
            raise
        if state.signum is not None:  # `main` swallowed the cancellation: it was still a stop
            raise Interrupted(state.signum)
        return result

    return asyncio.run(wrapper())
