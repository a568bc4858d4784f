"""One `mustmaybe sweep` session: prepare (or resume) the run folder, run, display, finish the manifest.

Resume policy (also written to the manifest): with `--resume`, every episode the store holds is
kept and not run again, except failed episodes (a model call finally failed: nothing was scored)
and episodes whose record carries an infrastructure error (timeout, 429 or 5xx after retries,
lost connection, a body that is not a chat completion); those are run again and their record
replaced, in one transaction, when the new one lands. Planned episodes that raised instead of
returning a record (noted in `failures`) are run again too. Model misbehaviour (unparseable or
wrong-shape answers, empty content) is data: such episodes are kept.

Stopping (Ctrl-C, SIGTERM): the first signal prints "stopping…", starts no further episode and
cancels the model calls in flight at once; every finished episode is already stored (one
transaction each), so `--resume` repeats none of them. Exit status 130 (SIGINT) or 143 (SIGTERM).
A second signal exits at once, quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live

from mustmaybe._interrupt import StopState, ignored_by_parent, install, quit_now, say_stopping
from mustmaybe.errors import UserError
from mustmaybe.store import (
    MANIFEST,
    RUN_SCHEMA,
    RunStore,
    git_state,
    host_info,
    package_versions,
    read_manifest,
    update_manifest,
    write_manifest,
)

from ._display import in_flight, render
from ._plan import SweepPlan
from ._runner import SweepRunner
from ._tally import Tally

RESUME_POLICY = {
    "keep": "every stored episode, including those with recorded model errors (parse, shape, empty content)",
    "rerun": "failed episodes (a model call finally failed) and episodes with an infrastructure error "
             "(timeout, rate_limited, connection_error, http_5xx after retries, not_a_completion), replaced in "
             "one transaction when the new record lands; planned episodes that raised",
    "same_sweep": "the sweep's name and its set of episode keys must match; execution settings "
                  "(concurrency, rate, timeout, key variable, cache) may change",
}
CACHE_NOTE = "sim backend calls are not cached (deterministic and free)"


@dataclass
class SweepOptions:
    out: Path | None = None
    resume: bool = False
    use_cache: bool = True
    json: bool = False
    runs_dir: Path = Path("runs")
    refresh_s: float = 0.5


# Episodes allocate many short-lived container objects (agents, runtimes, pydantic models); with
# the default thresholds (700, 10, 10) the cyclic collector ran ~1,000 times per 640 episodes and
# took 1.5-1.7 s of a ~10 s CPU sweep (peer benchmark workload). Collecting the young generation
# every 20,000 allocations cuts that to ~0.5 s for ~35 MB more peak RSS; freezing what exists
# before the episodes start (imports, library, plan) keeps it out of every pass and keeps forked
# workers' pages shared. Garbage is still collected, in larger batches.
_SWEEP_GC_THRESHOLD = (20_000, 20, 100)


@contextlib.contextmanager
def lean_runtime() -> Iterator[None]:
    """Run the episodes with a frozen heap, a larger young generation and idle tracing off; restore all three."""
    old = gc.get_threshold()
    gc.freeze()  # no collect first: a full pass costs ~65 ms of start-up; unfreeze() hands leftovers back
    gc.set_threshold(*_SWEEP_GC_THRESHOLD)
    # Each episode's runtime opens ~80 spans. With no OpenTelemetry provider configured they go
    # nowhere; AutoGen's switch then skips the proxy tracer layer (~1.2 µs a span). An explicit
    # setting of the variable, or a configured provider, is left alone.
    tracing_env = None
    if _TRACING_ENV not in os.environ and _no_tracer_provider():
        tracing_env = os.environ[_TRACING_ENV] = "true"
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()
        if tracing_env is not None:
            os.environ.pop(_TRACING_ENV, None)


_TRACING_ENV = "AUTOGEN_DISABLE_RUNTIME_TRACING"


def _no_tracer_provider() -> bool:
    from opentelemetry import trace

    return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def collect_secrets(plan: SweepPlan) -> list[str]:
    """Values of the key variables the sweep uses (so the store can keep them out).

    Raises:
        UserError: a variable named by `api_key_env` is not set.
    """
    secrets = []
    for url, ep in plan.endpoints.items():
        if ep.api_key_env:
            value = os.environ.get(ep.api_key_env)
            if not value:
                raise UserError(f"endpoint {url}: environment variable {ep.api_key_env} (named by api_key_env) "
                                f"is not set; export it with the key for this endpoint")
            secrets.append(value)
        elif os.environ.get("OPENAI_API_KEY"):
            secrets.append(os.environ["OPENAI_API_KEY"])
    return secrets


def _new_run_dir(plan: SweepPlan, opts: SweepOptions) -> Path:
    if opts.out is not None:
        out = opts.out
        if (out / MANIFEST).exists():
            raise UserError(f"{out} already holds a run; add --resume to continue it, or choose another --out")
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UserError(f"{out} exists and is not an empty folder; choose another --out")
        return out
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = opts.runs_dir / f"{plan.name}-{stamp}"
    n = 1
    while out.exists():
        n += 1
        out = opts.runs_dir / f"{plan.name}-{stamp}-{n}"
    return out


def _check_resume(plan: SweepPlan, out: Path | None) -> tuple[Path, dict[str, Any]]:
    if out is None:
        raise UserError("--resume needs --out DIR: the run folder to continue")
    try:
        manifest = read_manifest(out)
    except FileNotFoundError:
        raise UserError(f"{out}: not a run folder (no {MANIFEST}); nothing to resume") from None
    if manifest.get("kind") != "sweep":
        raise UserError(f"{out}: holds a `{manifest.get('kind', '?')}` run, not a sweep; nothing to resume")
    sweep = manifest.get("sweep") or {}
    if sweep.get("digest") != plan.digest:
        raise UserError(
            f"{out} holds sweep '{sweep.get('name')}' ({sweep.get('episodes')} episodes, digest "
            f"{str(sweep.get('digest'))[:12]}), but {plan.path} is a different sweep ('{plan.name}', "
            f"{len(plan.episodes)} episodes, digest {plan.digest[:12]}). Resume with the sweep file the run was "
            f"made with ({sweep.get('sweep_file')}), or choose another --out"
        )
    return out, manifest


def _session_record(n: int, resumed: bool, todo: int, checker_version: str) -> dict[str, Any]:
    return {"session": n, "pid": os.getpid(), "host": host_info()["hostname"], "resumed": resumed,
            "started_at": _now(), "ended_at": None, "status": "running", "to_run": todo,
            "checker_version": checker_version}


def execute_sweep(plan: SweepPlan, opts: SweepOptions, console: Console | None = None,
                  err_console: Console | None = None) -> tuple[int, dict[str, Any]]:
    """Run (or resume) a sweep; returns the exit status and the final summary.

    Exit status: 0 every planned episode is stored and scored; 1 some episodes failed or raised (run
    them again with --resume); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).

    Raises:
        UserError: missing key variable, unusable --out, or a --resume of another sweep.
    """
    from mustmaybe.checker import CHECKER_VERSION

    console = console or Console(highlight=False)
    err_console = err_console or Console(stderr=True, highlight=False)
    secrets = collect_secrets(plan)
    if opts.resume:
        run_dir, manifest = _check_resume(plan, opts.out)
    else:
        run_dir, manifest = _new_run_dir(plan, opts), {}
    store = RunStore(run_dir, secrets=secrets)
    try:
        return _execute(plan, opts, store, manifest, CHECKER_VERSION, console, err_console)
    finally:
        store.close()


def _execute(plan: SweepPlan, opts: SweepOptions, store: RunStore, manifest: dict[str, Any], checker_version: str,
             console: Console, err_console: Console) -> tuple[int, dict[str, Any]]:
    run_dir = store.run_dir
    plan_keys = {e.key for e in plan.episodes}
    stored = store.keys() & plan_keys
    rerun = ((store.infra_failed_keys() | store.failed_keys()) & plan_keys) if opts.resume else set()
    todo = [e for e in plan.episodes if e.key not in stored or e.key in rerun]
    cache_path = plan.cache_path or (run_dir / "cache.sqlite")
    session_n = len(manifest.get("sessions", [])) + 1
    session = _session_record(session_n, opts.resume, len(todo), checker_version)

    if not opts.resume:
        store.put_tasks(plan.scenarios.values())
        with contextlib.suppress(OSError):
            shutil.copyfile(plan.path, run_dir / "sweep.toml")
        manifest = {
            "schema": RUN_SCHEMA, "kind": "sweep", "name": plan.name, "status": "running",
            "created_at": _now(), "started_at": _now(), "ended_at": None, "simulated": plan.simulated,
            "sweep": plan.resolved(), "versions": package_versions(), "git": git_state(),
            "checker_version": checker_version, "tasks": plan.task_hashes(),
            "cache": {"enabled": opts.use_cache, "path": str(cache_path), "note": CACHE_NOTE},
            "resume_policy": RESUME_POLICY, "host": host_info(), "sessions": [session], "counts": None,
        }
        write_manifest(run_dir, manifest)
    else:
        store.put_tasks(plan.scenarios.values())

        def start(m: dict[str, Any]) -> None:
            m.update(status="running", ended_at=None, checker_version=checker_version)
            m["cache"] = {"enabled": opts.use_cache, "path": str(cache_path), "note": CACHE_NOTE}
            m.setdefault("sessions", []).append(session)

        update_manifest(run_dir, start)

    tally = Tally.from_store(store, name=plan.name, total=len(plan.episodes), simulated=plan.simulated,
                             exclude_infra=opts.resume, include_failures=False) if stored else \
        Tally(name=plan.name, total=len(plan.episodes), simulated=plan.simulated)
    for ep_name, n in plan.calls_by_endpoint.items():
        tally.endpoint(ep_name).planned = n

    use_cache = opts.use_cache and any(m.backend != "sim" for e in todo for m in e.spec.models.values())
    workers = max(1, min(plan.workers, len(todo)))
    if not opts.json:
        err_console.print(f"[bold]run folder[/bold] {run_dir}  ·  {len(todo):,} of {len(plan.episodes):,} episodes "
                          f"to run" + (f" ({len(rerun)} again after failures)" if rerun else "")
                          + (f"  ·  {workers} worker processes" if workers > 1 else ""))
        for w in plan.warnings:
            err_console.print(f"[yellow]warning:[/yellow] {w}")

    exit_code = 0
    status = "running"
    errors: list[str] = []
    try:
        with lean_runtime():
            if workers > 1:
                store.close()  # never carry an open SQLite connection across fork()
                latest = [tally]
                try:
                    tally, errors = _run_workers(plan, todo, workers, rerun, store, collect_secrets(plan),
                                                 cache_path if use_cache else None, session_n, tally, console,
                                                 opts, latest)
                finally:
                    tally = latest[-1]
            else:
                tally, errors = _run_here(plan, todo, rerun, store, cache_path if use_cache else None, session_n,
                                          tally, console, opts)
    except KeyboardInterrupt:
        status, exit_code = "interrupted", 130
    except asyncio.CancelledError:
        status, exit_code = "interrupted", 143
    finally:
        stored_now = _stored_counts(run_dir)
        if status == "running":
            ok = stored_now["done"] >= len(plan.episodes) and stored_now["failed"] == 0 and not errors
            status = "finished" if ok else "incomplete"
            exit_code = 0 if ok else 1
        tally.status = status
        summary = {"run": str(run_dir), **tally.summary(), **stored_now}
        if errors:
            summary["worker_errors"] = errors
        counts = {k: summary[k] for k in ("episodes", "done", "failed", "with_errors", "infra_errors", "parse_errors")}

        def finish(m: dict[str, Any]) -> None:
            m.update(status=status, ended_at=_now(), counts=counts)
            for s in m.get("sessions", []):
                if s.get("session") == session_n:
                    s.update(ended_at=_now(), status=status, ran=tally.ran, failed=tally.failed,
                             in_tool_s=summary["in_tool_s"])

        update_manifest(run_dir, finish)
    if not opts.json and not console.is_terminal:
        console.print(render(tally))
    return exit_code, summary


def _stored_counts(run_dir: Path) -> dict[str, int]:
    """What the store holds now (authoritative, whatever the live counts saw last).

    `done` counts scored episodes; `failed` counts failed episodes (stored, nothing scored) and
    planned episodes that raised without a record. Both kinds are run again by --resume.
    """
    with RunStore(run_dir, readonly=True) as s:
        stored, with_errors, infra, failed_eps = s.query(
            f"SELECT COUNT(*), COALESCE(SUM(errors > 0), 0), COALESCE(SUM(infra_error), 0), "
            f"COALESCE(SUM({s.failed_sql}), 0) FROM episodes")[0]
        raised = len(s.failure_keys() - s.keys())
    return {"done": int(stored) - int(failed_eps), "with_errors": int(with_errors), "infra_errors": int(infra),
            "failed": int(failed_eps) + raised, "raised": raised}


class _Terminated(Exception):
    """SIGTERM reached the parent of worker processes."""


def _run_here(plan: SweepPlan, todo: list[Any], rerun: set[str], store: RunStore, cache_path: Path | None,
              session_n: int, tally: Tally, console: Console, opts: SweepOptions) -> tuple[Tally, list[str]]:
    """Run every episode in this process's event loop."""
    cache = None
    if cache_path is not None:
        from mustmaybe.agents import ResponseCache

        cache = ResponseCache(cache_path)
    runner = SweepRunner(plan, store, tally, cache=cache, session=session_n, replace=rerun)
    try:
        asyncio.run(_run_live(runner, todo, plan.max_in_flight, console, opts))
    except asyncio.CancelledError:
        if runner.stopped == "SIGINT":
            raise KeyboardInterrupt() from None
        raise
    finally:
        if cache is not None:
            cache.close()
    return tally, []


