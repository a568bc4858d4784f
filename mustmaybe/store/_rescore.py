"""`mustmaybe rescore RUN`: re-apply the current checker to the stored messages, with no model call.

Per episode it re-scores every hop and the artifact, rebuilds the carried stages (records/_stages.py;
a record written before stages existed gains them), recomputes `first_break_hop`, `first_break_stage`,
`reviewer_identified` and `executor.forbidden` (via `score_action` on the stored action), and
records the checker version used. Each batch of episodes is rewritten in one transaction; every
episode row says which checker version scored it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._manifest import update_manifest
from ._rows import flags_text
from ._store import RunStore

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.scenarios import Scenario

_BATCH = 200


def rescore_record(record: EpisodeRecord, scenario: Scenario) -> EpisodeRecord:
    """The record with every score recomputed by the current checker (texts and action unchanged)."""
    from mustmaybe.checker import CHECKER_VERSION, score_action, score_artifact
    from mustmaybe.records import carried_stages, first_break_stage

    hops = [h.model_copy(update={"score": score_artifact(scenario, h.text)}) for h in record.hops]
    stages = carried_stages(hops, lambda text: score_artifact(scenario, text))
    artifact = record.artifact.model_copy(update={"score": score_artifact(scenario, record.artifact.text)})
    reviewer = next((h for h in hops if h.role == "reviewer"), None)
    identified = reviewer is not None and (
        (not reviewer.score.fields.status) if record.twin else reviewer.score.state == "preserved"
    )
    first_break = next((h.index for h in hops if h.score.state != "preserved"), None)
    # A failed episode has no action: nothing to score, it stays neither safe nor unsafe.
    action = record.executor.action
    forbidden = None if action is None else score_action(scenario, action).forbidden
    executor = record.executor.model_copy(update={"forbidden": forbidden})
    return record.model_copy(update={
        "hops": hops, "artifact": artifact, "reviewer_identified": identified, "first_break_hop": first_break,
        "stages": stages, "first_break_stage": first_break_stage(stages),
        "executor": executor, "checker_version": CHECKER_VERSION,
    })


def rescore_run(run_dir: str | Path) -> dict[str, Any]:
    """Rescore every episode of a run folder in place; returns counts of what changed.

    Raises:
        FileNotFoundError: not a run folder.
        ValueError: an episode's task content is not in the store.
    """
    from mustmaybe.checker import CHECKER_VERSION
    from mustmaybe.records import EpisodeRecord

    run = Path(run_dir)
    if not (run / "store.sqlite").exists():
        raise FileNotFoundError(f"{run}: not a run folder (no store.sqlite)")
    with RunStore(run) as store:
        scenarios = store.scenarios()
        previous = sorted({v for (v,) in store.query("SELECT DISTINCT checker_version FROM episodes")})
        rows = store.query("SELECT key, record FROM episodes ORDER BY rowid")
        counts = {"episodes": 0, "state_changed": 0, "forbidden_changed": 0, "hop_states_changed": 0}
        db = store.db
        for start in range(0, len(rows), _BATCH):
            db.execute("BEGIN IMMEDIATE")
            try:
                for key, text in rows[start:start + _BATCH]:
                    old = EpisodeRecord.model_validate_json(text)
                    scenario = scenarios.get(old.task_hash)
                    if scenario is None:
                        raise ValueError(f"{run}: episode {key[:12]} uses task {old.task} ({old.task_hash[:12]}), "
                                         f"whose content is not in the store")
                    new = rescore_record(old, scenario)
                    counts["episodes"] += 1
                    counts["state_changed"] += int(new.artifact.score.state != old.artifact.score.state)
                    counts["forbidden_changed"] += int(new.executor.forbidden != old.executor.forbidden)
                    counts["hop_states_changed"] += sum(
                        int(a.score.state != b.score.state) for a, b in zip(old.hops, new.hops, strict=True))
                    s = new.artifact.score
                    db.execute(
                        "UPDATE episodes SET state = ?, complete = ?, retention_score = ?, first_break_hop = ?, "
                        # COALESCE: a failed episode's NULL never overwrites what a pre-`failed` store holds.
                        "reviewer_identified = ?, forbidden = COALESCE(?, forbidden), checker_version = ?, "
                        "record = ? WHERE key = ?",
                        (s.state, int(s.complete), s.retention_score, new.first_break_hop,
                         int(new.reviewer_identified),
                         None if new.executor.forbidden is None else int(new.executor.forbidden), CHECKER_VERSION,
                         new.model_dump_json(by_alias=True), key),
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
        result = {"run": str(run), "checker_version": CHECKER_VERSION, "previous_checker_versions": previous,
                  "at": at, **counts}
        store.set_meta("checker_version", CHECKER_VERSION)
    if (run / "manifest.json").exists():
        def note(m: dict[str, Any]) -> None:
            m["checker_version"] = CHECKER_VERSION
            m.setdefault("rescores", []).append({k: v for k, v in result.items() if k != "run"})

        update_manifest(run, note)
    return result
