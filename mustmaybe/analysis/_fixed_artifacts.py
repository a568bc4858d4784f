"""The fixed-artifact panel as appendix E runs it: Table 3 (E.1's six insertion arms and E.2's five endpoint
arms) and Table 14 (single-field restoration), from replay episodes (docs/reports.md, "Fixed-artifact arms").

Every arm replays the same base artifacts (one per task, seed and reviewer/transformer models; each record's
`replay_base`), each through its executor routes, so a row's n is bases × routes. Two P columns, because the
paper obtains P for an insertion arm by construction and the tool by reading the artifact:

- `P`: the checker's A.3 decision on the artifact the executor acted on (what every other table reports).
- `P_inserted`: the paper's (001, appendix A: "Fixed-artifact insertion sets P to one exactly when all four
  fields are inserted"; 000, E.2: with the artifact fixed, P is the base's): 1 exactly when the repair
  inserted all four fields (`repair.active_blocker`); on an arm that inserts nothing, the checker's P.

C is the checker's completeness on that artifact (the paper: "C is recomputed from the artifact").
"""

from __future__ import annotations

import polars as pl

from ._frames import FIELDS

TABLE3_ARMS: tuple[str, ...] = (
    "R-none", "R-all", "R-minus-status", "R-minus-prerequisite", "R-minus-authority", "R-minus-fallback",
    "V-plain", "V-soft", "V-hard", "V-lookup", "V-human",
)
TABLE14_ARMS: tuple[str, ...] = ("R-none", "R-status", "R-prerequisite", "R-authority", "R-fallback", "R-all")
FIXED_COLUMNS: tuple[str, ...] = (
    "target", "arm", "name", "models", "n", "bases", "routes", "P", "P_inserted", "C", "omitted",
    "omitted_retained", "P_omitted_lost", "n_omitted_lost", "recognition", "unsafe", "shared_base",
)
RESTORATION_COLUMNS: tuple[str, ...] = ("arm", "name", "models", "n", "bases", "routes", "P", "D", "unsafe",
                                        "prerequisite_retained")


def _pct(frame: pl.DataFrame, expr: pl.Expr) -> float | None:
    if frame.is_empty():
        return None
    v = frame.select(expr.cast(pl.Float64).mean()).item()
    return None if v is None else float(v) * 100.0


def _replays(ep: pl.DataFrame, arms: tuple[str, ...]) -> pl.DataFrame:
    """The blocked replay episodes of these arms (twins measure over-blocking, never these rates)."""
    if ep.is_empty() or "base_key" not in ep.columns:
        return ep.clear()
    return ep.filter(pl.col("arm").is_in(list(arms)) & ~pl.col("twin") & pl.col("base_key").is_not_null())


def _name(arm: str) -> str:
    from mustmaybe.scenarios import CONDITIONS

    cond = CONDITIONS.get(arm)
    return cond.name if cond is not None else arm


def base_problems(ep: pl.DataFrame) -> list[str]:
    """Why the replays do not share one fixed base per model configuration (empty when they do): a base key
    whose arms saw different texts, or arms that did not all replay the same set of bases."""
    rep = _replays(ep, tuple(sorted(set(TABLE3_ARMS) | set(TABLE14_ARMS))))
    out: list[str] = []
    for (models,), cell in rep.group_by(["models"], maintain_order=True):
        split = cell.group_by("base_key").agg(pl.col("base_digest").n_unique().alias("k")).filter(pl.col("k") > 1)
        if split.height:
            out.append(f"{models}: {split.height} base artifact(s) differ between arms or routes (the base team "
                       "answered differently: was the sweep run with --no-cache on a sampling model?)")
        sets = {arm: frozenset(g["base_key"].to_list()) for (arm,), g in cell.group_by(["arm"])}
        if len(set(sets.values())) > 1:
            sizes = ", ".join(f"{a} {len(s)}" for a, s in sorted(sets.items()))
            out.append(f"{models}: the arms replayed different sets of base artifacts ({sizes})")
    return out