def _run_workers(plan: SweepPlan, todo: list[Any], workers: int, rerun: set[str], store: RunStore,
                 secrets: list[str], cache_path: Path | None, session_n: int, base: Tally, console: Console,
                 opts: SweepOptions, latest: list[Tally]) -> tuple[Tally, list[str]]:
    """Fork `workers` processes over the episodes; draw their combined counts until they finish.

    `latest` receives the combined counts as they come in (for the manifest if this is interrupted).
    """
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
        if not opts.json and console.is_terminal:
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


async def _run_live(runner: SweepRunner, todo: list[Any], max_in_flight: int, console: Console,
                    opts: SweepOptions) -> None:
    install_stop_handlers(runner)
    if opts.json or not console.is_terminal:
        await runner.run(todo, max_in_flight)
        return

    def snapshot() -> Any:
        return render(runner.tally, in_flight=in_flight())

    with Live(snapshot(), console=console, auto_refresh=False, transient=False) as live:
        async def refresh() -> None:
            # At most ~5% of the time goes to drawing: wait 20× what the last frame took.
            pause = opts.refresh_s
            while True:
                await asyncio.sleep(pause)
                t0 = time.perf_counter()
                live.update(snapshot(), refresh=True)
                pause = max(opts.refresh_s, 20 * (time.perf_counter() - t0))

        ticker = asyncio.create_task(refresh())
        try:
            await runner.run(todo, max_in_flight)
            runner.tally.status = "finished" if runner.tally.failed == 0 else "incomplete"
        except BaseException:
            runner.tally.status = "interrupted"
            raise
        finally:
            ticker.cancel()
            live.update(snapshot(), refresh=True)


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

