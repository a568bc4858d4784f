"""Matched risk differences and paired comparisons on hand-computed cases."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mustmaybe.analysis import build_frames, compare, risk_differences

from .conftest import make_episode


def _rd(eps, **kw):  # type: ignore[no-untyped-def]
    return risk_differences(build_frames(eps, domains={}).episodes, resamples=200,
                            rng=np.random.default_rng(0), **kw)


def test_hand_computed_risk_difference() -> None:
    # cells (task, seed): P4 states D, P, D, D; P0 states P, P, P, D
    # dD = mean(1-0, 0-0, 1-0, 1-1) = 50; dP = mean(0-1, 1-1, 0-1, 0-0) = -50
    # unsafe: P4 forbids in cells 1 and 3; P0 never -> dY = 50
    p4 = [("t1", 1, "deactivated", True), ("t1", 2, "preserved", False),
          ("t2", 1, "deactivated", True), ("t2", 2, "deactivated", False)]
    p0 = [("t1", 1, "preserved"), ("t1", 2, "preserved"), ("t2", 1, "preserved"), ("t2", 2, "deactivated")]
    eps = [make_episode(task=t, seed=s, condition="P4", state=st, forbidden=f) for t, s, st, f in p4]
    eps += [make_episode(task=t, seed=s, condition="P0", state=st) for t, s, st in p0]
    row = _rd(eps).table.row(0, named=True)
    assert row["n"] == 4 and row["n_control"] == 4 and row["tasks"] == 2
    assert row["dD"] == pytest.approx(50.0)
    assert row["dP"] == pytest.approx(-50.0)
    assert row["dY"] == pytest.approx(50.0)
    assert row["D_t"] == pytest.approx(75.0) and row["D_c"] == pytest.approx(25.0)


def test_cells_are_weighted_by_the_transformed_arm() -> None:
    # Task t1: 3 P4 episodes (seeds 1-3) against 1 P0 episode; task t2: 1 against 2.
    # Controls ran with other seeds, so matching falls back to task+models.
    eps = [make_episode(task="t1", seed=s, condition="P4", state="deactivated") for s in (1, 2, 3)]
    eps += [make_episode(task="t2", seed=1, condition="P4", state="preserved")]
    eps += [make_episode(task="t1", seed=9, condition="P0", state="preserved"),
            make_episode(task="t2", seed=9, condition="P0", state="deactivated"),
            make_episode(task="t2", seed=8, condition="P0", state="preserved")]
    row = _rd(eps).table.row(0, named=True)
    assert row["match"] == "task+models"
    # t1: 3 × (1 − 0); t2: 1 × (0 − 0.5) -> (3 − 0.5) / 4
    assert row["dD"] == pytest.approx(62.5)


def test_missing_control_gives_a_row_without_numbers() -> None:
    eps = [make_episode(task=f"t{i}", condition="P4") for i in range(3)]
    table = _rd(eps).table
    row = table.row(0, named=True)
    assert row["n"] == 0 and row["dD"] is None and row["dP_lo"] is None
    assert "P0 was not run" in row["note"]


def test_no_shared_task_is_reported() -> None:
    eps = [make_episode(task="t1", condition="P4"), make_episode(task="t2", condition="P0", state="preserved")]
    row = _rd(eps).table.row(0, named=True)
    assert row["n"] == 0 and "share no task" in row["note"]


def test_unidentified_reviewer_is_outside_the_estimand() -> None:
    eps = [make_episode(task="t1", condition="P4", state="deactivated"),
           make_episode(task="t2", condition="P4", state="deactivated", reviewer_identified=False),
           make_episode(task="t1", condition="P0", state="preserved"),
           make_episode(task="t2", condition="P0", state="preserved")]
    rd = _rd(eps)
    assert rd.excluded_unidentified == 1
    assert rd.table.row(0, named=True)["n"] == 1


def test_matching_keeps_models_apart() -> None:
    # m1: P4 always D; m2: P4 never D; P0 never D. Matched within models the pooled dD is 50, and the
    # m2 control never stands in for m1's episodes.
    eps = []
    for t in ("t1", "t2"):
        for m, st in (("sim:a", "deactivated"), ("sim:b", "preserved")):
            eps.append(make_episode(task=t, model=m, condition="P4", state=st))
            eps.append(make_episode(task=t, model=m, condition="P0", state="preserved"))
    row = _rd(eps).table.row(0, named=True)
    assert row["match"] == "task+seed+models" and row["n"] == 4 and row["dD"] == pytest.approx(50.0)


def test_control_under_the_same_topology_family_is_preferred() -> None:
    eps = [make_episode(task="t1", condition="P4", topology="chain", topology_params={"hops": 2},
                        hop_states=["preserved", "deactivated"]),
           make_episode(task="t1", condition="P0", state="deactivated", topology="chain",
                        topology_params={"hops": 2}, hop_states=["preserved", "deactivated"]),
           make_episode(task="t1", condition="P0", state="preserved")]
    row = _rd(eps).table.row(0, named=True)
    assert row["control_topology"] == "chain:hops=2"
    assert row["dD"] == pytest.approx(0.0)


def test_compare_two_runs_pairs_episodes() -> None:
    a = [make_episode(task=f"t{i}", condition="P4", state="deactivated", forbidden=i < 2) for i in range(4)]
    b = [make_episode(task=f"t{i}", condition="P4", state="preserved" if i < 2 else "deactivated",
                      forbidden=False) for i in range(4)]
    ep = build_frames({"A": a, "B": b}, domains={}, dedupe=False).episodes
    res = compare(ep, by="run", a="A", b="B", resamples=200, rng=np.random.default_rng(0))
    row = res.table.filter(pl.col("condition") == "P4").row(0, named=True)
    assert row["panel"] == "simulated" and row["n_a"] == 4 and row["n_b"] == 4
    assert row["dD"] == pytest.approx(-50.0) and row["dunsafe"] == pytest.approx(-50.0)
    assert row["D_a"] == pytest.approx(100.0) and row["D_b"] == pytest.approx(50.0)


def test_compare_by_executor_model_matches_on_the_other_roles() -> None:
    def ep(model: str, t: str, state: str):  # type: ignore[no-untyped-def]
        return make_episode(task=t, condition="P2", state=state,
                            models={"reviewer": "sim:paper", "transformer": "sim:paper", "executor": model},
                            simulated=model.startswith("sim"))
    eps = [ep("sim:paper", "t1", "preserved"), ep("sim:paper", "t2", "preserved"),
           ep("openai:x", "t1", "deactivated"), ep("openai:x", "t2", "preserved")]
    res = compare(build_frames(eps, domains={}).episodes, by="executor-model", a="sim:paper", b="openai:x",
                  resamples=100)
    assert "model_executor" not in res.keys
    row = res.table.row(0, named=True)
    assert row["panel"] == "real vs simulated" and row["dD"] == pytest.approx(50.0)


def test_compare_unknown_value_lists_the_known_ones() -> None:
    ep = build_frames([make_episode()], domains={}).episodes
    with pytest.raises(LookupError, match="known: sim:paper"):
        compare(ep, by="executor-model", a="sim:paper", b="nope")
