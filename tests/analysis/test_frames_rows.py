"""The frames built a row tuple at a time hold what each record says: stages as recorded or as stages_of
plans them for older records (one plan per hop layout, reused), list columns, configurations, failed rows."""

from __future__ import annotations

import polars as pl

from mustmaybe.analysis import build_frames
from mustmaybe.analysis._frames import _string_lists
from mustmaybe.records import EpisodeError, Hop, Isolation, carried_stages, first_break_stage, stages_of

from .conftest import make_episode, make_score


def _hop(index: int, sender: str, state: str = "preserved") -> Hop:
    role = "reviewer" if sender == "reviewer" else "transformer"
    return Hop(index=index, role=role, sender=sender, text=f"{sender} {index}", score=make_score(state))


def _consensus(state: str) -> list[Hop]:
    senders = ["reviewer", "peer_1", "peer_2", "peer_1", "peer_2", "coordinator"]
    return [_hop(i, s, state if s == "coordinator" else "preserved") for i, s in enumerate(senders)]


def test_stage_rows_are_the_records_stages() -> None:
    chain = [make_episode(condition="S3", seed=s, hop_states=["preserved", "deactivated", st])
             for s, st in ((1, "deactivated"), (2, "preserved"))]
    talks = [make_episode(condition="C4", seed=s).model_copy(update={"hops": _consensus(st)})
             for s, st in ((1, "deactivated"), (2, "preserved"), (3, "undetermined"))]
    recorded = make_episode(condition="C4", seed=9).model_copy(update={"hops": _consensus("deactivated")})
    recorded = recorded.model_copy(update={"stages": carried_stages(
        recorded.hops, lambda text: make_score("undetermined"), recorded.topology.name)})
    records = [*chain, *talks, recorded]
    frames = build_frames(records, domains={})
    for ep, r in enumerate(records):
        want = stages_of(r.hops, r.stages, r.topology.name)
        rows = frames.stages.filter(pl.col("ep") == ep)
        assert rows.select("index", "label", "kind", "n_messages", "state").rows() == [
            (s.index, s.label, s.kind, len(s.hops), s.score.state) for s in want]
        row = frames.episodes.row(ep, named=True)
        assert row["n_stages"] == len(want)
        assert row["first_break_stage"] == (r.first_break_stage if r.stages else first_break_stage(want))
    assert [s[1] for s in frames.stages.filter(pl.col("ep") == 5).select("index", "label").rows()] == [
        "reviewer", "round 1", "round 2", "coordinator"]  # a recorded round is kept; an older record has none


def test_list_columns_configurations_and_failed_rows() -> None:
    leaks = [[], ["one sentence"], ["", "a\tb"], ["x\x1fy"]]
    records = [make_episode(seed=i + 1).model_copy(update={"isolation": Isolation(ok=not v, leaks=v)})
               for i, v in enumerate(leaks)]
    tuned = make_episode(seed=7).model_copy(update={"params": {"executor": {"top_p": 0.5}}})
    failed = make_episode(seed=8).model_copy(update={"failed": True, "errors": [
        EpisodeError(where="executor", kind="timeout", message="slow", role="executor", endpoint="http://x")]})
    frames = build_frames([*records, tuned, failed], domains={})
    assert frames.evidence["executor_leaks"].to_list() == [*leaks, [], []]
    assert frames.episodes["model_executor"].to_list()[-1] == 'sim:paper {"top_p":0.5}'
    assert frames.episodes.height == 5 and frames.failed.height == 1
    assert frames.failed.row(0, named=True) | {"key": None} == {
        "run": "run", "key": None, "task": "t1", "condition": "P4", "family": "static",
        "control": "P0", "topology": str(failed.topology), "models": "sim:paper", "simulated": True, "seed": 8,
        "twin": False, "where": "executor", "kind": "timeout", "message": "slow", "panel": None,
        "wording": "base", "substrate": "autogen"}
    assert frames.evidence["failed_calls"].to_list() == [0, 0, 0, 0, 0, 1]


def test_string_lists_round_trip() -> None:
    for values in ([[], [""], ["a", ""], ["b", "c", "d"]], [[], []], [["x\x1fy"], []]):
        got = _string_lists(values)
        assert (got.to_list() if isinstance(got, pl.Series) else got) == values
