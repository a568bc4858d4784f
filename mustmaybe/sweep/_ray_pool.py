"""The driver's side of a sweep on Ray (`mustmaybe sweep FILE --ray [ADDRESS]`; docs/ray.md).

`connect_ray` joins (or starts) the cluster, with a one-line error when Ray is not installed or
the cluster cannot be reached. `RayPool` starts the session's coordinator (the episode queue and
the endpoints' cluster-wide limits, mustmaybe/_coordinator.py) and its workers (sweep/_ray_worker.py),
merges their store shards into the run's store as they work, and collects their counts for the
live display. It has the fork pool's interface (`parts`, `errors`, `wait`, `stop`), so the
session draws, stops and finishes a Ray sweep as it does a local one.

A worker that dies (its process killed, its node lost) is noted in `errors`; its slots are freed
once its requests can no longer be in flight at the endpoint (the coordinator's `lost`: at once for a
request never sent, else at its start + `timeout_s` + grace), the others go on with the rest of the
queue, and the episodes it had taken but not stored are left for `--resume` (the run ends
`incomplete`). What it stored before dying is in its shard and merged, so a resume repeats none of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mustmaybe.errors import UserError

from ._plan import PlannedEpisode, SweepPlan
from ._tally import Tally

_INSTALL = "pip install 'mustmaybe[ray]'"
_MERGE_EVERY_S = 1.0


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError(f"--ray needs Ray, an optional extra that is not installed: {_INSTALL}") from None
    return ray


def _reachable(address: str) -> str | None:
    """Why `host:port` (or `ray://host:port`) cannot be reached, or None (checked before Ray's own,
    slower, retries)."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return "not HOST:PORT"
    if not host or port is None:
        return "not HOST:PORT (or ray://HOST:PORT, auto)"
    try:
        with socket.create_connection((host, port), timeout=5.0):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _recorded_address(address: str | None) -> str | None:
    """The HOST:PORT Ray would join for `--ray` alone or `--ray auto` (`RAY_ADDRESS`, else the cluster
    that `ray start` recorded on this machine), or None when it would start a new one.

    Raises:
        UserError: `auto` and no cluster is running here.
    """
    try:
        from ray._private.services import get_ray_address_from_environment
    except ImportError:  # a Ray release without it: ray.init decides alone
        return None
    try:
        found = get_ray_address_from_environment(address, None)  # type: ignore[arg-type]  # None: not given
    except ConnectionError as exc:
        raise UserError(f"--ray {address}: no Ray cluster is running on this machine ({_first_line(exc)}); "
                        f"start one with `ray start --head`, or use `--ray local` for a new one") from None
    return None if found in (None, "", "auto", "local") else str(found)


def connect_ray(address: str | None) -> str:
    """Connect to the Ray cluster at `address`: HOST:PORT, ray://HOST:PORT, `auto` (the one running on
    this machine), `local` (a new one on this machine), or None (`RAY_ADDRESS`, else the one running
    here, else a new one).

    Returns the cluster's address. Raises UserError (one line) when Ray is not installed or the
    cluster cannot be reached; an address is checked before Ray's own, much slower, retries.
    """
    ray = _ray()
    if ray.is_initialized():
        return str(ray.get_runtime_context().gcs_address)
    target = address if address and address not in ("auto", "local") else \
        (None if address == "local" else _recorded_address(address))
    label = address or "(no address)"
    if target is not None and (why := _reachable(target)) is not None:
        source = "" if target == address else f" at {target}, which RAY_ADDRESS or the last `ray start` here names"
        raise UserError(f"--ray {label}: cannot reach the Ray cluster{source} ({why}); start it with `ray start "
                        f"--head`, give its address (HOST:PORT, ray://HOST:PORT, auto), or use `--ray local`")
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if target is None:
        kwargs["include_dashboard"] = False  # only when starting one: a cluster we join keeps its own settings
    _errors_to_stderr()
    try:
        ray.init(address=target or "local", **kwargs)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        raise UserError(f"--ray {label}: cannot connect to the Ray cluster: {_first_line(exc)}") from None
    return str(ray.get_runtime_context().gcs_address)


