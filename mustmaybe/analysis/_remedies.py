"""The price of each remedy (tables/remedies.csv): what it buys (unsafe) and what it costs (over-blocking).

One row per remedy arm, topology and models: the no-remedy arms (R-none, V-plain, and W's controls),
each repair (R-*), each verification arm as a prompt (V-*) and enforced in code (V-*-enforced), and W
under each topology. Rates on the blocked episodes (P, unsafe, requested_unsafe) and on the benign
twins (overblocked) are kept apart: twin episodes never enter a blocked rate. The matched contrast
pairs each arm with its no-remedy arm on the same task, seed, models (and topology for W), over
blocked episodes (dY) and over twins (dOver), with task-cluster bootstrap intervals.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap

REMEDY_COLUMNS: tuple[str, ...] = (
    "remedy", "topology", "models", "control", "n", "n_twin", "P", "unsafe", "requested_unsafe", "overblocked",
    "tokens_per_episode", "safe_k", "k", "dY", "dY_lo", "dY_hi", "dOver", "dOver_lo", "dOver_hi",
)
_FAMILIES = ("repair", "verification", "workflow")


def _no_remedy(arm: str, family: str, control: str | None) -> str | None:
    """The no-remedy arm an arm is matched with (None for a no-remedy arm itself)."""
    if arm in ("R-none", "V-plain") or family not in _FAMILIES:  # W's controls are no-remedy arms too
        return None
    if family == "workflow":
        return control  # the condition whose prose team W ran under this topology
    return "R-none" if family == "repair" else "V-plain"


def _contrast(arm: pl.DataFrame, ctrl: pl.DataFrame, col: str, *, on: list[str], resamples: int,
              rng: np.random.Generator) -> tuple[float | None, float | None, float | None]:
    """Matched difference of `col` (arm minus control), in points, with a task-cluster interval."""
    keys = list(dict.fromkeys(["task", *on]))
    a = arm.select(*keys, pl.col(col).cast(pl.Float64).alias("a")).drop_nulls("a")
    c = ctrl.select(*keys, pl.col(col).cast(pl.Float64).alias("c")).drop_nulls("c")
    pairs = a.join(c, on=keys, how="inner")
    if pairs.is_empty():
        return None, None, None
    per_task = pairs.group_by("task").agg((pl.col("a") - pl.col("c")).sum().alias("num"), pl.len().alias("den"))
    num = per_task["num"].to_numpy().astype(np.float64).reshape(-1, 1)
    den = per_task["den"].to_numpy().astype(np.float64)
    ci = cluster_bootstrap(num, den, resamples=resamples, rng=rng)
    return float(ci.point[0]) * 100.0, float(ci.lo[0]) * 100.0, float(ci.hi[0]) * 100.0


def _safe_k(blocked: pl.DataFrame) -> tuple[float | None, int | None]:
    """safe^k: the share of tasks on which every one of the k seeds avoided the forbidden action."""
    if blocked.is_empty():
        return None, None
    # k counts seeds (a remedy row is one topology and model configuration already).
    per = blocked.group_by("task").agg(pl.col("seed").n_unique().alias("k"),
                                       pl.col("unsafe").cast(pl.Int64).sum().alias("u"))
    return float((per["u"] == 0).mean()) * 100.0, int(per["k"].min())  # type: ignore[arg-type]


def remedies_table(ep: pl.DataFrame, *, resamples: int = DEFAULT_RESAMPLES,
                   rng: np.random.Generator | None = None) -> pl.DataFrame:
    """tables/remedies.csv from the episodes frame (failed episodes are not in it, so in no rate)."""
    rng = rng if rng is not None else np.random.default_rng(20240601)
    if ep.is_empty() or "arm" not in ep.columns:
        return pl.DataFrame(schema=dict.fromkeys(REMEDY_COLUMNS, pl.String))
    # The arm as the record names it (twins keep their arm; the row label adds +twin).
    fam = ep.with_columns(pl.col("arm").fill_null(pl.col("condition")))
    blocked_rows = fam.filter(~pl.col("twin"))
    family_of = dict(blocked_rows.group_by("arm").agg(pl.col("family").first()).iter_rows())
    # W's control differs per topology (the condition whose prose team it ran), so it is read per cell.
    control_of = {(a, t): c for a, t, c in blocked_rows.group_by("arm", "topology_name").agg(
        pl.col("control").first()).iter_rows()}
    arms = [a for a, f in family_of.items() if f in _FAMILIES]
    controls = {c for (a, t), ctl in control_of.items() if a in arms
                and (c := _no_remedy(a, family_of[a], ctl)) is not None}
    rows = []
    on = ["seed", "models", "topology_name"]
    for arm in sorted(set(arms) | controls):
        family = family_of.get(arm, "")
        mine = fam.filter(pl.col("arm") == arm)
        for (topo, models), cell in mine.group_by(["topology", "models"], maintain_order=True):
            blocked, twins = cell.filter(~pl.col("twin")), cell.filter(pl.col("twin"))
            topo_name = cell["topology_name"][0]
            if arm in controls and family not in _FAMILIES and not (fam.filter(
                    (pl.col("family") == "workflow") & (pl.col("control") == arm)
                    & (pl.col("topology_name") == topo_name)).height):
                continue  # a W control under a topology where no W ran: not a no-remedy arm of this table
            match = _no_remedy(arm, family, control_of.get((arm, topo_name)))
            dy: tuple[float | None, float | None, float | None] = (None, None, None)
            dover = dy
            if match is not None:
                ctrl = fam.filter((pl.col("arm") == match) & (pl.col("models") == models))
                if family == "workflow":  # W pairs with its control under the same topology only
                    ctrl = ctrl.filter(pl.col("topology_name") == topo_name)
                keys = ["task", *on] if family == "workflow" else ["task", "seed", "models"]
                dy = _contrast(blocked, ctrl.filter(~pl.col("twin")), "unsafe", on=keys, resamples=resamples, rng=rng)
                dover = _contrast(twins, ctrl.filter(pl.col("twin")), "overblocked", on=keys, resamples=resamples,
                                  rng=rng)
            safe, k = _safe_k(blocked)

            def pct(frame: pl.DataFrame, col: str) -> float | None:
                v = frame[col].cast(pl.Float64).mean() if not frame.is_empty() else None
                return None if v is None else float(v) * 100.0  # type: ignore[arg-type]

            rows.append({
                "remedy": arm, "topology": topo, "models": models, "control": match, "n": blocked.height,
                "n_twin": twins.height, "P": pct(blocked, "P"), "unsafe": pct(blocked, "unsafe"),
                "requested_unsafe": pct(blocked, "requested_unsafe"), "overblocked": pct(twins, "overblocked"),
                "tokens_per_episode": float(cell["tokens"].mean()) if cell.height else None,  # type: ignore[arg-type]
                "safe_k": safe, "k": k, "dY": dy[0], "dY_lo": dy[1], "dY_hi": dy[2],
                "dOver": dover[0], "dOver_lo": dover[1], "dOver_hi": dover[2],
            })
    schema = {c: pl.String for c in ("remedy", "topology", "models", "control")} | {
        c: pl.Float64 for c in REMEDY_COLUMNS if c not in ("remedy", "topology", "models", "control", "n", "n_twin",
                                                           "k")} | {"n": pl.Int64, "n_twin": pl.Int64, "k": pl.Int64}
    out = pl.DataFrame(rows, schema=schema).select(REMEDY_COLUMNS)
    from ._matrix import condition_order

    order = condition_order()
    return out.with_columns(_r=pl.col("remedy").replace_strict(order, default=len(order), return_dtype=pl.Int64)
                            ).sort(["_r", "topology", "models"]).drop("_r")
