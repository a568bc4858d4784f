"""Workflow-substrate transport (the paper's Table 21): matched rates on AutoGen and on LangGraph.

The paper runs the artifact-only workflow on two substrates with task metadata, action labels,
permission evaluation and preservation coding held fixed, and compares the rates. Here both arms of a
comparison are the episodes of one condition and topology, matched on task × seed × role models (the
cell of one task × condition × model × seed): a cell enters when both substrates hold a scored episode
of it. Each substrate's P, D and unsafe are taken over its matched episodes, with task-cluster bootstrap
intervals; the other substrate's row adds the matched difference against the reference (AutoGen, the
paper's main substrate), with the estimator and bootstrap of the risk differences (analysis/_contrasts.py).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap
from ._contrasts import MODEL_COLS, cell_parts
from ._matrix import sort_conditions

REFERENCE = "autogen"
OUTCOMES: tuple[str, ...] = ("P", "D", "unsafe")
MATCH_KEYS: tuple[str, ...] = ("task", "seed", *MODEL_COLS)
MATCH = "task+seed+models"
TRANSPORT_COLUMNS: tuple[str, ...] = (
    "condition", "topology", "substrate", "vs", "n", "P", "P_lo", "P_hi", "D", "D_lo", "D_hi",
    "unsafe", "unsafe_lo", "unsafe_hi", "dP", "dP_lo", "dP_hi", "dD", "dD_lo", "dD_hi", "dY", "dY_lo", "dY_hi",
)


def substrates_of(ep: pl.DataFrame) -> list[str]:
    """The substrates present, the reference first, then the others in the registry's order."""
    from mustmaybe.records import SUBSTRATES

    present = set(ep["substrate"].unique().to_list()) if "substrate" in ep.columns and ep.height else set()
    return [s for s in SUBSTRATES if s in present] + sorted(present - set(SUBSTRATES))


def _schema() -> dict[str, pl.DataType | type[pl.DataType]]:
    floats = {c: pl.Float64 for c in TRANSPORT_COLUMNS if c not in ("condition", "topology", "substrate", "vs", "n")}
    return {"condition": pl.String, "topology": pl.String, "substrate": pl.String, "vs": pl.String, "n": pl.Int64,
            **floats, "tasks": pl.Int64, "unmatched": pl.Int64, "failed": pl.Int64, "match": pl.String,
            "family": pl.String, "note": pl.String}


def transport_table(ep: pl.DataFrame, *, failed: pl.DataFrame | None = None, reference: str = REFERENCE,
                    resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None) -> pl.DataFrame:
    """Matched P, D and unsafe per condition, topology and substrate, and each substrate minus the reference.

    Args:
        ep: scored episodes (the analysis frame), with a `substrate` column.
        failed: the failed episodes (Frames.failed): counted per row, in no rate.
        reference: the substrate the others are compared with (AutoGen).
        resamples: task-cluster bootstrap resamples per interval.
        rng: random generator for the bootstrap.

    Returns:
        Empty when fewer than two substrates are present. Otherwise, per (condition, topology) and per
        other substrate, two rows: the reference's matched rates (`vs` null) and the other's, with `dP`,
        `dD`, `dY` = other − reference in percentage points. A pair with no matched cell has n = 0 and a note.
    """
    subs = substrates_of(ep)
    if len(subs) < 2 or reference not in subs:
        return pl.DataFrame(schema=_schema())
    rng = rng if rng is not None else np.random.default_rng(0)
    arms = sort_conditions(ep.select("condition", "topology", "family").unique(), "topology")
    rows: list[dict[str, object]] = []
    for cond, topo, fam in arms.iter_rows():
        cell = ep.filter((pl.col("condition") == cond) & (pl.col("topology") == topo))
        ref = cell.filter(pl.col("substrate") == reference)
        for other in subs:
            if other == reference:
                continue
            oth = cell.filter(pl.col("substrate") == other)
            base: dict[str, object] = {"condition": cond, "topology": topo, "family": fam, "match": MATCH}
            pair = [({**base, "substrate": reference, "vs": None}, ref, oth),
                    ({**base, "substrate": other, "vs": reference}, oth, ref)]
            # One draw of task resamples for the pair: both substrates' rates and their difference are taken on
            # the same resampled tasks (a paired bootstrap; equal rates get equal intervals).
            pair_seed = int(rng.integers(2**32))
            for row, arm, against in pair:
                row["failed"] = _failed(failed, cond, topo, str(row["substrate"]))
                rows.append(row)
                if arm.is_empty() or against.is_empty():
                    missing = reference if ref.is_empty() else other
                    row.update(n=0, unmatched=arm.height, note=f"not run on {missing}: nothing to match")
                    continue
                parts = cell_parts(arm, against, MATCH_KEYS, MATCH, OUTCOMES)
                row.update(n=parts.n_arm, tasks=len(parts.tasks), unmatched=arm.height - parts.n_arm)
                if not parts.n_arm:
                    row["note"] = "no task × seed × models cell ran on both substrates"
                    continue
                rates = cluster_bootstrap(parts.arm, parts.n, resamples=resamples,
                                          rng=np.random.default_rng(pair_seed))
                for j, out in enumerate(OUTCOMES):
                    row[out] = float(rates.point[j] * 100.0)
                    row[f"{out}_lo"] = float(rates.lo[j] * 100.0)
                    row[f"{out}_hi"] = float(rates.hi[j] * 100.0)
                if row["vs"] is not None:
                    diff = cluster_bootstrap(parts.diff, parts.n, resamples=resamples,
                                             rng=np.random.default_rng(pair_seed))
                    for j, name in enumerate(("dP", "dD", "dY")):
                        row[name] = float(diff.point[j] * 100.0)
                        row[f"{name}_lo"] = float(diff.lo[j] * 100.0)
                        row[f"{name}_hi"] = float(diff.hi[j] * 100.0)
                if len(parts.tasks) == 1:
                    row["note"] = "one task: the interval is degenerate"
    return pl.DataFrame(rows, schema=_schema())


def _failed(failed: pl.DataFrame | None, condition: str, topology: str, substrate: str) -> int:
    if failed is None or failed.is_empty() or "substrate" not in failed.columns:
        return 0
    return failed.filter((pl.col("condition") == condition) & (pl.col("topology") == topology)
                         & (pl.col("substrate") == substrate)).height


def main_substrate(ep: pl.DataFrame) -> str | None:
    """The substrate every table but the transport table reads: the reference when present, else the only
    one (None for no episodes). Two substrates are never pooled into one rate."""
    subs = substrates_of(ep)
    return subs[0] if subs else None
