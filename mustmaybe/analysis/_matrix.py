"""Descriptive tables over one panel (real or simulated episodes, never both).

Rates are percentages (0-100) of the episodes in the row. Each function takes the episodes (or hops)
frame of one panel and returns a polars frame; an empty input gives an empty frame with the columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap

OUTCOMES: tuple[str, ...] = ("P", "D", "U", "unsafe", "recognized")
CI_OUTCOMES: tuple[str, ...] = ("P", "D", "unsafe")
MATRIX_COLUMNS: tuple[str, ...] = ("condition", "topology", "models", "n", "P", "D", "U", "unsafe", "recognition")


def condition_order() -> dict[str, int]:
    """Condition id → position in the registry (DESIGN.md's order)."""
    try:
        from mustmaybe.scenarios import CONDITIONS
    except Exception:
        return {}
    return {cid: i for i, cid in enumerate(CONDITIONS)}


def sort_conditions(df: pl.DataFrame, *extra: str) -> pl.DataFrame:
    """Rows in registry order of `condition`, then by `extra` columns; unknown ids last."""
    if df.is_empty() or "condition" not in df.columns:
        return df
    order = condition_order()
    rank = pl.col("condition").replace_strict(order, default=len(order), return_dtype=pl.Int64)
    return df.with_columns(_rank=rank).sort(["_rank", "condition", *extra], nulls_last=True).drop("_rank")


def _pct(col: str, name: str | None = None) -> pl.Expr:
    return (pl.col(col).cast(pl.Float64).mean() * 100.0).alias(name or col)


def rates_table(
    ep: pl.DataFrame,
    by: Sequence[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
) -> pl.DataFrame:
    """n, P, D, U, unsafe and recognition per group, with task-cluster 95% intervals on P, D, unsafe."""
    by = list(by)
    base = ep.group_by(by).agg(
        pl.len().alias("n"),
        *(_pct(o, "recognition" if o == "recognized" else o) for o in OUTCOMES),
        pl.col("task").n_unique().alias("tasks"),
    )
    cis = _rate_intervals(ep, by, resamples=resamples, rng=rng)
    if cis.height:
        base = _join(base, cis, by)
    return base


def _join(left: pl.DataFrame, right: pl.DataFrame, on: list[str]) -> pl.DataFrame:
    # Null-safe join on group columns without relying on a polars-version-specific flag.
    fill = {c: pl.col(c).fill_null("\x00") for c in on if left.schema[c] == pl.String}
    back = {c: pl.when(pl.col(c) == "\x00").then(None).otherwise(pl.col(c)).alias(c) for c in fill}
    out = left.with_columns(**fill).join(right.with_columns(**fill), on=on, how="left")
    return out.with_columns(*back.values()) if back else out


def _rate_intervals(
    ep: pl.DataFrame, by: list[str], *, resamples: int, rng: np.random.Generator | None
) -> pl.DataFrame:
    if ep.is_empty():
        return pl.DataFrame()
    # Sorted: group_by's row order varies from run to run, and the order of groups and of tasks within a
    # group decides which resample draw goes to which task, so the same seed must see the same order.
    per_task = ep.group_by([*by, "task"]).agg(
        pl.len().alias("_n"), *(pl.col(o).cast(pl.Float64).sum() for o in CI_OUTCOMES)
    ).sort([*by, "task"])
    rows: list[dict[str, object]] = []
    for key, part in per_task.partition_by(by, as_dict=True, maintain_order=True).items():
        iv = cluster_bootstrap(
            part.select(CI_OUTCOMES).to_numpy(), part["_n"].to_numpy(), resamples=resamples, rng=rng
        )
        row: dict[str, object] = dict(zip(by, key, strict=True))
        for j, o in enumerate(CI_OUTCOMES):
            row[f"{o}_lo"] = float(iv.lo[j] * 100.0)
            row[f"{o}_hi"] = float(iv.hi[j] * 100.0)
        rows.append(row)
    schema = {c: ep.schema[c] for c in by} | {f"{o}_{s}": pl.Float64 for o in CI_OUTCOMES for s in ("lo", "hi")}
    return pl.DataFrame(rows, schema=schema)


def condition_matrix(
    ep: pl.DataFrame, *, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None,
    failed: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Tables 2 and 6: one row per (condition, topology, models).

    Contract columns first (condition, topology, models, n, P, D, U, unsafe, recognition), then
    `twin`, `requested_unsafe` (the model asked for a forbidden action) and `overblocked` (twin rows
    only; empty elsewhere), then
    `failed` (failed episodes of the row: a model call finally failed; they are not in n and in no
    rate), `parse_errors` (scored episodes whose executor answer did not parse), `mostly_failed`
    (more than half of the row's episodes failed), the family, control, C, transition loss (reviewer
    hop preserved, final artifact not), mean retention, D_up rate, error counts and task-cluster
    intervals. A row whose episodes all failed has n = 0 and no rates.
    """
    by = ["condition", "topology", "models"]
    fails = failed_counts(failed, by)
    if ep.is_empty() and fails.is_empty():
        return pl.DataFrame(schema={c: pl.String for c in by} | {"n": pl.UInt32, "failed": pl.UInt32,
                                                                 "parse_errors": pl.UInt32})
    if ep.is_empty():
        out = fails.with_columns(n=pl.lit(0, pl.UInt32), parse_errors=pl.lit(0, pl.UInt32),
                                 **{c: pl.lit(None, pl.Float64) for c in OUTCOMES_OUT})
        return _with_failed_first(out)
    rates = rates_table(ep, by, resamples=resamples, rng=rng)
    extra = ep.group_by(by).agg(
        pl.col("twin").first(),
        _pct("requested_unsafe"),
        _pct("overblocked"),  # null on non-twin rows: overblocked is null there
        pl.col("family").first(),
        pl.col("control").first(),
        _pct("C"),
        _pct("transition_loss"),
        (pl.col("retention").mean() * 100.0).alias("retention"),
        _pct("reviewer_identified"),
        (pl.col("n_errors") > 0).sum().alias("episodes_with_errors"),
        (~pl.col("parse_ok")).sum().cast(pl.UInt32).alias("parse_errors"),
        pl.col("seed").n_unique().alias("seeds"),
    )
    out = _join(rates, extra, by)
    if not fails.is_empty():
        # Full join: a row may hold only failed episodes (then n = 0 and its rates are empty).
        out = out.join(fails, on=by, how="full", coalesce=True, suffix="_f").with_columns(
            pl.col("n").fill_null(0), pl.col("parse_errors").fill_null(0),
            pl.coalesce("family", "family_f").alias("family"), pl.coalesce("control", "control_f").alias("control"),
        ).drop("family_f", "control_f")
    else:
        out = out.with_columns(failed=pl.lit(0, pl.UInt32))
    return _with_failed_first(out)


OUTCOMES_OUT: tuple[str, ...] = ("P", "D", "U", "unsafe", "recognition")


def failed_counts(failed: pl.DataFrame | None, by: Sequence[str]) -> pl.DataFrame:
    """Failed episodes per group (`failed`), with the group's family and control (Frames.failed)."""
    if failed is None or failed.is_empty():
        return pl.DataFrame(schema={c: pl.String for c in by} | {"failed": pl.UInt32})
    return failed.group_by(list(by)).agg(pl.len().cast(pl.UInt32).alias("failed"), pl.col("family").first(),
                                         pl.col("control").first())


def _with_failed_first(out: pl.DataFrame) -> pl.DataFrame:
    """Contract columns, then failed / parse_errors / mostly_failed, then the rest; registry order."""
    out = out.with_columns(pl.col("failed").fill_null(0).cast(pl.UInt32)).with_columns(
        mostly_failed=pl.col("failed") > pl.col("n"))
    first = [*MATRIX_COLUMNS, "failed", "parse_errors", "mostly_failed",
             *(c for c in ("twin", "requested_unsafe", "overblocked") if c in out.columns)]
    rest = [c for c in out.columns if c not in first]
    return sort_conditions(out.select(first + rest), "topology", "models")


def component_loss(ep: pl.DataFrame) -> pl.DataFrame:
    """Table 7: field loss (absent in the final artifact) and actionability loss (not preserved), by family.

    Per family: its controls pooled, its transformed conditions pooled, then each transformed condition.
    """
    cols = ["family", "group", "conditions", "n", "status", "prerequisite", "authority", "fallback",
            "actionability"]
    if ep.is_empty():
        return pl.DataFrame(schema={c: (pl.UInt32 if c == "n" else pl.String) for c in cols})
    order = condition_order()

    def agg(frame: pl.DataFrame, family: str, group: str) -> dict[str, object]:
        conds = sorted(set(frame["condition"].to_list()), key=lambda c: (order.get(c, len(order)), c))
        row: dict[str, object] = {"family": family, "group": group, "conditions": ", ".join(conds),
                                  "n": frame.height}
        for f in ("status", "prerequisite", "authority", "fallback"):
            row[f] = float(frame[f"lost_{f}"].mean() or 0.0) * 100.0  # type: ignore[arg-type]
        row["actionability"] = (1.0 - float(frame["P"].mean() or 0.0)) * 100.0  # type: ignore[arg-type]
        return row

    rows: list[dict[str, object]] = []
    families = sort_conditions(ep.select("condition", "family").unique(), "family")["family"].unique(
        maintain_order=True
    )
    for fam in families.to_list():
        fe = ep.filter(pl.col("family") == fam)
        ctrl = fe.filter(pl.col("control").is_null())
        trans = fe.filter(pl.col("control").is_not_null())
        if ctrl.height:
            rows.append(agg(ctrl, fam, "twin" if fam == "twin" else "controls"))
        if trans.height:
            conds = sort_conditions(trans.select("condition").unique())["condition"].to_list()
            if len(conds) > 1:
                rows.append(agg(trans, fam, "transformed"))
            for cond in conds:
                rows.append(agg(trans.filter(pl.col("condition") == cond), fam, cond))
    return pl.DataFrame(rows, schema={c: (pl.Int64 if c == "n" else pl.Float64 if c in (
        "status", "prerequisite", "authority", "fallback", "actionability") else pl.String) for c in cols})


def model_rates(ep: pl.DataFrame, *, failed: pl.DataFrame | None = None) -> pl.DataFrame:
    """Table 19: rates per panel and model configuration, over all its scored episodes, with its failed and
    parse-error counts (a model configuration that mostly fails must show it beside its rates). `panel` is the
    mark a sweep file put on the configuration (main, validation, …; '–' unmarked); rows run main, validation,
    other marks, unmarked."""
    from ._evidence import UNMARKED, panel_rank

    by = ["panel", "models"]
    ep = ep.with_columns(pl.col("panel").fill_null(UNMARKED)) if "panel" in ep.columns else \
        ep.with_columns(panel=pl.lit(UNMARKED))
    if failed is not None:
        failed = failed.with_columns(pl.col("panel").fill_null(UNMARKED)) if "panel" in failed.columns else \
            failed.with_columns(panel=pl.lit(UNMARKED))
    out = _plain_rates(ep, by).with_columns(
        parse_errors=pl.lit(0, pl.UInt32)) if ep.is_empty() else _plain_rates(ep, by).join(
        ep.group_by(by).agg((~pl.col("parse_ok")).sum().cast(pl.UInt32).alias("parse_errors")), on=by)
    fails = failed_counts(failed, by).select(*by, "failed")
    out = out.join(fails, on=by, how="full", coalesce=True).with_columns(
        pl.col("n").fill_null(0), pl.col("failed").fill_null(0), pl.col("parse_errors").fill_null(0))
    return out.with_columns(_rank=panel_rank()).sort(["_rank", "panel", "models"]).drop("_rank").select(
        "models", "panel", *(c for c in out.columns if c not in by))


def topology_rates(ep: pl.DataFrame) -> pl.DataFrame:
    """Rates per topology over the transformed conditions (controls excluded: they are mostly direct)."""
    return _plain_rates(ep.filter(pl.col("control").is_not_null()), "topology")


def _plain_rates(ep: pl.DataFrame, col: str | list[str]) -> pl.DataFrame:
    if ep.is_empty():
        return pl.DataFrame(schema={c: pl.String for c in ([col] if isinstance(col, str) else col)} | {"n": pl.UInt32})
    return ep.group_by(col).agg(
        pl.len().alias("n"),
        pl.col("condition").n_unique().alias("conditions"),
        pl.col("task").n_unique().alias("tasks"),
        *(_pct(o, "recognition" if o == "recognized" else o) for o in OUTCOMES),
        (pl.col("n_errors") > 0).sum().alias("episodes_with_errors"),
    ).sort(col)


def compression_gradient(ep: pl.DataFrame, gradient: Sequence[str]) -> pl.DataFrame:
    """Table 13: G0-G4 with n, P, D, U, unsafe and mean retention score (percent)."""
    g = ep.filter(pl.col("condition").is_in(list(gradient)))
    if g.is_empty():
        return pl.DataFrame(schema={"condition": pl.String, "n": pl.UInt32})
    out = g.group_by("condition").agg(
        pl.len().alias("n"),
        *(_pct(o) for o in ("P", "D", "U", "unsafe")),
        (pl.col("retention").mean() * 100.0).alias("retention"),
        pl.col("models").n_unique().alias("model_configs"),
    )
    return sort_conditions(out)


def drift_curves(stages: pl.DataFrame) -> pl.DataFrame:
    """Per (topology family, condition, topology, stage): preserved share, mean retention, field presence.

    Reads the carried-stages frame: each point is what a step passes on toward the executor (a chain's
    handoff, a consensus round's thread, the coordinator's summary, the plan), so `hop` means what the
    topology family makes it mean and curves are compared within a family only. Only (condition,
    topology) pairs with a stage after the reviewer's statement.
    """
    if stages.is_empty():
        return pl.DataFrame(schema={"family": pl.String, "condition": pl.String, "topology": pl.String,
                                    "hop": pl.Int64, "stage": pl.String})
    multi = stages.group_by("condition", "topology").agg(pl.col("index").max().alias("_max"))
    keep = multi.filter(pl.col("_max") >= 1).select("condition", "topology")
    st = stages.join(keep, on=["condition", "topology"], how="semi")
    out = st.group_by("topology_name", "condition", "topology", "index", "label").agg(
        pl.len().alias("n"),
        _pct("preserved"),
        (pl.col("retention").mean() * 100.0).alias("retention"),
        *(_pct(f) for f in ("status", "prerequisite", "authority", "fallback")),
    ).rename({"topology_name": "family", "index": "hop", "label": "stage"})
    return sort_conditions(out, "topology", "hop").sort("family", maintain_order=True)


def first_breaks(ep: pl.DataFrame) -> pl.DataFrame:
    """Per (condition, topology): share of episodes that break and at which carried stage they first do."""
    if ep.is_empty():
        return pl.DataFrame(schema={"condition": pl.String, "topology": pl.String, "n": pl.UInt32})
    out = ep.group_by("condition", "topology").agg(
        pl.len().alias("n"),
        (pl.col("first_break_stage").is_not_null().mean() * 100.0).alias("broken"),
        pl.col("first_break_stage").median().alias("median_break_stage"),
        pl.col("first_break_stage").drop_nulls().mode().sort().first().alias("modal_break_stage"),
        pl.col("n_stages").mean().alias("mean_stages"),
        pl.col("n_hops").mean().alias("mean_hops"),
    )
    return sort_conditions(out, "topology")


def safe_at_k(ep: pl.DataFrame) -> pl.DataFrame:
    """safe^k per (condition, topology, models): the share of tasks on which all k seeds avoid the
    forbidden action. k is the number of seeds a task ran in that cell: episodes of other topologies
    (or benign twins) are never pooled into it, so "all k seeds were safe" means just that."""
    cell = ["condition", "topology", "models", *(["twin"] if "twin" in ep.columns else [])]
    if ep.is_empty():
        return pl.DataFrame(schema={"condition": pl.String, "topology": pl.String, "models": pl.String,
                                    "tasks": pl.UInt32})
    per_task = ep.group_by(*cell, "task").agg(
        pl.col("seed").n_unique().alias("k"), pl.len().alias("_n"),
        pl.col("unsafe").cast(pl.Int64).sum().alias("_unsafe"),
    )
    out = per_task.group_by(*cell).agg(
        pl.len().alias("tasks"),
        pl.col("k").min().alias("k_min"),
        pl.col("k").max().alias("k_max"),
        ((pl.col("_unsafe") == 0).mean() * 100.0).alias("safe_k"),
        ((1.0 - pl.col("_unsafe").sum() / pl.col("_n").sum()) * 100.0).alias("safe_episode"),
    )
    return sort_conditions(out, "topology", "models")
