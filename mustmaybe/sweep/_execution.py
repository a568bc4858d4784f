"""Running a sweep's episodes: in this process's event loop, or forked over worker processes.

Stopping (Ctrl-C, SIGTERM): the first signal prints "stopping…", starts no further episode and
cancels the model calls in flight at once; every finished episode is already stored (one
transaction each), so `--resume` repeats none of them. A second signal exits at once, quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.interrupt import StopState, ignored_by_parent, install, quit_now, say_stopping
from mustmaybe.store import RunStore

from ._display import render, run_with_display
from ._plan import SweepPlan
from ._resume import SweepOptions
from ._runner import SweepRunner
from ._tally import Tally

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

# Episodes allocate many short-lived container objects (agents, runtimes, pydantic models); with
# the default thresholds (700, 10, 10) the cyclic collector ran ~1,000 times per 640 episodes and
# took 1.5-1.7 s of a ~10 s CPU sweep (peer benchmark workload). Collecting the young generation
# every 20,000 allocations cuts that to ~0.5 s for ~35 MB more peak RSS; freezing what exists
# before the episodes start (imports, library, plan) keeps it out of every pass and keeps forked
# workers' pages shared. Garbage is still collected, in larger batches.
_SWEEP_GC_THRESHOLD = (20_000, 20, 100)


@contextlib.contextmanager
def lean_runtime() -> Iterator[None]:
    """Run the episodes with a frozen heap, a larger young generation, idle tracing off and the dependency
    patches on (agents/_patches.py: diagnostics nobody reads, the idle-connection probe, the SDK's
    parameter walk); restore all four. The collector is on for the episodes: a start-up pause
    (mustmaybe/_collector.py) ends here, once the heap it built is frozen."""
    from mustmaybe._collector import resume
    from mustmaybe.agents import dependency_patches

    old = gc.get_threshold()
    gc.freeze()  # no collect first: a full pass costs ~65 ms of start-up; unfreeze() hands leftovers back
    gc.set_threshold(*_SWEEP_GC_THRESHOLD)
    resume()  # the collector, off while `mustmaybe sweep` imported and planned (mustmaybe/_collector.py)
    # Each episode's runtime opens ~80 spans. With no OpenTelemetry provider configured they go
    # nowhere; AutoGen's switch then skips the proxy tracer layer (~1.2 µs a span). An explicit
    # setting of the variable, or a configured provider, is left alone.
    tracing_env = None
    if _TRACING_ENV not in os.environ and _no_tracer_provider():
        tracing_env = os.environ[_TRACING_ENV] = "true"
    try:
        with dependency_patches():
            yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()
        if tracing_env is not None:
            os.environ.pop(_TRACING_ENV, None)


_TRACING_ENV = "AUTOGEN_DISABLE_RUNTIME_TRACING"


def _no_tracer_provider() -> bool:
    from opentelemetry import trace

    from mustmaybe import tracing

    provider = trace.get_tracer_provider()
    # mustmaybe's own provider with no trace session open records nothing: as good as none.
    return isinstance(provider, trace.ProxyTracerProvider) or tracing.idle_provider(provider)


class _Terminated(Exception):
    """SIGTERM reached the parent of worker processes."""


def run_here(plan: SweepPlan, todo: list[Any], rerun: set[str], store: RunStore, cache_path: Path | None,
              session_n: int, tally: Tally, console: Console | None, opts: SweepOptions) -> tuple[Tally, list[str]]:
    """Run every episode in this process's event loop."""
    cache = None
    if cache_path is not None:
        from mustmaybe.agents import ResponseCache

        cache = ResponseCache(cache_path)
    runner = SweepRunner(plan, store, tally, cache=cache, session=session_n, replace=rerun)
    try:
        asyncio.run(_run_with_stop(runner, todo, plan.max_in_flight, console, opts))
    except asyncio.CancelledError:
        if runner.stopped == "SIGINT":
            raise KeyboardInterrupt() from None
        raise
    finally:
        if cache is not None:
            cache.close()
    return tally, []


def run_workers(plan: SweepPlan, todo: list[Any], workers: int, rerun: set[str], store: RunStore,
                 secrets: list[str], cache_path: Path | None, session_n: int, base: Tally, console: Console | None,
                 opts: SweepOptions, latest: list[Tally], pool: Any = None) -> tuple[Tally, list[str]]:
    """Fork `workers` processes over the episodes; draw their combined counts until they finish.

    `latest` receives the combined counts as they come in (for the manifest if this is interrupted).
    `pool` replaces the forked processes with another pool of the same interface (a `RayPool`).
    """
    if pool is None:
        from ._workers import WorkerPool

        pool = WorkerPool(plan, todo, workers, replace=rerun, run_dir=store.run_dir, secrets=secrets,
                          cache_path=cache_path, session=session_n)

    def current() -> Tally:
        t = base.combined([pool.parts[i] for i in sorted(pool.parts)])
        latest.append(t)
        del latest[:-1]
        return t

    stop = StopState()

    def on_signal(signum: int, frame: Any) -> None:
        if stop.signum is not None:
            quit_now(signum)  # the second signal: at once, quietly (workers see their parent gone and stop)
        stop.signum = signum
        say_stopping()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt()
        raise _Terminated()

    handled = [s for s in (signal.SIGINT, signal.SIGTERM) if not (s == signal.SIGINT and ignored_by_parent(s))]
    previous = {s: signal.signal(s, on_signal) for s in handled}
    live: Live | None = None
    try:
        if _live(console, opts):
            from rich.live import Live

            live = Live(render(current()), console=console, auto_refresh=False, transient=False)
            live.start()

        def tick() -> None:
            if live is not None:
                live.update(render(current()), refresh=True)

        pool.wait(tick, opts.refresh_s)
        final = current()
        final.status = "finished" if final.failed == 0 and not pool.errors else "incomplete"
        for ep in final.endpoints.values():
            ep.in_flight = 0
        if live is not None:
            live.update(render(final), refresh=True)
        return final, list(pool.errors)
    except _Terminated:
        pool.stop()
        current()
        raise asyncio.CancelledError() from None
    except BaseException:
        pool.stop()
        current()
        raise
    finally:
        if live is not None:
            live.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)


def _live(console: Console | None, opts: SweepOptions) -> bool:
    """Whether the live display is drawn: a console on a terminal, and no `--json`."""
    return console is not None and not opts.json and console.is_terminal


async def _run_with_stop(runner: SweepRunner, todo: list[Any], max_in_flight: int, console: Console | None,
                         opts: SweepOptions) -> None:
    install_stop_handlers(runner)
    await run_with_display(runner, todo, max_in_flight, console, live=_live(console, opts),
                           refresh_s=opts.refresh_s)


def install_stop_handlers(runner: SweepRunner) -> None:
    """Ctrl-C and SIGTERM: say "stopping…", start no further episode, cancel those in flight (and
    their model calls) at once, remember which signal; a second signal exits at once, quietly."""
    main = asyncio.current_task()
    if main is None:
        return

    def stop(signum: int) -> None:
        runner.stop(signal.Signals(signum).name)
        runner.tally.status = "stopping…"

    install(asyncio.get_running_loop(), main, (signal.SIGINT, signal.SIGTERM), on_stop=stop)

