"""A sweep's run folder across sessions: a new folder or a resumed one, its manifest, what it holds.

Resume policy (also written to the manifest): with `--resume`, every episode the store holds is
kept and not run again, except failed episodes (a model call finally failed: nothing was scored)
and episodes whose record carries an infrastructure error (timeout, 429 or 5xx after retries,
lost connection, a body that is not a chat completion); those are run again and their record
replaced, in one transaction, when the new one lands. Planned episodes that raised instead of
returning a record (noted in `failures`) are run again too. Model misbehaviour (unparseable or
wrong-shape answers, empty content) is data: such episodes are kept.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mustmaybe.errors import UserError
from mustmaybe.store import (
    MANIFEST,
    RunStore,
    host_info,
    read_manifest,
)

from ._plan import SweepPlan

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
    trace: bool = False  # --trace, or `trace = true` in the sweep file (cmd_sweep folds the two)
    # `--ray [ADDRESS]`: run on Ray workers (docs/ray.md). None runs here; "" is the cluster that
    # `RAY_ADDRESS` names, or a new one on this machine.
    ray: str | None = None


def now() -> str:
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


def new_run_dir(plan: SweepPlan, opts: SweepOptions) -> Path:
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


def check_resume(plan: SweepPlan, out: Path | None) -> tuple[Path, dict[str, Any]]:
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


def session_record(n: int, resumed: bool, todo: int, checker_version: str) -> dict[str, Any]:
    return {"session": n, "pid": os.getpid(), "host": host_info()["hostname"], "resumed": resumed,
            "started_at": now(), "ended_at": None, "status": "running", "to_run": todo,
            "checker_version": checker_version}


def stored_counts(run_dir: Path) -> dict[str, int]:
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


