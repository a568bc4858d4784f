"""Table 9: secondary penalized logistic summaries of the transformation effects, task-cluster bootstrap intervals.

The paper (000, appendix C): "Penalized logistic models summarize the combined evidence as secondary robustness
analyses"; its Table 9 gives odds ratios for deactivation D on assignment to a transformation arm, and for unsafe
action Y on assignment, on deactivation and on the static trajectory. It does not name its penalty; this tool
uses the one in `_logistic.PENALTY` and names it in the table. Two models on the main matrix's episodes (the
static, summary, plan and convergence families, controls and transformed arms, D_up = 1, no benign twins):

    D ~ arm                  arm = 1 for a transformed condition, 0 for a control (P0, S0, C0, E0)
    Y ~ arm + D + static     static = 1 for the static family (P0-P5, single handoffs), 0 for the trajectories

Zero-event controls separate the data (no finite maximum-likelihood odds ratio exists); the penalty keeps every
estimate finite, and shrinks it, so a Table 9 odds ratio depends on λ where the Table 8 difference does not.
Intervals: tasks resampled with replacement (their episodes kept together), each resample refitted with the
same penalty, percentile 95% interval of the odds ratio.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, task_weights
from ._logistic import PENALTY, PENALTY_LAMBDA, fit_logistic, fit_logistic_many
from ._robustness import claim_group

# (outcome column, outcome label, formula, [(predictor column, predictor label)])
MODELS: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...] = (
    ("D", "deactivation D", "D ~ arm", (("arm", "assignment to transformation arm"),)),
    ("unsafe", "unsafe action Y", "Y ~ arm + D + static", (
        ("arm", "assignment to transformation arm"), ("D", "deactivation D"), ("static", "static trajectory"))),
)
LOGISTIC_COLUMNS: tuple[str, ...] = (
    "outcome", "predictor", "model", "OR", "OR_lo", "OR_hi", "coef", "n", "events", "tasks", "penalty", "note",
)


def logistic_frame(ep: pl.DataFrame, *, keep_key: bool = False) -> pl.DataFrame:
    """The main matrix's episodes as the models read them: task, D, unsafe, arm, static (0/1 floats); with
    `keep_key`, the episode key first."""
    first = ["key", "task"] if keep_key else ["task"]
    if ep.is_empty():
        return pl.DataFrame(schema={**dict.fromkeys(first, pl.String),
                                    **dict.fromkeys(("D", "unsafe", "arm", "static"), pl.Float64)})
    main_families = [f for f in ep["family"].unique().to_list() if claim_group(f) == "main"]
    main = ep.filter(pl.col("reviewer_identified") & ~pl.col("twin") & pl.col("family").is_in(main_families))
    return main.select(
        *first, pl.col("D").cast(pl.Float64), pl.col("unsafe").cast(pl.Float64),
        arm=pl.col("control").is_not_null().cast(pl.Float64), static=(pl.col("family") == "static").cast(pl.Float64))


def logistic_table(
    ep: pl.DataFrame, *, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None,
    lam: float = PENALTY_LAMBDA,
) -> pl.DataFrame:
    """Table 9: one row per (outcome, predictor) with the penalized odds ratio and its bootstrap interval."""
    rng = rng if rng is not None else np.random.default_rng(0)
    frame = logistic_frame(ep)
    tasks = sorted(set(frame["task"].to_list()))
    index = {t: i for i, t in enumerate(tasks)}
    task_idx = np.array([index[t] for t in frame["task"].to_list()], dtype=np.int64)
    rows: list[dict[str, object]] = []
    for out, out_label, formula, preds in MODELS:
        y = frame[out].to_numpy() if frame.height else np.zeros(0)
        usable = [(c, lab) for c, lab in preds if frame.height and frame[c].n_unique() > 1]
        base = {"outcome": out_label, "model": formula, "n": frame.height, "events": int(y.sum()),
                "tasks": len(tasks), "penalty": PENALTY}
        why = _not_estimable(frame.height, y)
        if why is not None or not usable:
            for _, lab in preds:
                rows.append({**base, "predictor": lab, "note": why or "no predictor varies in these episodes"})
            continue
        x = frame.select([c for c, _ in usable]).to_numpy()
        # The predictors and the outcome are 0/1, so the likelihood depends on the episodes only through the
        # (weighted) count of each distinct (x, y) row: fit on those few cells, not on every episode. One
        # resample's cell weights are its task counts times each task's cell counts, one matrix product.
        cells, cell_of = np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)
        cell_of = cell_of.reshape(-1)
        cx, cy = cells[:, :-1], cells[:, -1]
        per_task = np.zeros((len(tasks), len(cells)))
        np.add.at(per_task, (task_idx, cell_of), 1.0)
        point = fit_logistic(cx, cy, per_task.sum(axis=0), lam=lam)
        start = np.append(point.coef, point.intercept)
        draws = np.full((resamples, len(usable)), np.nan)
        if resamples > 0 and len(tasks) > 1:
            # Every resample's refit at once (fit_logistic_many: the same Newton steps, row by row).
            draws[:] = fit_logistic_many(cx, cy, task_weights(len(tasks), resamples, rng) @ per_task, lam=lam,
                                         start=start)
        for c, lab in preds:
            row: dict[str, object] = {**base, "predictor": lab}
            if c not in (u for u, _ in usable):
                row["note"] = f"{c} does not vary in these episodes: not in the model"
                rows.append(row)
                continue
            j = [u for u, _ in usable].index(c)
            row.update(coef=float(point.coef[j]), OR=float(np.exp(point.coef[j])))
            if np.isfinite(draws[:, j]).any():
                lo, hi = np.nanquantile(np.exp(draws[:, j]), [0.025, 0.975])
                row.update(OR_lo=float(lo), OR_hi=float(hi))
            else:
                row["note"] = "one task: no bootstrap interval"
            if not point.converged:
                row["note"] = "the fit did not converge"
            rows.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {}
    schema.update(dict.fromkeys(("OR", "OR_lo", "OR_hi", "coef"), pl.Float64))
    schema.update(dict.fromkeys(("n", "events", "tasks"), pl.Int64))
    schema.update(dict.fromkeys(("outcome", "predictor", "model", "penalty", "note"), pl.String))
    return pl.DataFrame(rows, schema=schema).select(LOGISTIC_COLUMNS)


def _not_estimable(n: int, y: np.ndarray) -> str | None:
    if n == 0:
        return "no main-matrix episode in this panel"
    if y.sum() == 0 or y.sum() == n:
        return "the outcome is constant in these episodes: no odds ratio"
    return None
