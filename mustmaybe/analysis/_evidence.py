"""What a run shows about its own evidence: Table 20 (evidence quality) and the context-isolation audit.

Both read `Frames.evidence`, one row per recorded episode, scored or failed, so a failed episode counts
here (its calls, its failed call) although it is in no rate. Panels (`main`, `validation`, …) are the
marks a sweep file puts on model configurations (docs/sweep-files.md); unmarked episodes form the
panel `–`.
"""

from __future__ import annotations

from collections import Counter

import polars as pl

PANEL_ORDER: tuple[str, ...] = ("main", "validation")
UNMARKED = "–"
ALL = "all"
_SUMS: tuple[str, ...] = ("calls", "cached_calls", "failed_calls", "prompt_tokens", "completion_tokens",
                          "finish_stop", "finish_length", "finish_other", "finish_unrecorded")


def panel_rank(col: str = "panel") -> pl.Expr:
    """Sort key: main, validation, other marks alphabetically, unmarked last (the paper's Table 19 order)."""
    order = {p: i for i, p in enumerate(PANEL_ORDER)}
    return (pl.when(pl.col(col).is_null() | (pl.col(col) == UNMARKED)).then(len(order) + 1)
            .otherwise(pl.col(col).replace_strict(order, default=len(order), return_dtype=pl.Int64)))


def _marked(ev: pl.DataFrame) -> pl.DataFrame:
    return ev.with_columns(pl.col("panel").fill_null(UNMARKED))


def _aggregate(ev: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return ev.group_by(by).agg(
        pl.len().cast(pl.Int64).alias("episodes"),
        pl.col("failed").sum().cast(pl.Int64).alias("failed"),
        pl.col("models").n_unique().cast(pl.Int64).alias("variants"),
        pl.col("parse_error").sum().cast(pl.Int64).alias("parse_errors"),
        *(pl.col(c).sum().cast(pl.Int64).alias(c) for c in _SUMS),
    )


def evidence_quality(ev: pl.DataFrame) -> pl.DataFrame:
    """Table 20: per panel and model configuration, then per panel (`models` = all) and combined.

    Columns: panel, models, episodes (scored + failed), failed (episodes; EPISODE_RECORD.md), variants
    (model configurations), parse_errors (scored episodes whose executor answer did not parse), calls
    (completed model calls, cached included), cached_calls, failed_calls (calls that finally failed),
    prompt_tokens, completion_tokens, tokens, finish_stop / finish_length / finish_other (completed
    calls by finish reason) and finish_unrecorded (calls of records written before finish reasons were
    recorded).
    """
    if ev.is_empty():
        return pl.DataFrame(schema={"panel": pl.String, "models": pl.String, "episodes": pl.Int64})
    ev = _marked(ev)
    rows = _aggregate(ev, ["panel", "models"]).with_columns(level=pl.lit(0))
    parts = [rows]
    panels = ev["panel"].unique().to_list()
    if len(rows) > 1:
        parts.append(_aggregate(ev, ["panel"]).with_columns(models=pl.lit(ALL), level=pl.lit(1)))
    if len(panels) > 1:
        parts.append(_aggregate(ev, []).with_columns(panel=pl.lit("combined"), models=pl.lit(ALL), level=pl.lit(2)))
    out = pl.concat(parts, how="diagonal_relaxed").with_columns(
        tokens=pl.col("prompt_tokens") + pl.col("completion_tokens"))
    # Per panel: its configurations, then its total; combined last.
    out = out.with_columns(_rank=pl.when(pl.col("level") == 2).then(99).otherwise(panel_rank())).sort(
        ["_rank", "panel", "level", "models"]).drop("_rank", "level")
    cols = ["panel", "models", "episodes", "failed", "variants", "parse_errors", "calls", "cached_calls",
            "failed_calls", "prompt_tokens", "completion_tokens", "tokens", "finish_stop", "finish_length",
            "finish_other", "finish_unrecorded"]
    return out.select(cols)


def isolation_audit(ev: pl.DataFrame) -> pl.DataFrame:
    """The context-isolation audit aggregated per condition and topology, with an `all` row.

    Columns: condition, topology, episodes, failed, audited (episodes whose executor received any text),
    passed (% of episodes with neither an executor-view leak nor a transformer-view leak), executor_leaks
    and transformer_leaks (episodes with one), leaked_sentences (distinct full-context sentences found in
    an executor's view), top_leak (the most frequent one, with its count).
    """
    if ev.is_empty():
        return pl.DataFrame(schema={"condition": pl.String, "topology": pl.String, "episodes": pl.Int64})
    ev = ev.with_columns(clean=pl.col("isolation_ok") & ~pl.col("transformer_leak"))

    def agg(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        return frame.group_by(by).agg(
            pl.len().cast(pl.Int64).alias("episodes"),
            pl.col("failed").sum().cast(pl.Int64).alias("failed"),
            pl.col("executor_view").sum().cast(pl.Int64).alias("audited"),
            (pl.col("clean").cast(pl.Float64).mean() * 100.0).alias("passed"),
            (~pl.col("isolation_ok")).sum().cast(pl.Int64).alias("executor_leaks"),
            pl.col("transformer_leak").sum().cast(pl.Int64).alias("transformer_leaks"),
            pl.col("executor_leaks").alias("_leaks"),
        )

    from ._matrix import sort_conditions

    per = sort_conditions(agg(ev, ["condition", "topology"]), "topology")
    total = agg(ev, []).with_columns(condition=pl.lit(ALL), topology=pl.lit(ALL))
    out = pl.concat([per, total], how="diagonal_relaxed")
    leaked: list[int] = []
    top: list[str | None] = []
    for lists in out["_leaks"].to_list():
        counts = Counter(s for episode in lists for s in episode)
        leaked.append(len(counts))
        if counts:
            sentence, n = counts.most_common(1)[0]
            top.append(f"{sentence if len(sentence) <= 80 else sentence[:79] + '…'} ({n}×)")
        else:
            top.append(None)
    out = out.drop("_leaks").with_columns(pl.Series("leaked_sentences", leaked, pl.Int64),
                                          pl.Series("top_leak", top, pl.String))
    return out.select("condition", "topology", "episodes", "failed", "audited", "passed", "executor_leaks",
                      "transformer_leaks", "leaked_sentences", "top_leak")