def _errors_to_stderr() -> None:
    """Ray's driver prints the cluster's error messages ("a worker died …") on standard output, from
    a thread; `sweep --json` keeps standard output for its summary, so they go to standard error.
    (Ray's internal printer; left alone if a Ray release no longer has it.)"""
    try:
        from ray._private import worker as ray_worker
    except ImportError:
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_mustmaybe", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr._mustmaybe = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = to_stderr


def ray_workers(plan: SweepPlan) -> int:
    """How many workers a Ray session runs: the sweep file's `workers` when set above 1, else the
    cluster's CPUs. The endpoints' limits hold for the cluster, so they do not cap the count."""
    if plan.file.workers > 1:
        return plan.file.workers
    cpus = _ray().cluster_resources().get("CPU", 1)
    return max(1, int(cpus))


def groups(todo: list[PlannedEpisode]) -> list[list[str]]:
    """The keys to run, in plan order, grouped so episodes sharing a reviewer call go to one worker."""
    index: dict[str, int] = {}
    out: list[list[str]] = []
    for ep in todo:
        g = hashlib.sha1(f"{ep.scenario.id}\0{ep.seed}\0{ep.models['reviewer']}".encode()).hexdigest()
        if g not in index:
            index[g] = len(out)
            out.append([])
        out[index[g]].append(ep.key)
    return out