def fixed_artifact_table(ep: pl.DataFrame) -> pl.DataFrame:
    """Table 3: one row per arm and model configuration (routes pooled, as the paper's 128 per arm)."""
    rep = _replays(ep, TABLE3_ARMS)
    rows = []
    problems = set(base_problems(ep))
    for arm in TABLE3_ARMS:
        mine = rep.filter(pl.col("arm") == arm)
        for (models,), cell in mine.group_by(["models"], maintain_order=True):
            omitted = arm.removeprefix("R-minus-") if arm.startswith("R-minus-") else None
            lost = cell.filter(pl.col(f"lost_{omitted}")) if omitted else cell.clear()
            inserted = pl.when(pl.col("restored") != "").then(pl.col("active_blocker")).otherwise(pl.col("P"))
            rows.append({
                "target": "artifact" if arm.startswith("R-") else "endpoint", "arm": arm, "name": _name(arm),
                "models": models, "n": cell.height, "bases": cell["base_key"].n_unique(),
                "routes": cell["route"].n_unique(), "P": _pct(cell, pl.col("P")),
                "P_inserted": _pct(cell, inserted), "C": _pct(cell, pl.col("C")), "omitted": omitted,
                "omitted_retained": _pct(cell, ~pl.col(f"lost_{omitted}")) if omitted else None,
                "P_omitted_lost": _pct(lost, pl.col("P")) if omitted and lost.height else None,
                "n_omitted_lost": lost.height if omitted else None,
                "recognition": _pct(cell, pl.col("recognized")), "unsafe": _pct(cell, pl.col("unsafe")),
                "shared_base": not any(p.startswith(f"{models}:") for p in problems),
            })
    schema = {c: pl.Float64 for c in FIXED_COLUMNS} | {c: pl.String for c in ("target", "arm", "name", "models",
                                                                               "omitted")} | {
        c: pl.Int64 for c in ("n", "bases", "routes", "n_omitted_lost")} | {"shared_base": pl.Boolean}
    return pl.DataFrame(rows, schema=schema).select(FIXED_COLUMNS)


def component_restoration_table(ep: pl.DataFrame) -> pl.DataFrame:
    """Table 14: none, one or all four fields restored on the same fixed base artifacts."""
    rep = _replays(ep, TABLE14_ARMS)
    rows = []
    for arm in TABLE14_ARMS:
        for (models,), cell in rep.filter(pl.col("arm") == arm).group_by(["models"], maintain_order=True):
            rows.append({"arm": arm, "name": _name(arm), "models": models, "n": cell.height,
                         "bases": cell["base_key"].n_unique(), "routes": cell["route"].n_unique(),
                         "P": _pct(cell, pl.col("P")), "D": _pct(cell, pl.col("D")),
                         "unsafe": _pct(cell, pl.col("unsafe")),
                         "prerequisite_retained": _pct(cell, ~pl.col("lost_prerequisite"))})
    schema = {c: pl.Float64 for c in RESTORATION_COLUMNS} | {c: pl.String for c in ("arm", "name", "models")} | {
        c: pl.Int64 for c in ("n", "bases", "routes")}
    return pl.DataFrame(rows, schema=schema).select(RESTORATION_COLUMNS)


def field_retention(ep: pl.DataFrame) -> pl.DataFrame:
    """Fig. 4D's data: % of replays whose artifact carries each field, before (R-none) and after (R-all)
    all-field restoration, per model configuration."""
    rep = _replays(ep, ("R-none", "R-all"))
    rows = []
    for arm in ("R-none", "R-all"):
        for (models,), cell in rep.filter(pl.col("arm") == arm).group_by(["models"], maintain_order=True):
            rows.append({"arm": arm, "models": models, "n": cell.height,
                         **{f: _pct(cell, ~pl.col(f"lost_{f}")) for f in FIELDS}})
    return pl.DataFrame(rows, schema={"arm": pl.String, "models": pl.String, "n": pl.Int64,
                                      **dict.fromkeys(FIELDS, pl.Float64)})
