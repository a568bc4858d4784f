"""Leave-one-out ranges and label-flip evidence states on hand-computed cases."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from mustmaybe.analysis import build_frames, flip_state, label_flip, leave_one_out, risk_differences

from .conftest import make_episode


def _store() -> pl.DataFrame:
    # Model m1: P4 deactivates on all 4 tasks; m2: on 2 of 4. P0 never does. Tasks t0, t1 are in
    # domain d1 and t2, t3 in d2; m2's deactivations fall on d1's tasks.
    eps = []
    for i in range(4):
        t = f"t{i}"
        for m in ("sim:m1", "sim:m2"):
            d = m == "sim:m1" or i < 2
            eps.append(make_episode(task=t, model=m, condition="P4", state="deactivated" if d else "preserved",
                                    forbidden=d and m == "sim:m1"))
            eps.append(make_episode(task=t, model=m, condition="P0", state="preserved"))
    return build_frames(eps, domains={"t0": "d1", "t1": "d1", "t2": "d2", "t3": "d2"}).episodes


def test_leave_one_model_and_domain_out_ranges() -> None:
    ep = _store()
    rd = risk_differences(ep, resamples=100, rng=np.random.default_rng(0))
    loo = leave_one_out(ep, rd)
    rows = {r["analysis"]: r for r in loo.filter(pl.col("group") == "main").iter_rows(named=True)}
    full = rows["all episodes"]
    assert full["dD_min"] == full["dD_max"] == pytest.approx(75.0)   # (4 + 2) / 8
    assert full["dY_min"] == pytest.approx(50.0)                      # m1 forbids on 4 of 8
    model = rows["leave-one-model-out"]
    assert model["slices"] == 2
    assert (model["dD_min"], model["dD_max"]) == (pytest.approx(50.0), pytest.approx(100.0))
    assert (model["dY_min"], model["dY_max"]) == (pytest.approx(0.0), pytest.approx(100.0))
    domain = rows["leave-one-domain-out"]
    # without d1: m1 2/2, m2 0/2 -> 50; without d2: m1 2/2, m2 2/2 -> 100
    assert (domain["dD_min"], domain["dD_max"]) == (pytest.approx(50.0), pytest.approx(100.0))


def test_one_model_one_domain_says_so() -> None:
    eps = [make_episode(task="t1", condition="P4"), make_episode(task="t1", condition="P0", state="preserved")]
    ep = build_frames(eps, domains={}).episodes
    loo = leave_one_out(ep, risk_differences(ep, resamples=50))
    notes = dict(loo.select("analysis", "note").iter_rows())
    assert "one model configuration" in notes["leave-one-model-out"]
    assert "one domain (unknown)" in notes["leave-one-domain-out"]
    assert loo.filter(pl.col("analysis") == "leave-one-model-out")["dD_min"][0] is None


@pytest.mark.parametrize(
    ("gap", "arm", "control", "flip", "state"),
    [
        (0.28, 0.28, 0.0, 0.10, "identified positive"),   # 28 - 10 - 10 = 8 > 0
        (0.28, 0.28, 0.0, 0.15, "inconclusive"),          # 28 - 15 - 15 < 0
        (0.51, 0.51, 0.0, 0.20, "identified positive"),   # 51 - 20 - 20 = 11 > 0
        (0.10, 0.10, 0.0, 0.05, "inconclusive"),          # 10 - 5 - 5 = 0: sign not preserved
        (0.30, 0.35, 0.05, 0.10, "identified positive"),  # 30 - 10 - 10 = 10 > 0
        (-0.40, 0.10, 0.50, 0.10, "identified negative"),  # -40 + 10 + 10 < 0
        (-0.05, 0.0, 0.05, 0.10, "inconclusive"),          # -5 + 10 + 5: bounded by 5% control positives
        (0.0, 0.0, 0.0, 0.05, "inconclusive"),
    ],
)
def test_flip_state(gap: float, arm: float, control: float, flip: float, state: str) -> None:
    assert flip_state(gap, arm, control, flip) == state


def test_label_flip_table_on_a_store() -> None:
    ep = _store()
    lf = label_flip(risk_differences(ep, resamples=50))
    d = lf.filter((pl.col("group") == "main") & (pl.col("gap") == "dD")).row(0, named=True)
    assert d["value"] == pytest.approx(75.0)
    assert [d[f"flip_{x}"] for x in (5, 10, 15, 20)] == ["identified positive"] * 4
    y = lf.filter(pl.col("gap") == "dY").row(0, named=True)   # 50 pp: inconclusive from 25% only
    assert y["flip_20"] == "identified positive"
    p = lf.filter(pl.col("gap") == "dP").row(0, named=True)
    assert p["value"] == pytest.approx(-75.0) and p["flip_20"] == "identified negative"


def test_balanced_weighting_row_by_hand() -> None:
    # P4 on m1 (t0-t3, all deactivated), on m2 (t0 deactivated, t1 not); P2 on m1 (t0, not deactivated).
    # d1 = {t0, t1}, d2 = {t2, t3}. Pooled by matched n: (4 + 1 + 0) / 7 = 71.43.
    #   each contrast equally: P4 5/6 = 83.33, P2 0 -> 41.67
    #   each model:           m1 (4 + 0) / 5 = 80, m2 1/2 = 50 -> 65
    #   each domain:          d1 (2 + 1 + 0) / 5 = 60, d2 2/2 = 100 -> 80
    eps = []
    for i in range(4):
        eps += [make_episode(task=f"t{i}", model="sim:m1", condition="P4"),
                make_episode(task=f"t{i}", model="sim:m1", condition="P0", state="preserved")]
    for i, d in ((0, True), (1, False)):
        eps += [make_episode(task=f"t{i}", model="sim:m2", condition="P4", state="deactivated" if d else "preserved"),
                make_episode(task=f"t{i}", model="sim:m2", condition="P0", state="preserved")]
    eps.append(make_episode(task="t0", model="sim:m1", condition="P2", state="preserved"))
    ep = build_frames(eps, domains={"t0": "d1", "t1": "d1", "t2": "d2", "t3": "d2"}).episodes
    loo = leave_one_out(ep, risk_differences(ep, resamples=20))
    rows = {r["analysis"]: r for r in loo.filter(pl.col("group") == "main").iter_rows(named=True)}
    assert rows["all episodes"]["dD_min"] == pytest.approx(500 / 7)
    bal = rows["balanced weighting"]
    assert bal["slices"] == 3 and bal["n"] == 7
    assert (bal["dD_min"], bal["dD_max"]) == (pytest.approx(125 / 3), pytest.approx(80.0))
    assert (bal["dP_min"], bal["dP_max"]) == (pytest.approx(-80.0), pytest.approx(-125 / 3))
    assert bal["note"] == "slices weighted equally within each of: condition (2), models (2), domain (2)"


def test_strict_compression_row_keeps_each_arm_under_its_own_topology() -> None:
    # G1 (single) deactivates on t0 of t0-t1, G4 (chain:hops=3) on both; G2 runs only under chain:hops=2, which is
    # not its own topology. All compression arms: (1 + 2 + 0) / 6 = 50; strict (G1, G4): 3 / 4 = 75.
    eps = []
    for i in range(2):
        eps += [make_episode(task=f"t{i}", condition="G0", state="preserved"),
                make_episode(task=f"t{i}", condition="G1", state="deactivated" if i == 0 else "preserved",
                             forbidden=i == 0),
                make_episode(task=f"t{i}", condition="G4", state="deactivated"),
                make_episode(task=f"t{i}", condition="G2", state="preserved", topology="chain",
                             topology_params={"hops": 2})]
    ep = build_frames(eps, domains={}).episodes
    loo = leave_one_out(ep, risk_differences(ep, resamples=20))
    rows = {r["analysis"]: r for r in loo.filter(pl.col("group") == "compression").iter_rows(named=True)}
    assert rows["all episodes"]["dD_min"] == pytest.approx(50.0)
    strict = rows["strict compression arms"]
    assert (strict["slices"], strict["n"]) == (2, 4)
    assert strict["dD_min"] == strict["dD_max"] == pytest.approx(75.0)
    assert strict["dY_min"] == pytest.approx(25.0)  # G1 forbids on t0: 1 of 4
    assert strict["note"] == "vs G0: G1 single, G4 chain:hops=3"
    # No strict row without the G-series; the main group never has one.
    assert loo.filter(pl.col("analysis") == "strict compression arms").height == 1
