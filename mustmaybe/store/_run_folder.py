"""Write the run folder of a `mustmaybe run`: the same store and manifest shape (`RunManifest`,
schema `mustmaybe/run@1`) a sweep writes, so `report`, `export`, `rescore` and `watch` read single
runs and sweeps alike."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mustmaybe.records import RUN_SCHEMA, RunManifest

from ._lock import writer_lock
from ._manifest import git_state, host_info, package_versions, write_manifest
from ._rows import is_infra_kind
from ._store import RunStore


def write_single_run(run_dir: Path, records: Sequence[Any], scenario: Any, command: list[str],
                     api_key_env: str | None = None, trace: str | None = None) -> Path:
    """Store `records` (and the task they ran on) in `run_dir`; the key variable's value is redacted.

    `trace` is where the run's spans went (`--trace`), noted in the manifest; None leaves no key."""
    secret = os.environ.get(api_key_env, "") if api_key_env else ""
    with writer_lock(run_dir), RunStore(run_dir, secrets=[secret]) as store:
        store.put_tasks([scenario])
        for r in records:
            store.put_episode(r)
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    started = min((r.started_at or now) for r in records) if records else now
    hashes = {scenario.id: records[0].task_hash} if records else {}
    kinds = [[e.kind for e in r.errors] for r in records]
    manifest = RunManifest(
        schema_=RUN_SCHEMA, kind="run", status="finished", created_at=started, started_at=started, ended_at=now,
        simulated=any(r.simulated for r in records), versions=package_versions(), git=git_state(),
        checker_version=records[0].checker_version if records else None,
        checker=records[0].checker if records else None, tasks=hashes, host=host_info(),
        counts={"episodes": len(records), "done": sum(not r.failed for r in records),
                "failed": sum(r.failed for r in records), "with_errors": sum(bool(k) for k in kinds),
                "infra_errors": sum(any(is_infra_kind(x) for x in k) for k in kinds),
                "parse_errors": sum(not r.executor.parse_ok for r in records)},
        # A run's own keys (read by `watch`, `export` and older readers).
        command=command, episodes=len(records), keys=[r.key for r in records], task_hashes=hashes,
    ).data()
    if trace is not None:
        manifest["trace"] = trace
    write_manifest(run_dir, manifest)
    return run_dir


def folder_problem(path: str | Path) -> str | None:
    """Why a run folder (or a folder of run folders) cannot be created at `path`, or None if it can.

    Checked before any model call, so a bad `--runs-dir` or `--out` is one line, not a traceback after
    the episodes ran: the path itself or the nearest part of it that exists must be a writable folder.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        return f"{p} is a file, not a folder"
    existing = p
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot write in {existing} (permission denied)"
    return None
