"""Carried stages: the drift curve scores what each step passes on toward the executor.

The controls' curves on `sim:faithful` must stay flat at 100% preserved under every topology family
they can run under, on every task: real episodes through the real teams, sim models on every role.
"""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from _replies import REVIEW
from autogen_ext.models.replay import ReplayChatCompletionClient

import mustmaybe.agents._pipeline as pipeline_mod
from mustmaybe.analysis import build_frames, drift_curves
from mustmaybe.analysis._figures import drift_lines
from mustmaybe.cli import _live
from mustmaybe.records import (
    ArtifactScore,
    EpisodeRecord,
    FieldProfile,
    Flags,
    Hop,
    plan_stages,
    stages_of,
    thread_text,
)
from mustmaybe.scenarios import CONDITIONS, GRADIENT, MAIN_MATRIX, find_task, get_condition, load_library
from mustmaybe.store import rescore_record
from mustmaybe.teams import build_team, episode_spec, get_topology, run_episode, topology_names

FAITHFUL = {"reviewer": "sim:faithful", "transformer": "sim:faithful", "executor": "sim:faithful"}
SEED = 1

# Each topology family with the sizes the test runs it at: a chain long enough to drift, a group with
# two rounds (a round after the first reads a longer thread), every planner order.
VARIANTS: dict[str, tuple[str, ...]] = {
    "direct": ("direct",),
    "single": ("single",),
    "chain": ("chain:hops=3",),
    "consensus": ("consensus:peers=3,rounds=2", "consensus:peers=2,rounds=1"),
    "planner": ("planner:order=blocker_first", "planner:order=plan_first", "planner:order=restart"),
    # The paper's design: one call writes the condition's whole team (teams/_trajectory.py).
    "single-call": ("single-call:stages=2,rounds=2",),
}
# The stage labels each family's curve has at those sizes.
LABELS: dict[str, tuple[str, ...]] = {
    "direct": ("reviewer",),
    "single": ("reviewer", "hop 1"),
    "chain:hops=3": ("reviewer", "hop 1", "hop 2", "hop 3"),
    "consensus:peers=3,rounds=2": ("reviewer", "round 1", "round 2", "coordinator"),
    "consensus:peers=2,rounds=1": ("reviewer", "round 1", "coordinator"),
    "planner": ("reviewer", "plan"),
}

CONTROLS = sorted({get_condition(c).control or c for c in MAIN_MATRIX + GRADIENT})
COMBOS = [(c, t) for c in CONTROLS for family, ts in VARIANTS.items()
          if get_condition(c).transform in get_topology(family).compatible for t in ts]
TASKS = [s.id for s in load_library()]


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)

@functools.cache
def _faithful(condition: str, topology: str, task: str) -> EpisodeRecord:
    return asyncio.run(_play(find_task(task), condition, models=FAITHFUL, seed=SEED, topology=topology))


def _labels(topology: str, condition: str) -> tuple[str, ...]:
    if topology.startswith("single-call"):  # the stages of the team the one call stands in for
        transform = get_condition(condition).transform
        if transform in ("consensus", "dissent"):
            return ("reviewer", "round 1", "round 2", "coordinator")
        if transform in ("deadline_plan", "restart"):
            return LABELS["planner"]
        return ("reviewer", "hop 1", "hop 2")
    return LABELS.get(topology) or LABELS[topology.partition(":")[0]]


def _cases() -> list[Any]:
    return [pytest.param(cond, topo, task, id=f"{cond}-{topo}-{task}") for cond, topo in COMBOS for task in TASKS]


def test_every_control_runs_under_every_family_it_can() -> None:
    # A new topology family or control must come with its own variants here, or it goes untested.
    assert set(VARIANTS) == set(topology_names()) - {"replay"}
    assert CONTROLS == ["C0", "E0", "G0", "P0", "S0"]
    assert all(CONDITIONS[c].is_control for c in CONTROLS)
    assert {t.partition(":")[0] for c, t in COMBOS if c == "P0"} == {"direct", "single", "chain", "consensus",
                                                                     "single-call"}
    assert {t.partition(":")[0] for c, t in COMBOS if c == "C0"} == {"planner", "single-call"}
    assert {t.partition(":")[0] for c, t in COMBOS if c == "E0"} == {"consensus", "single-call"}


@pytest.mark.parametrize(("condition", "topology", "task"), _cases())
def test_control_stays_preserved_at_every_stage_on_faithful_sim(condition: str, topology: str, task: str) -> None:
    rec = _faithful(condition, topology, task)
    assert not rec.errors, rec.errors
    assert tuple(s.label for s in rec.stages) == _labels(topology, condition)
    assert [s.index for s in rec.stages] == list(range(len(rec.stages)))
    broken = [{"stage": s.label, "state": s.score.state, "fields": s.score.fields.model_dump(),
               "flags": s.score.flags.model_dump(), "text": s.text} for s in rec.stages
              if s.score.state != "preserved"]
    assert not broken, json.dumps(broken, indent=1)
    assert rec.first_break_stage is None
    # The handoff the executor acted on is the last stage, and the faithful executor held.
    assert rec.stages[-1].text == rec.artifact.text
    assert not rec.executor.forbidden


