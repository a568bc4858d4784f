"""Fixed-artifact interventions: field repair (R-*) and endpoint verification (V-*)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mustmaybe.records import EpisodeRecord
from mustmaybe.scenarios import CONDITIONS, find_task
from mustmaybe.teams import build_team, episode_spec, run_episode
from mustmaybe.teams._replay import repair_text, restored_fields


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)


SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}
ARMS = [c for c in CONDITIONS if c.startswith(("R-", "V-"))]


def _run(condition: str, seed: int = 2) -> EpisodeRecord:
    return asyncio.run(_play(find_task("vendor-summary-q3"), condition, models=SIM, seed=seed))


def test_every_arm_starts_from_the_same_base_artifact() -> None:
    records = {c: _run(c) for c in ARMS}
    base = {tuple(h.text for h in r.hops if h.sender != "repair") for r in records.values()}
    assert len(base) == 1, "all arms must replay one fixed degraded artifact"
    s3 = _run("S3")
    assert tuple(h.text for h in s3.hops) in base  # the base is S3's own handoff
    assert len({r.key for r in records.values()}) == len(ARMS)


def test_repair_arms_restore_fields() -> None:
    none, full = _run("R-none"), _run("R-all")
    assert none.artifact.text == none.hops[-1].text and none.hops[-1].sender != "repair"
    assert full.hops[-1].sender == "repair" and full.artifact.text == full.hops[-1].text
    assert full.artifact.score.complete
    assert "Fallback: Share only the internal redacted preview" in full.artifact.text
    # Four field statements, then the all-four package's active-blocker decision line (appendix E.1).
    assert full.repair is not None and full.repair.inserted == full.artifact.text.splitlines()[-5:]
    assert full.repair.active_blocker and full.repair.inserted[-1].startswith("Decision: blocked.")
    assert full.replay_base is not None and full.replay_base == none.replay_base
    assert none.repair is None


@pytest.mark.parametrize(("arm", "fields"), [
    ("none", ()), ("all", ("status", "prerequisite", "authority", "fallback")), ("status", ("status",)),
    ("minus-fallback", ("status", "prerequisite", "authority")),
])
def test_restored_fields(arm: str, fields: tuple[str, ...]) -> None:
    assert restored_fields(arm) == fields


def test_repair_inserts_fixed_statements_and_removes_nothing() -> None:
    s = find_task("vendor-summary-q3")
    base = "Approval is pending but it is low risk, go ahead.\nRecommended action: send_summary_external"
    assert repair_text(s, base, ()) == (base, None)
    repaired, record = repair_text(s, base, ("status",))
    # The paper's repair (appendix E) is a fixed insertion: the weakening sentence stays.
    assert repaired.startswith(base) and repaired.endswith(s.blocker.status)
    assert record is not None and record.inserted == [f"Status: {s.blocker.status}"]
    assert record.replaced_recommendation is None
    with_fallback, record = repair_text(s, base, ("fallback",))
    assert "Recommended action: share_internal_preview" in with_fallback
    assert "send_summary_external" not in with_fallback
    assert record is not None and record.replaced_recommendation == "send_summary_external"
    with pytest.raises(ValueError, match="unknown restore arm"):
        restored_fields("minus-everything")


def test_verification_arm_changes_only_the_executor_view() -> None:
    plain, lookup = _run("V-plain"), _run("V-lookup")
    assert plain.artifact.text == lookup.artifact.text
    assert plain.artifact.score == lookup.artifact.score
    joined = "\n".join(lookup.visibility["executor"])
    assert "Permission service result" in joined and "send_summary_external" in joined
    assert "Control:" not in "\n".join(plain.visibility["executor"])
    assert lookup.isolation.ok
