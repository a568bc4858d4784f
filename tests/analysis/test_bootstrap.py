"""The task-cluster bootstrap on inputs with a known answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mustmaybe.analysis import build_frames, cluster_bootstrap, risk_differences

from .conftest import make_episode


def test_constant_difference_has_a_zero_width_interval() -> None:
    num = np.ones((30, 2)) * np.array([1.0, 0.0])
    iv = cluster_bootstrap(num, np.ones(30), resamples=500)
    assert iv.point.tolist() == [1.0, 0.0]
    assert iv.lo.tolist() == [1.0, 0.0] and iv.hi.tolist() == [1.0, 0.0]
    assert iv.tasks == 30


def test_interval_matches_the_analytic_standard_error() -> None:
    # 400 tasks, one episode each, half of them positive: SE of the mean = sqrt(.25 / 400) = 0.025.
    num = np.array([1.0, 0.0] * 200)
    iv = cluster_bootstrap(num, np.ones(400), resamples=4000, rng=np.random.default_rng(1))
    assert iv.point[0] == pytest.approx(0.5)
    width = iv.hi[0] - iv.lo[0]
    assert width == pytest.approx(2 * 1.96 * 0.025, rel=0.12)
    assert iv.lo[0] < 0.5 < iv.hi[0]


def test_tasks_are_resampled_as_clusters() -> None:
    # 100 tasks of 10 identical episodes: the interval is as wide as 100 draws, not 1,000.
    per_task = np.array([10.0, 0.0] * 50)
    clustered = cluster_bootstrap(per_task, np.full(100, 10.0), resamples=4000, rng=np.random.default_rng(2))
    independent = cluster_bootstrap(np.array([1.0, 0.0] * 500), np.ones(1000), resamples=4000,
                                    rng=np.random.default_rng(2))
    se_tasks = math.sqrt(0.25 / 100)
    assert clustered.hi[0] - clustered.lo[0] == pytest.approx(2 * 1.96 * se_tasks, rel=0.12)
    assert (clustered.hi[0] - clustered.lo[0]) > 2.5 * (independent.hi[0] - independent.lo[0])


def test_degenerate_inputs() -> None:
    one = cluster_bootstrap(np.array([[3.0]]), np.array([4.0]), resamples=100)
    assert one.point[0] == one.lo[0] == one.hi[0] == 0.75
    none = cluster_bootstrap(np.zeros((0, 2)), np.zeros(0), resamples=100)
    assert np.isnan(none.point).all() and none.tasks == 0


def test_seeded_bootstrap_is_reproducible() -> None:
    num = np.random.default_rng(3).random((50, 3))
    a = cluster_bootstrap(num, np.ones(50), rng=np.random.default_rng(9))
    b = cluster_bootstrap(num, np.ones(50), rng=np.random.default_rng(9))
    assert a.lo.tolist() == b.lo.tolist() and a.hi.tolist() == b.hi.tolist()


def test_risk_difference_on_a_synthetic_store_with_a_known_answer() -> None:
    # 40 tasks × 2 seeds. P4 is always deactivated, P0 always preserved; P4's executor acts unsafely on
    # every seed of the first 10 tasks only, so dD = 100 exactly and dY = 25 with a task-cluster spread.
    eps = []
    for t in range(40):
        for s in (1, 2):
            eps.append(make_episode(task=f"t{t:02d}", condition="P4", state="deactivated", seed=s,
                                    forbidden=t < 10))
            eps.append(make_episode(task=f"t{t:02d}", condition="P0", state="preserved", seed=s))
    rd = risk_differences(build_frames(eps, domains={}).episodes, resamples=2000,
                          rng=np.random.default_rng(0))
    row = rd.table.row(0, named=True)
    assert (row["condition"], row["control"], row["n"], row["tasks"]) == ("P4", "P0", 80, 40)
    assert row["match"] == "task+seed+models"
    assert row["dD"] == row["dD_lo"] == row["dD_hi"] == 100.0
    assert row["dP"] == row["dP_lo"] == row["dP_hi"] == -100.0
    assert row["dY"] == pytest.approx(25.0)
    se = 100 * math.sqrt(0.25 * 0.75 / 40)
    assert row["dY_lo"] == pytest.approx(25.0 - 1.96 * se, abs=3.0)
    assert row["dY_hi"] == pytest.approx(25.0 + 1.96 * se, abs=3.0)
