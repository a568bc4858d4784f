"""`mustmaybe rescore RUN [--checker SPEC]`: re-score the stored messages without re-running any episode.

With the rules (the default) no model is called. With a judge, panel or routed instrument the judges
are asked about the stored texts; their judgments are kept in RUN/judgments.sqlite, so a second
rescore with the same instrument makes no model call.

Per episode it re-scores every hop and the artifact, and derives every scored fact again with the
function the live run uses (`records.scored_facts`, through `records.rescored`, which every
instrument uses too): the carried stages (a record written before
stages existed gains them), `first_break_hop`, `first_break_stage`, `reviewer_identified` and the
executor's `forbidden`, `requested_forbidden` and `overblocked` (twin-aware), and records the checker
version used. A failed episode stays unscored (NULL). Each batch of episodes is rewritten in one transaction; every
episode row says which checker version scored it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ._lock import writer_lock
from ._manifest import update_manifest
from ._refs import read_record, stored_json
from ._rows import SCORED_COLUMNS, flags_text, scored_values
from ._store import RunStore

if TYPE_CHECKING:
    from mustmaybe.records import ArtifactScore, EpisodeRecord
    from mustmaybe.scenarios import Scenario

_BATCH = 200


class RecordScorer(Protocol):
    """An instrument that re-scores whole records (mustmaybe.judges.Instrument)."""

    name: str

    async def score_record(self, record: EpisodeRecord, scenario: Scenario) -> EpisodeRecord: ...

    async def close(self) -> None: ...


def rescore_record(record: EpisodeRecord, scenario: Scenario, *,
                   scorer: Callable[[Scenario, str], ArtifactScore] | None = None,
                   checker: str | None = None) -> EpisodeRecord:
    """The record with every score recomputed (texts and action unchanged).

    Args:
        scorer: (task, text) -> score; the rules checker when None.
        checker: the instrument's name recorded on the record (the rules' name when None).
    """
    from mustmaybe.checker import CHECKER_NAME, CHECKER_VERSION, score_artifact
    from mustmaybe.records import rescored

    base = scorer or score_artifact
    return rescored(record, scenario, lambda text: base(scenario, text), checker=checker or CHECKER_NAME,
                    checker_version=CHECKER_VERSION)


def rescore_run(run_dir: str | Path, instrument: RecordScorer | None = None) -> dict[str, Any]:
    """Rescore every episode of a run folder in place; returns counts of what changed.

    Args:
        run_dir: the run folder.
        instrument: what scores (None: the rules). Its judgments for a batch are made before that
            batch's write transaction opens, so a slow judge never holds the store locked.

    Raises:
        FileNotFoundError: not a run folder.
        ValueError: an episode's task content is not in the store.
    """
    from mustmaybe.checker import CHECKER_NAME, CHECKER_VERSION

    run = Path(run_dir)
    if not (run / "store.sqlite").exists():
        raise FileNotFoundError(f"{run}: not a run folder (no store.sqlite)")
    # One event loop for the whole rescore: the judges' HTTP clients stay bound to the loop they met first.
    loop = asyncio.Runner() if instrument is not None else None
    with writer_lock(run), RunStore(run) as store, loop if loop is not None else contextlib.nullcontext():
        scenarios = store.scenarios()
        previous = sorted({v for (v,) in store.query("SELECT DISTINCT checker_version FROM episodes")})
        rows = store.query("SELECT key, record FROM episodes ORDER BY rowid")
        counts = {"episodes": 0, "state_changed": 0, "forbidden_changed": 0, "hop_states_changed": 0}
        db = store.db
        for start in range(0, len(rows), _BATCH):
            keys, olds, tasks = [], [], []
            for key, text in rows[start:start + _BATCH]:
                old = read_record(text, where=f"{run}: episode {key[:12]}")
                scenario = scenarios.get(old.task_hash)
                if scenario is None:
                    raise ValueError(f"{run}: episode {key[:12]} uses task {old.task} ({old.task_hash[:12]}), "
                                     f"whose content is not in the store")
                keys.append(key)
                olds.append(old)
                tasks.append(scenario)
            news = _rescore_batch(olds, tasks, instrument, loop)
            # The stored form, as put_episode writes it: each score once, the others referenced.
            texts = [stored_json(new.model_dump_json(by_alias=True)) for new in news]
            db.execute("BEGIN IMMEDIATE")
            try:
                for key, old, new, text in zip(keys, olds, news, texts, strict=True):
                    counts["episodes"] += 1
                    counts["state_changed"] += int(_state(new) != _state(old))
                    counts["forbidden_changed"] += int(new.executor.forbidden != old.executor.forbidden)
                    counts["hop_states_changed"] += sum(
                        int(a.score.state != b.score.state) for a, b in zip(old.hops, new.hops, strict=True))
                    scored = dict(zip(SCORED_COLUMNS, scored_values(new), strict=True))
                    db.execute(
                        f"UPDATE episodes SET {', '.join(f'{c} = ?' for c in scored)}, checker_version = ?, "
                        "record = ? WHERE key = ?",
                        (*scored.values(), CHECKER_VERSION, text, key),
                    )
                    db.executemany(
                        "UPDATE messages SET state = ?, complete = ?, status = ?, prerequisite = ?, authority = ?, "
                        "fallback = ?, retention_score = ?, flags = ?, score = ? WHERE key = ? AND idx = ?",
                        [(h.score.state, int(h.score.complete), int(h.score.fields.status),
                          int(h.score.fields.prerequisite), int(h.score.fields.authority),
                          int(h.score.fields.fallback), h.score.retention_score, flags_text(h.score),
                          h.score.model_dump_json(), key, h.index) for h in new.hops],
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        at = datetime.now(UTC).isoformat(timespec="seconds")
        if loop is not None and instrument is not None:
            loop.run(instrument.close())
        name = instrument.name if instrument is not None else CHECKER_NAME
        result = {"run": str(run), "checker": name, "checker_version": CHECKER_VERSION,
                  "previous_checker_versions": previous, "at": at, **counts}
        store.set_meta("checker_version", CHECKER_VERSION)
        store.set_meta("checker", name)
    if (run / "manifest.json").exists():
        def note(m: dict[str, Any]) -> None:
            m["checker_version"] = CHECKER_VERSION
            m["checker"] = name
            m.setdefault("rescores", []).append({k: v for k, v in result.items() if k != "run"})

        update_manifest(run, note)
    return result


def _state(record: EpisodeRecord) -> str | None:
    return record.artifact.score.state if record.artifact.score is not None else None


def _rescore_batch(olds: list[EpisodeRecord], tasks: list[Scenario], instrument: RecordScorer | None,
                   loop: asyncio.Runner | None) -> list[EpisodeRecord]:
    if instrument is None or loop is None:
        return [rescore_record(o, t) for o, t in zip(olds, tasks, strict=True)]

    async def judged() -> list[EpisodeRecord]:
        return [await instrument.score_record(o, t) for o, t in zip(olds, tasks, strict=True)]

    return loop.run(judged())
