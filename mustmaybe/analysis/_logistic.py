"""L2-penalized logistic regression by Newton's method, with episode weights (the bootstrap's resample counts).

Objective (minimized): Σ_i w_i · [log(1 + exp(η_i)) − y_i η_i] + (λ/2) Σ_j β_j², η = b + Xβ, the intercept b
unpenalized. This is scikit-learn's `LogisticRegression(penalty="l2", C=1/λ)` objective (lbfgs and the other
non-liblinear solvers leave the intercept unpenalized) with `sample_weight=w`, so a fit here can be checked
against it. The checker's trainer has its own fit (checker/_train.py); the analysis keeps this one so that it
never imports the checker's private modules, and because it needs weights and full precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

PENALTY_LAMBDA = 1.0
PENALTY = (f"L2 (ridge) on the log odds ratios, λ = {PENALTY_LAMBDA:g} on the summed log-likelihood (scikit-learn "
           "C = 1), intercept unpenalized")


@dataclass(frozen=True)
class LogisticFit:
    """Coefficients of one fit: `coef` per predictor (log odds ratios) and the unpenalized intercept."""

    coef: NDArray[np.float64]
    intercept: float
    iterations: int
    converged: bool


def fit_logistic(
    x: ArrayLike, y: ArrayLike, weights: ArrayLike | None = None, *, lam: float = PENALTY_LAMBDA,
    start: NDArray[np.float64] | None = None, tol: float = 1e-10, max_iter: int = 200,
) -> LogisticFit:
    """Minimize the weighted, L2-penalized negative log-likelihood (module docstring).

    Args:
        x: n × k predictors (no intercept column; one is added).
        y: n outcomes, 0/1.
        weights: n non-negative episode weights (default 1: each episode once).
        lam: the penalty λ on every slope (0 gives the unpenalized maximum likelihood, which does not exist
            under separation).
        start: k + 1 starting values (slopes, then intercept), e.g. the point fit when refitting resamples.
    """
    xa = np.asarray(x, dtype=np.float64)
    if xa.ndim == 1:
        xa = xa[:, None]
    design = np.hstack([xa, np.ones((xa.shape[0], 1))])
    ya = np.asarray(y, dtype=np.float64)
    wa = np.ones(len(ya)) if weights is None else np.asarray(weights, dtype=np.float64)
    k = design.shape[1]
    pen = np.append(np.full(k - 1, float(lam)), 0.0)
    beta = np.zeros(k) if start is None else np.array(start, dtype=np.float64)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        eta = np.clip(design @ beta, -50.0, 50.0)
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = design.T @ (wa * (p - ya)) + pen * beta
        if float(np.max(np.abs(grad))) < tol:
            # Also the exit when one outcome class is absent: the intercept would walk toward -inf forever.
            converged = True
            break
        hess = (design * (wa * p * (1.0 - p))[:, None]).T @ design + np.diag(pen)
        # A tiny ridge keeps the intercept's row solvable when every weighted outcome is one class.
        step = np.linalg.solve(hess + 1e-12 * np.eye(k), grad)
        # Halve the step while it does not lower the objective: Newton can overshoot when p is near 0 or 1.
        obj = _objective(design, ya, wa, pen, beta)
        t = 1.0
        while t > 1e-8 and _objective(design, ya, wa, pen, beta - t * step) > obj + 1e-15:
            t /= 2.0
        beta = beta - t * step
        if float(np.max(np.abs(t * step))) < tol:
            converged = True
            break
    return LogisticFit(coef=beta[:-1].copy(), intercept=float(beta[-1]), iterations=it, converged=converged)


def _objective(design: NDArray[np.float64], y: NDArray[np.float64], w: NDArray[np.float64],
               pen: NDArray[np.float64], beta: NDArray[np.float64]) -> float:
    eta = design @ beta
    return float(np.sum(w * (np.logaddexp(0.0, eta) - y * eta)) + 0.5 * np.sum(pen * beta * beta))


def fit_logistic_many(
    x: ArrayLike, y: ArrayLike, weights: ArrayLike, *, lam: float = PENALTY_LAMBDA,
    start: NDArray[np.float64] | None = None, tol: float = 1e-10, max_iter: int = 200,
) -> NDArray[np.float64]:
    """`fit_logistic(x, y, weights[r], ...)`'s slopes for every row r of `weights` (R × n), all fitted at once.

    The same Newton steps, step halving and stopping rules as `fit_logistic`, each row stopping on its own,
    with every row's arithmetic done across rows together (the bootstrap's refits: one matrix operation per
    step instead of a Python loop over resamples). The slopes agree with the row-by-row fits to rounding
    (the sums are taken in another order); returns R × k slopes.
    """
    xa = np.asarray(x, dtype=np.float64)
    if xa.ndim == 1:
        xa = xa[:, None]
    design = np.hstack([xa, np.ones((xa.shape[0], 1))])
    ya = np.asarray(y, dtype=np.float64)
    wa = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    rows, k = wa.shape[0], design.shape[1]
    pen = np.append(np.full(k - 1, float(lam)), 0.0)
    ridge = np.diag(pen) + 1e-12 * np.eye(k)
    beta = np.zeros((rows, k)) if start is None else np.tile(np.asarray(start, dtype=np.float64), (rows, 1))
    active = np.arange(rows)  # rows still iterating
    for _ in range(max_iter):
        if not active.size:
            break
        b, w = beta[active], wa[active]
        eta = np.clip(b @ design.T, -50.0, 50.0)
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = (w * (p - ya)) @ design + pen * b
        moving = np.max(np.abs(grad), axis=1) >= tol
        active, b, w, grad, p = active[moving], b[moving], w[moving], grad[moving], p[moving]
        if not active.size:
            break
        hess = np.einsum("rn,ni,nj->rij", w * p * (1.0 - p), design, design) + ridge
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        obj = _objectives(design, ya, w, pen, b)
        t = np.ones(len(active))
        halving = np.ones(len(active), dtype=bool)
        while True:
            halving &= t > 1e-8
            if not halving.any():
                break
            worse = _objectives(design, ya, w[halving], pen, b[halving] - t[halving, None] * step[halving]) \
                > obj[halving] + 1e-15
            idx = np.flatnonzero(halving)
            halving[idx[~worse]] = False
            t[idx[worse]] /= 2.0
        moved = t[:, None] * step
        beta[active] = b - moved
        active = active[np.max(np.abs(moved), axis=1) >= tol]
    return beta[:, :-1].copy()


def _objectives(design: NDArray[np.float64], y: NDArray[np.float64], w: NDArray[np.float64],
                pen: NDArray[np.float64], beta: NDArray[np.float64]) -> NDArray[np.float64]:
    """`_objective` for each row of `w` and `beta`."""
    eta = beta @ design.T
    return np.sum(w * (np.logaddexp(0.0, eta) - y * eta), axis=1) + 0.5 * np.sum(pen * beta * beta, axis=1)
