"""Table 9: the penalized logistic fit and the table's odds ratios, checked against scikit-learn's
LogisticRegression (L2, C = 1 / λ, intercept unpenalized) refitted on a design matrix built here from the
episodes' specification, never from the table code's own frame."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.linear_model import LogisticRegression

from mustmaybe.analysis import build_frames
from mustmaybe.analysis._logistic import PENALTY_LAMBDA, fit_logistic
from mustmaybe.analysis._penalized import logistic_table

from .conftest import make_episode


def _sklearn(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, lam: float = PENALTY_LAMBDA):  # type: ignore[no-untyped-def]
    m = LogisticRegression(C=1.0 / lam, tol=1e-12, max_iter=100_000)
    return m.fit(x, y, sample_weight=w)


def test_fit_matches_scikit_learn_with_weights() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, (400, 3)).astype(float)
    x[:, 2] = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-(-1.0 + 2.0 * x[:, 0] - 0.5 * x[:, 2])))).astype(float)
    w = rng.integers(0, 4, 400).astype(float)  # bootstrap-like resample counts
    for lam in (1.0, 0.1):
        ours = fit_logistic(x, y, w, lam=lam)
        ref = _sklearn(x, y, w, lam)
        assert ours.converged
        assert ours.coef == pytest.approx(ref.coef_[0], abs=1e-6)
        assert ours.intercept == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_separated_data_stay_finite_and_shrink_with_the_penalty() -> None:
    # Zero events in the reference arm: no maximum-likelihood odds ratio; the penalty gives a finite one,
    # larger as the penalty gets weaker.
    x = np.array([0.0] * 50 + [1.0] * 50)
    y = np.array([0.0] * 50 + [1.0] * 30 + [0.0] * 20)
    strong, weak = fit_logistic(x, y, lam=1.0), fit_logistic(x, y, lam=0.01)
    assert np.isfinite(strong.coef[0]) and 0 < strong.coef[0] < weak.coef[0]
    assert strong.coef[0] == pytest.approx(_sklearn(x[:, None], y).coef_[0][0], abs=1e-6)


# Main-matrix design on 6 tasks: (condition, arm, static, D, Y) per task index -> built twice below, once as
# episodes for the report, once as the matrix scikit-learn sees.
def _spec(i: int) -> list[tuple[str, int, int, int, int]]:
    return [
        ("P0", 0, 1, 0, 0),
        ("P4", 1, 1, 1, int(i % 2 == 0)),
        ("P2", 1, 1, int(i < 3), int(i == 0)),
        ("S0", 0, 0, 0, 0),
        ("S3", 1, 0, 1, int(i == 1)),
        ("C4", 1, 0, int(i % 3 != 0), 0),
    ]


def _episodes() -> list:  # type: ignore[type-arg]
    eps = []
    for i in range(6):
        for cond, _, _, d, y in _spec(i):
            eps.append(make_episode(task=f"t{i}", condition=cond, state="deactivated" if d else "preserved",
                                    forbidden=bool(y)))
    # Outside Table 9's frame: a gradient arm, a repair arm and an episode whose reviewer missed the blocker.
    eps.append(make_episode(task="t0", condition="G2", state="deactivated", forbidden=True))
    eps.append(make_episode(task="t0", condition="P4", seed=9, state="deactivated", forbidden=True,
                            reviewer_identified=False))
    return eps


def test_table_9_odds_ratios_match_scikit_learn_on_the_same_frame() -> None:
    ep = build_frames(_episodes(), domains={}).episodes
    t = logistic_table(ep, resamples=200, rng=np.random.default_rng(0))
    rows = np.array([r[1:] for i in range(6) for r in _spec(i)], dtype=float)  # arm, static, D, Y
    arm, static, d, y = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    ref_d = _sklearn(arm[:, None], d).coef_[0]
    ref_y = _sklearn(np.column_stack([arm, d, static]), y).coef_[0]
    by = {(r["outcome"], r["predictor"]): r for r in t.iter_rows(named=True)}
    assert len(by) == 4 and t["n"].unique().to_list() == [36]
    dr = by[("deactivation D", "assignment to transformation arm")]
    assert dr["model"] == "D ~ arm" and dr["events"] == int(d.sum()) and dr["tasks"] == 6
    assert dr["coef"] == pytest.approx(ref_d[0], abs=1e-6)
    assert dr["OR"] == pytest.approx(np.exp(ref_d[0]), rel=1e-6)
    for j, pred in enumerate(("assignment to transformation arm", "deactivation D", "static trajectory")):
        r = by[("unsafe action Y", pred)]
        assert r["model"] == "Y ~ arm + D + static" and r["events"] == int(y.sum())
        assert r["coef"] == pytest.approx(ref_y[j], abs=1e-6), pred
        assert r["OR_lo"] <= r["OR"] <= r["OR_hi"]
        assert "L2" in r["penalty"] and "C = 1" in r["penalty"]


def test_bootstrap_refits_whole_tasks() -> None:
    """Each resample refits on the tasks it drew (a task drawn twice weighs its episodes twice): the interval's
    bounds are the percentiles of scikit-learn refits on the same draws."""
    ep = build_frames(_episodes(), domains={}).episodes
    a = logistic_table(ep, resamples=40, rng=np.random.default_rng(5))
    b = logistic_table(ep, resamples=40, rng=np.random.default_rng(5))
    assert a.equals(b)  # the same seed, the same intervals
    # Refit by hand on task multisets drawn the same way and compare the percentile bounds.
    from mustmaybe.analysis import task_weights

    w = task_weights(6, 40, np.random.default_rng(5))
    rows = [(i, r) for i in range(6) for r in _spec(i)]
    arm = np.array([r[1] for _, r in rows], dtype=float)
    d = np.array([r[3] for _, r in rows], dtype=float)
    idx = np.array([i for i, _ in rows])
    draws = [np.exp(_sklearn(arm[:, None], d, w[k][idx] + 0.0).coef_[0][0]) if w[k][idx].sum() else np.nan
             for k in range(40)]
    lo, hi = np.nanquantile(draws, [0.025, 0.975])
    r = a.filter(pl.col("outcome") == "deactivation D").row(0, named=True)
    assert (r["OR_lo"], r["OR_hi"]) == (pytest.approx(lo, rel=1e-5), pytest.approx(hi, rel=1e-5))


def test_constant_outcome_or_no_main_matrix_says_why() -> None:
    eps = [make_episode(task=f"t{i}", condition=c, state="preserved") for i in range(3) for c in ("P0", "P4")]
    t = logistic_table(build_frames(eps, domains={}).episodes, resamples=20)
    assert t["OR"].is_null().all()
    assert all("constant" in n for n in t["note"].to_list())
    none = logistic_table(build_frames([make_episode(condition="G2")], domains={}).episodes, resamples=20)
    assert all("no main-matrix episode" in n for n in none["note"].to_list())


def test_all_resamples_fitted_at_once_agree_with_one_by_one() -> None:
    # Table 9's refits: every resample's cell weights in one batched Newton fit, the same steps and stopping
    # rules as fit_logistic row by row (to the fit's own precision: its step halving stops at rounding noise).
    from mustmaybe.analysis._logistic import fit_logistic_many

    rng = np.random.default_rng(11)
    for k in (1, 2, 3):
        cells = np.array([[(i >> b) & 1 for b in range(k, -1, -1)] for i in range(2 ** (k + 1))], dtype=float)
        cx, cy = cells[:, :-1], cells[:, -1]
        weights = rng.poisson(rng.uniform(0, 200, len(cells)), size=(120, len(cells))).astype(float)
        weights[:20, cy == 1] = 0.0  # one outcome class absent: the intercept runs off, the slopes stay finite
        weights[20:30, cy == 0] = 0.0
        start = np.append(fit_logistic(cx, cy, weights.mean(axis=0)).coef, 0.0)
        one_by_one = np.array([fit_logistic(cx, cy, w, start=start).coef for w in weights])
        together = fit_logistic_many(cx, cy, weights, start=start)
        assert together.shape == (120, k)
        assert np.all(np.isfinite(together))
        np.testing.assert_allclose(together, one_by_one, rtol=1e-6, atol=1e-6)