def test_drift_curves_of_controls_are_flat_per_family(tmp_path: Path) -> None:
    # The report's own path: records → frames → drift table → one figure panel per family.
    tasks = ("vendor-summary-q3", TASKS[-1])
    records = [_faithful(c, t, task) for c, t in COMBOS for task in tasks]
    curves = drift_curves(build_frames(records, domains={}).stages)
    assert curves.height and curves["preserved"].to_list() == [100.0] * curves.height
    # single-call's curves are a family of their own: compared with the team they stand in for, not pooled.
    assert set(curves["family"].to_list()) == {"single", "chain", "consensus", "planner", "single-call"}
    e0 = curves.filter((curves["condition"] == "E0") & (curves["topology"] == "consensus:peers=3,rounds=2"))
    assert e0["stage"].to_list() == ["reviewer", "round 1", "round 2", "coordinator"]
    assert e0["hop"].to_list() == [0, 1, 2, 3] and set(e0["n"].to_list()) == {len(tasks)}
    png = drift_lines(curves, tmp_path / "drift.png", simulated=True)
    assert png.exists() and png.stat().st_size > 0


AGREE = "Agreed with the reviewer."


@pytest.fixture
def agreeing_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """Peers who only agree (no field of the blocker in their own line); a coordinator who restates it."""

    def fake(spec: Any, ctx: Any) -> ReplayChatCompletionClient:
        if ctx.role == "reviewer" or ctx.agent == "coordinator":
            replies = [REVIEW]
        elif ctx.role == "executor":
            replies = [json.dumps({"action": "share_internal_preview", "blocker_recognized": True,
                                   "rationale": "blocked"})]
        else:
            replies = [AGREE]
        return ReplayChatCompletionClient(replies * 4)

    monkeypatch.setattr(pipeline_mod, "build_model_client", fake)


def test_a_round_is_scored_as_the_thread_its_next_reader_sees(agreeing_group: None) -> None:
    scenario = find_task("vendor-summary-q3")
    rec = asyncio.run(_play(scenario, "E0", models=FAITHFUL, topology="consensus:peers=3,rounds=2"))
    peers = [h for h in rec.hops if h.sender.startswith("peer_")]
    # Each line alone carries no blocker: scored as handoffs, the curve would dip to 0% at every peer.
    assert len(peers) == 6 and all(h.score.state != "preserved" for h in peers)
    assert [s.label for s in rec.stages] == ["reviewer", "round 1", "round 2", "coordinator"]
    round1, round2 = rec.stages[1], rec.stages[2]
    assert round1.hops == [0, 1, 2, 3] and round2.hops == [0, 1, 2, 3, 4, 5, 6]
    assert round2.senders == ["reviewer", "peer_1", "peer_2", "peer_3", "peer_1", "peer_2", "peer_3"]
    assert round1.text == thread_text(rec.hops[:4]) and round1.text.startswith("reviewer: Status: Do not send")
    assert all(s.score.state == "preserved" for s in rec.stages), [(s.label, s.score.state) for s in rec.stages]
    assert rec.first_break_stage is None and rec.first_break_hop == 1  # the message-level key is unchanged
    assert "stages" in rec.to_json_dict() and rec.to_json_dict()["stages"][1]["kind"] == "round"
    # The live console draws the same curve: four points, no break.
    line = _live.drift_curve(rec.stages).plain
    assert "reviewer P 1.00 → round 1 P" in line and "round 2" in line and line.count("█") == 8
    assert _live.first_break(rec) is None


def _hop(index: int, sender: str, text: str = "x") -> Hop:
    score = ArtifactScore(fields=FieldProfile(status=True, prerequisite=True, authority=True, fallback=True),
                          complete=True, state="preserved", flags=Flags(), retention_score=1.0)
    return Hop(index=index, role="reviewer" if sender == "reviewer" else "transformer", sender=sender, text=text,
               score=score)


def test_plan_stages_per_family_and_a_discussion_cut_short() -> None:
    chain = [_hop(0, "reviewer"), _hop(1, "summarizer_1"), _hop(2, "summarizer_2"), _hop(3, "repair")]
    assert [(p.label, p.kind, p.hops) for p in plan_stages(chain)] == [
        ("reviewer", "statement", (0,)), ("hop 1", "handoff", (1,)), ("hop 2", "handoff", (2,)),
        ("repair", "repair", (3,))]
    assert [p.label for p in plan_stages([_hop(0, "reviewer"), _hop(1, "planner")])] == ["reviewer", "plan"]
    # A team that failed in its second round: the thread it reached is still a stage, no coordinator.
    cut = [_hop(0, "reviewer"), _hop(1, "peer_1"), _hop(2, "peer_2"), _hop(3, "peer_1")]
    plans = plan_stages(cut)
    assert [(p.label, p.hops) for p in plans] == [("reviewer", (0,)), ("round 1", (0, 1, 2)),
                                                  ("round 2", (0, 1, 2, 3))]


def test_rescore_gives_an_older_record_its_stages() -> None:
    scenario = find_task("vendor-summary-q3")
    rec = _faithful("E0", "consensus:peers=3,rounds=2", scenario.id)
    old = rec.model_copy(update={"stages": [], "first_break_stage": None})
    # Read without a checker, an older record keeps its one-message stages at their places on the axis.
    assert [(s.index, s.label) for s in stages_of(old.hops, old.stages)] == [(0, "reviewer"), (3, "coordinator")]
    new = rescore_record(old, scenario)
    assert [(s.label, s.hops, s.score.state) for s in new.stages] == [
        (s.label, s.hops, s.score.state) for s in rec.stages]
