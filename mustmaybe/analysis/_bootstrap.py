"""Task-cluster bootstrap, vectorized.

Tasks recur across conditions, models and seeds, so episodes of one task are not independent: the
bootstrap resamples whole tasks (with replacement) and keeps each task's episodes together. Every
estimate here is a ratio of task-level sums, Σ_t a_t / Σ_t n_t, so one resample is a row of
multinomial task counts w and its estimate is (w · a) / (w · n): all resamples are one matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Interval:
    """Point estimates with percentile intervals, one entry per outcome column."""

    point: NDArray[np.float64]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    tasks: int


def task_weights(n_tasks: int, resamples: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """`resamples` × `n_tasks` matrix of how often each task is drawn in each resample."""
    if n_tasks == 0:
        return np.zeros((resamples, 0))
    return rng.multinomial(n_tasks, np.full(n_tasks, 1.0 / n_tasks), size=resamples).astype(np.float64)


def cluster_bootstrap(
    num: NDArray[np.float64],
    den: NDArray[np.float64],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    level: float = 0.95,
) -> Interval:
    """Percentile interval of Σ num / Σ den under resampling of task clusters.

    Args:
        num: tasks × outcomes matrix of per-task numerators (e.g. sums of an indicator, or a
            task's summed matched differences).
        den: per-task denominators (episode counts); every entry should be positive.
        resamples: number of bootstrap resamples (0 gives the point estimate as its own interval).
        rng: random generator (default: seeded with DEFAULT_SEED, so reports are reproducible).
        level: interval coverage.

    Returns:
        Point estimate, lower and upper bound per outcome column, in the units of num / den. With no
        tasks every value is NaN; with one task the interval is the point estimate.
    """
    num = np.asarray(num, dtype=np.float64)
    if num.ndim == 1:
        num = num[:, None]
    den = np.asarray(den, dtype=np.float64)
    n_tasks, k = num.shape
    total = den.sum()
    if n_tasks == 0 or total <= 0:
        nan = np.full(k, np.nan)
        return Interval(nan, nan.copy(), nan.copy(), 0)
    point = num.sum(axis=0) / total
    if resamples <= 0 or n_tasks == 1:
        return Interval(point, point.copy(), point.copy(), n_tasks)
    rng = rng if rng is not None else np.random.default_rng(DEFAULT_SEED)
    w = task_weights(n_tasks, resamples, rng)
    dens = w @ den
    with np.errstate(invalid="ignore", divide="ignore"):
        est = (w @ num) / dens[:, None]
    alpha = (1.0 - level) / 2.0
    lo, hi = np.nanquantile(est, [alpha, 1.0 - alpha], axis=0)
    return Interval(point, lo, hi, n_tasks)
