"""Matched contrasts: risk differences against each condition's own control (Table 8).

Estimator. Episodes of the two arms are grouped into matching cells (same task, seed and role models,
where the data allow). For each cell with episodes in both arms the difference of the arm means is
weighted by the cell's episode count in the compared arm (the transformed condition, or arm B):

    Δ = Σ_cells n_cell · (ȳ_arm − ȳ_control) / Σ_cells n_cell

With one episode per cell and arm (the design's paired layout) this is the plain difference of rates
on the matched episodes. Sums are kept per task, so the task-cluster bootstrap resamples tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numpy.typing import NDArray

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap
from ._matrix import sort_conditions

MODEL_COLS: tuple[str, ...] = ("model_reviewer", "model_transformer", "model_executor")
CONTRAST_OUTCOMES: tuple[str, ...] = ("P", "D", "U", "unsafe", "recognized")
_NULL = "\x00"
RD_COLUMNS: tuple[str, ...] = (
    "condition", "control", "n", "dP", "dD", "dY", "dP_lo", "dP_hi", "dD_lo", "dD_hi", "dY_lo", "dY_hi",
)


@dataclass(frozen=True)
class ContrastParts:
    """Per-task sums of one matched contrast (the bootstrap's input).

    Attributes:
        match: the matching level used, e.g. "task+seed+models".
        tasks: task ids, one per row of the arrays.
        n: matched episodes of the compared arm per task.
        diff: tasks × outcomes, Σ n_cell (ȳ_arm − ȳ_control) per task.
        arm: tasks × outcomes, Σ y of the compared arm per task.
        n_control: matched control episodes.
    """

    match: str
    tasks: list[str]
    n: NDArray[np.float64]
    diff: NDArray[np.float64]
    arm: NDArray[np.float64]
    n_control: int
    outcomes: tuple[str, ...] = CONTRAST_OUTCOMES

    @property
    def n_arm(self) -> int:
        return int(self.n.sum())

    def point(self) -> NDArray[np.float64]:
        """Δ per outcome (proportion units)."""
        total = self.n.sum()
        return self.diff.sum(axis=0) / total if total > 0 else np.full(len(self.outcomes), np.nan)

    def subset(self, keep: NDArray[np.bool_]) -> ContrastParts:
        """The contrast restricted to the tasks where `keep` is true."""
        return ContrastParts(self.match, [t for t, k in zip(self.tasks, keep, strict=True) if k],
                             self.n[keep], self.diff[keep], self.arm[keep], self.n_control, self.outcomes)


def fill_models(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(*(pl.col(c).fill_null(_NULL) for c in MODEL_COLS if c in df.columns))


def cell_parts(
    arm: pl.DataFrame, control: pl.DataFrame, keys: Sequence[str], match: str,
    outcomes: Sequence[str] = CONTRAST_OUTCOMES,
) -> ContrastParts:
    """Per-task sums of the matched difference `arm − control` on cells defined by `keys` (must hold task)."""
    keys = list(keys)
    outs = tuple(outcomes)
    a = fill_models(arm).group_by(keys).agg(
        pl.len().alias("_na"), *(pl.col(o).cast(pl.Float64).sum().alias(f"_a_{o}") for o in outs)
    )
    c = fill_models(control).group_by(keys).agg(
        pl.len().alias("_nc"), *(pl.col(o).cast(pl.Float64).mean().alias(f"_c_{o}") for o in outs)
    )
    cells = a.join(c, on=keys, how="inner")
    per_task = cells.group_by("task").agg(
        pl.col("_na").sum(),
        pl.col("_nc").sum(),
        *((pl.col(f"_a_{o}") - pl.col("_na") * pl.col(f"_c_{o}")).sum().alias(f"_d_{o}") for o in outs),
        *(pl.col(f"_a_{o}").sum() for o in outs),
    ).sort("task")
    return ContrastParts(
        match=match,
        tasks=per_task["task"].to_list(),
        n=per_task["_na"].cast(pl.Float64).to_numpy(),
        diff=per_task.select(f"_d_{o}" for o in outs).to_numpy().reshape(per_task.height, len(outs)),
        arm=per_task.select(f"_a_{o}" for o in outs).to_numpy().reshape(per_task.height, len(outs)),
        n_control=int(per_task["_nc"].sum()),
        outcomes=outs,
    )


def matching_levels(arm: pl.DataFrame, control: pl.DataFrame) -> list[tuple[str, list[str]]]:
    """Matching keys from finest to coarsest: task+seed+models, task+seed+executor, task+models, …, task."""
    common = [c for c in MODEL_COLS
              if c in arm.columns and arm[c].null_count() == 0 and control[c].null_count() == 0]
    # A contrast never crosses wordings (the paraphrase panel): a reworded arm is compared with its
    # control in the same wording. Runs of one wording get the cells they always had.
    t = ["task", "wording"] if "wording" in arm.columns and "wording" in control.columns else ["task"]
    levels: list[tuple[str, list[str]]] = []
    if common:
        levels.append(("task+seed+models", [*t, "seed", *common]))
        if "model_executor" in common and len(common) > 1:
            levels.append(("task+seed+executor", [*t, "seed", "model_executor"]))
    levels.append(("task+seed", [*t, "seed"]))
    if common:
        levels.append(("task+models", [*t, *common]))
        if "model_executor" in common and len(common) > 1:
            levels.append(("task+executor", [*t, "model_executor"]))
    levels.append(("task", t))
    return levels


def choose_match(arm: pl.DataFrame, control: pl.DataFrame) -> tuple[str, list[str]]:
    """The finest matching level that keeps as many compared-arm episodes as matching on task alone."""
    a, c = fill_models(arm), fill_models(control)

    def coverage(keys: list[str]) -> int:
        return a.join(c.select(keys).unique(), on=keys, how="semi").height

    levels = matching_levels(arm, control)
    best = coverage(levels[-1][1])
    for label, keys in levels[:-1]:
        if coverage(keys) == best:
            return label, keys
    return levels[-1]


# ------------------------------------------------------------------ risk differences (Table 8)
@dataclass(frozen=True)
class RiskDifferences:
    """Table 8 plus the per-condition sums that the robustness analyses reuse.

    Attributes:
        table: one row per (condition, topology) with a control; contract columns first.
        parts: (condition, topology) → matched per-task sums (absent where nothing matched).
        excluded_unidentified: episodes left out because the reviewer did not identify the blocker
            (D_up = 0; the estimands of Eqs. 6-8 condition on D_up = 1).
    """

    table: pl.DataFrame
    parts: dict[tuple[str, str], ContrastParts] = field(default_factory=dict)
    excluded_unidentified: int = 0


def control_arm(ep: pl.DataFrame, control: str, topology_name: str) -> pl.DataFrame:
    """The control's episodes for a transformed arm run under `topology_name`.

    The control run under the same topology family if there is one, else the control's default topology,
    else every episode of the control.
    """
    c = ep.filter(pl.col("condition") == control)
    same = c.filter(pl.col("topology_name") == topology_name)
    if same.height:
        return same
    try:
        from mustmaybe.scenarios import get_condition

        default = get_condition(control).topology
    except Exception:
        return c
    dflt = c.filter(pl.col("topology_name") == default)
    return dflt if dflt.height else c


def condition_parts(
    ep: pl.DataFrame, condition: str, topology: str, control: str
) -> tuple[ContrastParts | None, list[str]]:
    """Matched per-task sums of `condition` (under `topology`) against `control`, and the control's
    topologies used; the sums are None if nothing matches."""
    t = ep.filter((pl.col("condition") == condition) & (pl.col("topology") == topology))
    if t.is_empty():
        return None, []
    c = control_arm(ep, control, t["topology_name"][0])
    if c.is_empty():
        return None, []
    label, keys = choose_match(t, c)
    parts = cell_parts(t, c, keys, label)
    return (parts if parts.n_arm else None), sorted(set(c["topology"].to_list()))


def risk_differences(
    ep: pl.DataFrame,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
) -> RiskDifferences:
    """Matched risk differences (transformed − control, percentage points) with task-cluster 95% intervals.

    Only episodes with D_up = 1 (reviewer_identified) enter. A condition whose control was not run, or
    whose episodes share no task with it, gets a row with n = 0, empty numbers and a note.
    """
    epi = ep.filter(pl.col("reviewer_identified"))
    excluded = ep.height - epi.height
    arms = ep.filter(pl.col("control").is_not_null()).select(
        "condition", "topology", "control", "family"
    ).unique()
    arms = sort_conditions(arms, "topology")
    rows: list[dict[str, object]] = []
    parts_by: dict[tuple[str, str], ContrastParts] = {}
    for cond, topo, ctrl, fam in arms.iter_rows():
        row: dict[str, object] = {"condition": cond, "control": ctrl, "n": 0, "topology": topo,
                                  "family": fam}
        parts, c_topos = condition_parts(epi, cond, topo, ctrl)
        if parts is None:
            row["note"] = _why_empty(ep, epi, cond, topo, ctrl)
            rows.append(row)
            continue
        parts_by[(cond, topo)] = parts
        iv = cluster_bootstrap(parts.diff, parts.n, resamples=resamples, rng=rng)
        arm_rate = parts.arm.sum(axis=0) / parts.n.sum()
        ctrl_rate = arm_rate - iv.point
        row.update(n=parts.n_arm, match=parts.match, n_control=parts.n_control, tasks=len(parts.tasks),
                   control_topology=", ".join(c_topos))
        for out, name in (("P", "P"), ("D", "D"), ("unsafe", "Y")):
            j = parts.outcomes.index(out)
            row[f"d{name}"] = float(iv.point[j] * 100.0)
            row[f"d{name}_lo"] = float(iv.lo[j] * 100.0)
            row[f"d{name}_hi"] = float(iv.hi[j] * 100.0)
            row[f"{name}_t"] = float(arm_rate[j] * 100.0)
            row[f"{name}_c"] = float(ctrl_rate[j] * 100.0)
        if len(parts.tasks) == 1:
            row["note"] = "one task: the interval is degenerate"
        rows.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "condition": pl.String, "control": pl.String, "n": pl.Int64,
        **{c: pl.Float64 for c in RD_COLUMNS[3:]},
        "topology": pl.String, "control_topology": pl.String, "family": pl.String, "match": pl.String,
        "n_control": pl.Int64, "tasks": pl.Int64,
        **{f"{o}_{s}": pl.Float64 for o in ("P", "D", "Y") for s in ("t", "c")},
        "note": pl.String,
    }
    table = pl.DataFrame(rows, schema=schema)
    return RiskDifferences(table=table, parts=parts_by, excluded_unidentified=excluded)


def _why_empty(ep: pl.DataFrame, epi: pl.DataFrame, cond: str, topo: str, ctrl: str) -> str:
    if ep.filter(pl.col("condition") == ctrl).is_empty():
        return f"control {ctrl} was not run: no matched difference"
    if epi.filter(pl.col("condition") == ctrl).is_empty():
        return f"no {ctrl} episode has D_up = 1 (reviewer identified the blocker)"
    if epi.filter((pl.col("condition") == cond) & (pl.col("topology") == topo)).is_empty():
        return f"no {cond} episode has D_up = 1 (reviewer identified the blocker)"
    return f"{cond} and {ctrl} share no task: no matched episodes"