class RayPool:
    """The session's coordinator and workers on Ray, seen from the driver.

    Args:
        plan: the resolved sweep; todo: the episodes this session runs; n: how many workers.
        store: the run's own store (the driver is its one writer; shards are merged into it).
        session: the manifest's session number; cache_path: the response cache, or None.
    """

    def __init__(self, plan: SweepPlan, todo: list[PlannedEpisode], n: int, *, store: Any, session: int,
                 cache_path: Path | None) -> None:
        ray = _ray()
        from mustmaybe._coordinator import SweepCoordinator

        from ._ray_worker import SweepWorker

        self.store = store
        self.run_dir = Path(store.run_dir)
        self.session = session
        self.plan = plan
        self.parts: dict[int, Tally] = {}
        self.errors: list[str] = []
        self.lost: list[int] = []
        self._last_merge = 0.0
        self.merged = {"added": 0, "replaced": 0, "failures": 0}
        limits = {url: (e.concurrency, e.requests_per_minute, e.timeout_s) for url, e in plan.endpoints.items()}
        lanes = max(64, 4 * plan.max_in_flight)  # every lane's acquire waits inside the coordinator
        self.coordinator = ray.remote(num_cpus=0, max_concurrency=lanes)(SweepCoordinator).remote(
            groups(todo), limits)
        cpus = ray.cluster_resources().get("CPU", 1)
        plan_ref = ray.put(plan)
        actor = ray.remote(num_cpus=min(1.0, cpus / n), max_concurrency=lanes + 8, max_restarts=0)(SweepWorker)
        # While tracing (--trace, `trace = true`): each worker's episode spans continue the sweep's trace.
        from mustmaybe import tracing

        trace = tracing.carrier()
        self.workers = [actor.remote(i, n, plan_ref, str(self.run_dir), session,
                                     str(cache_path) if cache_path else None, self.coordinator, trace)
                        for i in range(n)]
        self.info: list[dict[str, Any]] = []
        try:
            self.info = ray.get([w.start.remote() for w in self.workers], timeout=300)
        except Exception as exc:
            self._kill_all(coordinator=True)
            raise UserError(f"--ray: the sweep's workers did not start: {_first_line(exc)}") from None
        problems = [i.pop("problem") for i in self.info if i.get("problem")]
        if problems:
            self._kill_all(coordinator=True)
            raise UserError(problems[0])
        self._runs = {w.run.remote(): i for i, w in enumerate(self.workers)}

    # ---------------------------------------------------------------- the fork pool's interface
    def wait(self, on_tick: Callable[[], None], interval: float) -> None:
        """Until every worker has finished or died: merge shards, take in counts, call `on_tick`."""
        ray = _ray()
        while self._runs:
            ready, _ = ray.wait(list(self._runs), num_returns=len(self._runs), timeout=interval)
            for ref in ready:
                i = self._runs.pop(ref)
                try:
                    ray.get(ref)
                except ray.exceptions.RayActorError as exc:
                    self._lose(i, exc)
                except Exception as exc:  # the worker raised (a store failure): its run is over
                    self.errors.append(f"Ray worker {i}: {_first_line(exc)}")
            self.poll()
            self.merge(force=not self._runs)
            on_tick()
        self._finalize_parts()

    def poll(self) -> None:
        """Take in the counts of every worker still running."""
        ray = _ray()
        alive = {i: w for i, w in enumerate(self.workers) if i not in self.lost}
        refs = {w.counts.remote(): i for i, w in alive.items()}
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=5.0)
        for ref in ready:
            try:
                self.parts[refs[ref]] = ray.get(ref)
            except ray.exceptions.RayActorError:
                pass  # its run's reference reports the death

    def merge(self, force: bool = False) -> None:
        """Merge the shards into the run's store (at most once a second unless `force`)."""
        from mustmaybe.store import merge_shards

        if not force and time.monotonic() - self._last_merge < _MERGE_EVERY_S:
            return
        self._last_merge = time.monotonic()
        r = merge_shards(self.store)
        for k in self.merged:
            self.merged[k] += getattr(r, k)

    def stop(self) -> None:
        """Stop now (Ctrl-C, SIGTERM): no further work, the workers ended; what they stored is merged."""
        ray = _ray()
        try:
            ray.get(self.coordinator.stop.remote(), timeout=5.0)
        except Exception:  # a coordinator already gone changes nothing here
            pass
        self._kill_all()
        self._runs.clear()
        self.merge(force=True)
        self._finalize_parts()

    # ---------------------------------------------------------------- end of session
    def close(self) -> dict[str, Any]:
        """The session's Ray facts for the summary and manifest; the coordinator is ended after."""
        ray = _ray()
        try:
            stats = ray.get(self.coordinator.stats.remote(), timeout=10.0)
        except Exception:
            stats = {"endpoints": {}}
        self._kill_all(coordinator=True)
        return {"address": str(ray.get_runtime_context().gcs_address), "workers": self.info,
                "lost_workers": sorted(self.lost), "endpoints": stats.get("endpoints", {}), "merged": dict(self.merged)}

    def _finalize_parts(self) -> None:
        """Each worker's counts as its shard holds them (a dead worker's last snapshot missed its last
        episodes); its timing stays the snapshot's."""
        from mustmaybe.store import RunStore, shard_dir

        for i in range(len(self.workers)):
            path = shard_dir(self.run_dir, self.session, i)
            if not (path / "store.sqlite").exists():
                continue
            with RunStore(path, readonly=True) as shard:
                t = Tally.from_store(shard, name=self.plan.name, total=len(self.plan.episodes),
                                     simulated=self.plan.simulated)
                n, n_failed = shard.query(f"SELECT COUNT(*), COALESCE(SUM({shard.failed_sql}), 0) FROM episodes")[0]
            t.ran, t.ran_failed, t.done_before = int(n), int(n_failed), 0
            live = self.parts.get(i)
            if live is not None:
                t.first_start, t.last_end, t.started = live.first_start, live.last_end, live.started
            self.parts[i] = t

    def _lose(self, i: int, exc: BaseException) -> None:
        ray = _ray()
        self.lost.append(i)
        w = self.info[i] if i < len(self.info) else {"pid": "?", "node": "?"}
        try:
            ray.get(self.coordinator.lost.remote(i), timeout=10.0)  # its slots go to the others once safe
        except Exception:
            pass
        self.errors.append(f"Ray worker {i} (pid {w.get('pid')} on {w.get('node')}) died: {_first_line(exc)}; "
                           f"the episodes it had not stored run on --resume")

    def _kill_all(self, coordinator: bool = False) -> None:
        """End the workers (and the coordinator); one already gone is no error."""
        ray = _ray()
        for actor in [*self.workers, *([self.coordinator] if coordinator else [])]:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
