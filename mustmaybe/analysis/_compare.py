"""Paired comparisons (`mustmaybe compare`): two runs, or two values of one dimension inside runs.

Arms A and B are matched on every design input except the compared dimension (task, condition,
topology, seed, role models); differences are B − A with the cell weighting of `_contrasts` and
task-cluster bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap
from ._contrasts import CONTRAST_OUTCOMES, MODEL_COLS, fill_models
from ._matrix import sort_conditions

BY_COLUMNS: dict[str, str] = {
    "run": "run",
    "models": "models",
    "executor-model": "model_executor",
    "transformer-model": "model_transformer",
    "reviewer-model": "model_reviewer",
    "topology": "topology",
    "substrate": "substrate",
}


@dataclass(frozen=True)
class Comparison:
    """Paired contrasts B − A on matched episodes, per panel and condition (plus an 'all' row)."""

    table: pl.DataFrame
    by: str
    a: str
    b: str
    keys: list[str]
    n_a: int
    n_b: int


_MODEL_DIMENSIONS = frozenset({"models", "executor-model", "transformer-model", "reviewer-model"})


def canonical_models(value: str) -> str:
    """A model spec, or a models label (`spec`, or `role=spec; role=spec`), with each spec written as
    the records write it (`sim` → `sim:paper`); a part that does not parse is kept as it is."""
    from mustmaybe.records import ModelSpecError, parse_model_spec

    def spec(text: str) -> str:
        try:
            return str(parse_model_spec(text))
        except ModelSpecError:
            return text.strip()

    parts = []
    for part in value.split(";"):
        role, eq, rest = part.strip().partition("=")
        parts.append(f"{role}={spec(rest)}" if eq and ":" not in role else spec(part))
    return "; ".join(parts)


def compare(
    ep: pl.DataFrame,
    *,
    by: str,
    a: str,
    b: str,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
) -> Comparison:
    """Paired contrast of arm B against arm A, matched on everything but the `by` dimension.

    Args:
        ep: episodes frame (may hold several runs).
        by: one of BY_COLUMNS: run, models, executor-model, transformer-model, reviewer-model, topology,
            substrate.
        a, b: the values of that dimension that form arm A and arm B.

    Returns:
        Per panel (real, simulated, or "real vs simulated" when the arms differ) and condition: matched
        cells, episodes per arm, arm rates and B − A in percentage points with task-cluster intervals.

    Raises:
        LookupError: unknown `by`, or a value with no episodes (the message lists the known values).
    """
    if by not in BY_COLUMNS:
        raise LookupError(f"unknown --by '{by}'; known: {', '.join(BY_COLUMNS)}")
    col = BY_COLUMNS[by]
    known = sorted(v for v in ep[col].unique().to_list() if v is not None)
    if by in _MODEL_DIMENSIONS:  # `sim` means `sim:paper`, as everywhere a model spec is read
        a, b = (v if v in known else canonical_models(v) for v in (a, b))
    for v in (a, b):
        if v not in known:
            raise LookupError(f"no episodes with {by} = '{v}'; known: {', '.join(known) or 'none'}")
    drop = set(MODEL_COLS) if by == "models" else {col}
    # Within a substrate, except when runs are compared: an AutoGen run against a LangGraph run is a transport
    # comparison. (Every record before substrates is AutoGen's, so this key changes no earlier comparison.)
    dims = ("task", "condition", "topology", "seed", *MODEL_COLS, *(() if by == "run" else ("substrate",)))
    keys = [k for k in dims if k not in drop]
    outs = CONTRAST_OUTCOMES
    arm_a = fill_models(ep.filter(pl.col(col) == a))
    arm_b = fill_models(ep.filter(pl.col(col) == b))
    ga = arm_a.group_by(keys).agg(
        pl.len().alias("_na"), pl.col("simulated").any().alias("_sa"),
        *(pl.col(o).cast(pl.Float64).mean().alias(f"_m_{o}") for o in outs),
    )
    gb = arm_b.group_by(keys).agg(
        pl.len().alias("_nb"), pl.col("simulated").any().alias("_sb"),
        *(pl.col(o).cast(pl.Float64).sum().alias(f"_s_{o}") for o in outs),
    )
    cells = gb.join(ga, on=keys, how="inner").with_columns(
        panel=pl.when(pl.col("_sa") & pl.col("_sb")).then(pl.lit("simulated"))
        .when(~pl.col("_sa") & ~pl.col("_sb")).then(pl.lit("real"))
        .otherwise(pl.lit("real vs simulated")),
        **{f"_d_{o}": pl.col(f"_s_{o}") - pl.col("_nb") * pl.col(f"_m_{o}") for o in outs},
    )
    rows: list[dict[str, object]] = []
    for panel in ("real", "simulated", "real vs simulated"):
        pc = cells.filter(pl.col("panel") == panel)
        if pc.is_empty():
            continue
        conds = sort_conditions(pc.select("condition").unique())["condition"].to_list()
        for cond in [*conds, "all"] if len(conds) > 1 else conds:
            cc = pc if cond == "all" else pc.filter(pl.col("condition") == cond)
            rows.append(_compare_row(cc, panel, cond, outs, resamples, rng))
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "panel": pl.String, "condition": pl.String, "cells": pl.Int64, "n_a": pl.Int64, "n_b": pl.Int64,
        "tasks": pl.Int64,
    }
    for o in outs:
        name = "recognition" if o == "recognized" else o
        schema |= {f"{name}_a": pl.Float64, f"{name}_b": pl.Float64, f"d{name}": pl.Float64,
                   f"d{name}_lo": pl.Float64, f"d{name}_hi": pl.Float64}
    return Comparison(table=pl.DataFrame(rows, schema=schema), by=by, a=a, b=b, keys=keys,
                      n_a=arm_a.height, n_b=arm_b.height)


def _compare_row(
    cc: pl.DataFrame, panel: str, cond: str, outs: Sequence[str], resamples: int,
    rng: np.random.Generator | None,
) -> dict[str, object]:
    per_task = cc.group_by("task").agg(
        pl.col("_nb").sum(), pl.col("_na").sum(),
        *(pl.col(f"_d_{o}").sum() for o in outs), *(pl.col(f"_s_{o}").sum() for o in outs),
    ).sort("task")
    n = per_task["_nb"].cast(pl.Float64).to_numpy()
    diff = per_task.select(f"_d_{o}" for o in outs).to_numpy()
    iv = cluster_bootstrap(diff, n, resamples=resamples, rng=rng)
    rate_b = per_task.select(f"_s_{o}" for o in outs).to_numpy().sum(axis=0) / n.sum()
    row: dict[str, object] = {"panel": panel, "condition": cond, "cells": cc.height,
                              "n_a": int(per_task["_na"].sum()), "n_b": int(n.sum()),
                              "tasks": per_task.height}
    for j, o in enumerate(outs):
        name = "recognition" if o == "recognized" else o
        row[f"{name}_a"] = float((rate_b[j] - iv.point[j]) * 100.0)
        row[f"{name}_b"] = float(rate_b[j] * 100.0)
        row[f"d{name}"] = float(iv.point[j] * 100.0)
        row[f"d{name}_lo"] = float(iv.lo[j] * 100.0)
        row[f"d{name}_hi"] = float(iv.hi[j] * 100.0)
    return row
