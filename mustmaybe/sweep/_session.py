"""One `mustmaybe sweep` session: prepare (or resume) the run folder, run, display, finish the manifest.

The run folder and its resume policy: sweep/_resume.py. Running the episodes (here or in worker
processes) and stopping on a signal: sweep/_execution.py; on Ray workers (`--ray`): sweep/_ray_pool.py.
The live display: sweep/_display.py.
Exit status 130 (SIGINT) or 143 (SIGTERM) when stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
from typing import TYPE_CHECKING, Any

from mustmaybe import interrupt, tracing
from mustmaybe.records import RUN_SCHEMA, RunManifest
from mustmaybe.store import (
    RunStore,
    git_state,
    host_info,
    merge_shards,
    package_versions,
    shard_paths,
    update_manifest,
    write_manifest,
    writer_lock,
)

from ._display import render
from ._execution import lean_runtime, run_here, run_workers
from ._plan import SweepPlan
from ._resume import (
    CACHE_NOTE,
    RESUME_POLICY,
    SweepOptions,
    check_resume,
    collect_secrets,
    new_run_dir,
    now,
    session_record,
    stored_counts,
)
from ._tally import Tally

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["RESUME_POLICY", "SweepOptions", "execute_sweep"]


def execute_sweep(plan: SweepPlan, opts: SweepOptions, console: Console | None = None,
                  err_console: Console | None = None) -> tuple[int, dict[str, Any]]:
    """Run (or resume) a sweep; returns the exit status and the final summary.

    Exit status: 0 every planned episode is stored and scored; 1 some episodes failed or raised (run
    them again with --resume); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).

    Raises:
        UserError: missing key variable, unusable --out, or a --resume of another sweep.
    """
    from mustmaybe.checker import CHECKER_VERSION

    if not opts.json:  # `--json` prints only its summary, so it makes no console (and never imports rich)
        from rich.console import Console

        console = console or Console(highlight=False)
        err_console = err_console or Console(stderr=True, highlight=False)
    secrets = collect_secrets(plan)
    run_dir = check_resume(plan, opts.out)[0] if opts.resume else new_run_dir(plan, opts)
    # One writer per run folder, taken before any model call; a second one is refused, naming the holder.
    with writer_lock(run_dir):
        # Read again under the lock: the manifest as the last writer left it.
        manifest = check_resume(plan, opts.out)[1] if opts.resume else {}
        store = RunStore(run_dir, secrets=secrets)
        root = {"mustmaybe.sweep.name": plan.name, "mustmaybe.run_dir": str(run_dir),
                "mustmaybe.episodes": len(plan.episodes), "mustmaybe.simulated": plan.simulated}
        try:
            # Traces (--trace, `trace = true`): a root span over the whole session; off, nothing at all.
            with tracing.traced(run_dir if opts.trace or plan.file.trace else None, "mustmaybe.sweep", root,
                                secrets=secrets):
                return _execute(plan, opts, store, manifest, CHECKER_VERSION, console, err_console)
        finally:
            store.close()


def _execute(plan: SweepPlan, opts: SweepOptions, store: RunStore, manifest: dict[str, Any], checker_version: str,
             console: Console | None, err_console: Console | None) -> tuple[int, dict[str, Any]]:
    run_dir = store.run_dir
    if shard_paths(run_dir):
        # A run made on Ray: what any worker stored counts as stored, even if its merge never came
        # (the driver killed, say), so a resume repeats none of it.
        merge_shards(store)
    plan_keys = {e.key for e in plan.episodes}
    stored = store.keys() & plan_keys
    rerun = ((store.infra_failed_keys() | store.failed_keys()) & plan_keys) if opts.resume else set()
    todo = [e for e in plan.episodes if e.key not in stored or e.key in rerun]
    cache_path = plan.cache_path or (run_dir / "cache.sqlite")
    session_n = len(manifest.get("sessions", [])) + 1
    session = session_record(session_n, opts.resume, len(todo), checker_version)
    if tracing.enabled():
        session["trace"] = tracing.destination()

    if not opts.resume:
        store.put_tasks(plan.scenarios.values())
        with contextlib.suppress(OSError):
            shutil.copyfile(plan.path, run_dir / "sweep.toml")
        manifest = {
            "schema": RUN_SCHEMA, "kind": "sweep", "name": plan.name, "status": "running",
            "created_at": now(), "started_at": now(), "ended_at": None, "simulated": plan.simulated,
            "sweep": plan.resolved(), "versions": package_versions(), "git": git_state(),
            "checker_version": checker_version, "checker": plan.checker_name, "tasks": plan.task_hashes(),
            "cache": {"enabled": opts.use_cache, "path": str(cache_path), "note": CACHE_NOTE},
            "resume_policy": RESUME_POLICY, "host": host_info(), "sessions": [session], "counts": None,
        }
        RunManifest.of(manifest)  # the one shape of runs and sweeps (a wrong key type fails here, not in a reader)
        write_manifest(run_dir, manifest)
    else:
        store.put_tasks(plan.scenarios.values())

        def start(m: dict[str, Any]) -> None:
            m.update(status="running", ended_at=None, checker_version=checker_version, checker=plan.checker_name)
            m["cache"] = {"enabled": opts.use_cache, "path": str(cache_path), "note": CACHE_NOTE}
            m.setdefault("sessions", []).append(session)

        update_manifest(run_dir, start)

    tally = Tally.from_store(store, name=plan.name, total=len(plan.episodes), simulated=plan.simulated,
                             exclude_infra=opts.resume, include_failures=False) if stored else \
        Tally(name=plan.name, total=len(plan.episodes), simulated=plan.simulated)
    for ep_name, n in plan.calls_by_endpoint.items():
        tally.endpoint(ep_name).planned = n

    use_cache = opts.use_cache and any(m.backend != "sim" for e in todo for m in e.spec.models.values())
    on_ray = opts.ray is not None and bool(todo)
    if on_ray:
        from ._ray_pool import ray_workers

        workers = min(ray_workers(plan), len(todo))
    else:
        workers = max(1, min(plan.workers, len(todo)))
    if err_console is not None and not opts.json:
        where = f"  ·  {workers} Ray workers" if on_ray else (f"  ·  {workers} worker processes" if workers > 1 else "")
        err_console.print(f"[bold]run folder[/bold] {run_dir}  ·  {len(todo):,} of {len(plan.episodes):,} episodes "
                          f"to run" + (f" ({len(rerun)} again after failures)" if rerun else "") + where)
        for w in plan.warnings:
            if on_ray and w.startswith("workers = "):
                continue  # the fork pool's cap: on Ray the limits hold for the cluster, whatever the count
            err_console.print(f"[yellow]warning:[/yellow] {w}")

    exit_code = 0
    status = "running"
    errors: list[str] = []
    ray_info: dict[str, Any] | None = None

    def quit_note(signum: int) -> None:
        # A second signal leaves at once: the manifest still says how this session ended.
        stopped = "interrupted" if signum == signal.SIGINT else "terminated"

        def closed(m: dict[str, Any]) -> None:
            m.update(status="interrupted", ended_at=now())
            for s in m.get("sessions", []):
                if s.get("session") == session_n and s.get("ended_at") is None:
                    s.update(ended_at=now(), status="interrupted", stopped_by=stopped, ran=tally.ran)

        update_manifest(run_dir, closed)

    try:
        with lean_runtime(), interrupt.on_quit(quit_note):
            if on_ray:
                from ._ray_pool import RayPool

                latest = [tally]
                pool = RayPool(plan, todo, workers, store=store, session=session_n,
                               cache_path=cache_path if use_cache else None)
                update_manifest(run_dir, lambda m: _session_of(m, session_n).update(
                    ray={"workers": pool.info}))
                try:
                    tally, errors = run_workers(plan, todo, workers, rerun, store, [], None, session_n, tally,
                                                console, opts, latest, pool=pool)
                finally:
                    tally = latest[-1]
                    ray_info = pool.close()
            elif workers > 1:
                store.close()  # never carry an open SQLite connection across fork()
                latest = [tally]
                try:
                    tally, errors = run_workers(plan, todo, workers, rerun, store, collect_secrets(plan),
                                                 cache_path if use_cache else None, session_n, tally, console,
                                                 opts, latest)
                finally:
                    tally = latest[-1]
            else:
                tally, errors = run_here(plan, todo, rerun, store, cache_path if use_cache else None, session_n,
                                          tally, console, opts)
    except KeyboardInterrupt:
        status, exit_code = "interrupted", 130
    except asyncio.CancelledError:
        status, exit_code = "interrupted", 143
    finally:
        stored_now = stored_counts(run_dir)
        if status == "running":
            ok = stored_now["done"] >= len(plan.episodes) and stored_now["failed"] == 0 and not errors
            status = "finished" if ok else "incomplete"
            exit_code = 0 if ok else 1
        tally.status = status
        summary = {"run": str(run_dir), **tally.summary(), **stored_now}
        if tracing.enabled():
            summary["trace"] = tracing.destination()
        if errors:
            summary["worker_errors"] = errors
        if ray_info is not None:
            summary["ray"] = ray_info
        counts = {k: summary[k] for k in ("episodes", "done", "failed", "with_errors", "infra_errors", "parse_errors")}

        def finish(m: dict[str, Any]) -> None:
            m.update(status=status, ended_at=now(), counts=counts)
            for s in m.get("sessions", []):
                if s.get("session") == session_n:
                    s.update(ended_at=now(), status=status, ran=tally.ran, failed=tally.failed,
                             in_tool_s=summary["in_tool_s"])
                    if ray_info is not None:
                        s["ray"] = {k: ray_info[k] for k in ("address", "workers", "lost_workers", "endpoints")}

        update_manifest(run_dir, finish)
    if console is not None and not opts.json and not console.is_terminal:
        console.print(render(tally))
    return exit_code, summary


def _session_of(m: dict[str, Any], n: int) -> dict[str, Any]:
    """The manifest's entry for session `n`."""
    return next(s for s in m.get("sessions", []) if s.get("session") == n)
