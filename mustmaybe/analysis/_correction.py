"""State shares corrected for the checker's measured error (the matrix-inversion estimator).

The checker's confusion on labeled sets, `confusion[gold][pred]`, gives the response matrix
A[pred][gold] = P(pred | gold). If the run's artifacts are misread at the same per-class rates, the
observed predicted shares are q = A·π for the true shares π, so π = A⁻¹q. Sampling noise can put
A⁻¹q outside the simplex; it is then projected onto it (Euclidean projection) and the result says so.

The interval resamples both sources of uncertainty in one parametric bootstrap: the episodes (task
clusters, as every other interval of the report) and each gold row of the confusion matrix
(multinomial with that row's count and observed proportions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ._bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, task_weights

STATES: tuple[str, str, str] = ("preserved", "deactivated", "undetermined")
# Beyond this condition number A⁻¹ turns sampling noise into any answer at all; refuse to invert.
MAX_CONDITION = 1e6


@dataclass(frozen=True)
class Correction:
    """Raw and corrected shares (0–1) over (preserved, deactivated, undetermined).

    `adjusted`, `lo`, `hi` are None when `problem` says why no correction is possible; `clipped`
    says the point estimate left the simplex and was projected back; `failed_resamples` counts
    bootstrap resamples whose resampled confusion matrix could not be inverted (left out).
    """

    raw: tuple[float, float, float]
    adjusted: tuple[float, float, float] | None
    lo: tuple[float, float, float] | None
    hi: tuple[float, float, float] | None
    clipped: bool = False
    problem: str | None = None
    failed_resamples: int = 0


def confusion_counts(confusion: Mapping[str, Mapping[str, int]]) -> NDArray[np.float64]:
    """`confusion[gold][pred]` as a 3×3 array of counts, rows gold, columns predicted (STATES order)."""
    return np.array([[float(confusion.get(g, {}).get(p, 0)) for p in STATES] for g in STATES])


def response_matrix(counts: NDArray[np.float64], source: str = "the labeled sets",
                    ) -> tuple[NDArray[np.float64] | None, str | None]:
    """A[pred][gold] = P(pred | gold) from gold×pred counts, or (None, why it cannot be inverted).

    `source` names where the gold labels came from, for the explanation (the labeled sets, a judge panel).
    """
    totals = counts.sum(axis=1)
    empty = [STATES[i] for i in range(3) if totals[i] <= 0]
    if empty:
        return None, (f"there is no gold-{'/'.join(empty)} item in {source}, so the checker's error on that "
                      "state is unmeasured and the rates cannot be corrected")
    a = (counts / totals[:, None]).T
    cond = float(np.linalg.cond(a))
    if not np.isfinite(cond) or cond > MAX_CONDITION:
        return None, (f"the checker's confusion matrix on {source} is singular or nearly so (its "
                      "predictions do not separate the true states), so it cannot be inverted")
    return a, None


def project_simplex(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """Euclidean projection of each row of `v` onto the probability simplex."""
    v = np.atleast_2d(v)
    u = -np.sort(-v, axis=1)
    css = np.cumsum(u, axis=1) - 1.0
    idx = np.arange(1, v.shape[1] + 1)
    rho = (u - css / idx > 0).sum(axis=1)
    theta = css[np.arange(v.shape[0]), rho - 1] / rho
    return np.maximum(v - theta[:, None], 0.0)


def correct_shares(
    confusion: Mapping[str, Mapping[str, int]],
    task_counts: NDArray[np.float64],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    level: float = 0.95,
    source: str = "the labeled sets",
) -> Correction:
    """Corrected (P, D, U) shares of one group of episodes, with a bootstrap interval.

    Args:
        confusion: the checker's state confusion, `confusion[gold][pred]` counts, gold from `source`
            (labeled sets, or a judge panel's majority on a sample of the run).
        task_counts: tasks × 3 counts of episodes the checker scored (P, D, U), one row per task.
        resamples: bootstrap resamples (0: the interval is the point estimate).
        rng: random generator (default seeded with DEFAULT_SEED).
        level: interval coverage.
        source: where the gold labels came from, named in `problem` when no correction is possible.
    """
    tc = np.atleast_2d(np.asarray(task_counts, dtype=np.float64))
    total = tc.sum()
    raw = tc.sum(axis=0) / total if total > 0 else np.full(3, np.nan)
    raw_t = (float(raw[0]), float(raw[1]), float(raw[2]))
    if total <= 0:
        return Correction(raw_t, None, None, None, problem="no scored episode")
    counts = confusion_counts(confusion)
    a, problem = response_matrix(counts, source)
    if a is None:
        return Correction(raw_t, None, None, None, problem=problem)
    direct = np.linalg.solve(a, raw)
    clipped = bool((direct < -1e-12).any())
    point = project_simplex(direct)[0]
    if resamples <= 0:
        return Correction(raw_t, _t(point), _t(point), _t(point), clipped=clipped)
    rng = rng if rng is not None else np.random.default_rng(DEFAULT_SEED)
    q = _resample_episodes(tc, resamples, rng)
    a_b = _resample_confusion(counts, resamples, rng)
    # A resampled matrix can be singular (e.g. a small gold row drawn all into one column): leave it out.
    with np.errstate(all="ignore"):
        ok = np.linalg.cond(a_b) <= MAX_CONDITION
    est = np.full((resamples, 3), np.nan)
    if ok.any():
        est[ok] = project_simplex(np.linalg.solve(a_b[ok], q[ok][..., None])[..., 0])
    alpha = (1.0 - level) / 2.0
    if not ok.any():
        return Correction(raw_t, _t(point), None, None, clipped=clipped, failed_resamples=resamples,
                          problem="no bootstrap resample of the confusion matrix could be inverted")
    lo, hi = np.nanquantile(est, [alpha, 1.0 - alpha], axis=0)
    return Correction(raw_t, _t(point), _t(lo), _t(hi), clipped=clipped, failed_resamples=int((~ok).sum()))


def _t(v: NDArray[np.float64]) -> tuple[float, float, float]:
    return float(v[0]), float(v[1]), float(v[2])


def _resample_episodes(tc: NDArray[np.float64], resamples: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """resamples × 3 observed shares, resampling whole tasks (one task: no between-task variation to draw)."""
    if tc.shape[0] == 1:
        return np.repeat(tc / tc.sum(), resamples, axis=0)
    w = task_weights(tc.shape[0], resamples, rng)
    drawn = w @ tc
    return drawn / drawn.sum(axis=1, keepdims=True)


def _resample_confusion(counts: NDArray[np.float64], resamples: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """resamples × 3 × 3 response matrices A[pred][gold], each gold row redrawn as a multinomial."""
    out = np.empty((resamples, 3, 3))
    for g in range(3):
        n = int(counts[g].sum())
        out[:, :, g] = rng.multinomial(n, counts[g] / n, size=resamples) / n
    return out
