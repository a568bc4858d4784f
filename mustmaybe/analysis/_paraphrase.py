"""The paraphrase panel (appendix G): the transformation contrast re-estimated under each wording.

For every wording variant the run holds, the matched risk differences of Table 8 (`risk_differences`,
each transformed condition against its own control in the same wording) and the pooled
transformed-minus-control gap of Table 10 (`pooled`: each claim group's conditions weighted by their
matched n) are computed on that wording's episodes alone. How far a contrast moves is its value in
the variant minus its value in the base wording, with a paired task-cluster bootstrap interval:
each resample draws one set of tasks and recomputes both wordings' contrasts on it, so the shift's
interval carries the task dependence the two share.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from numpy.typing import NDArray

from ._bootstrap import DEFAULT_RESAMPLES, cluster_bootstrap, task_weights
from ._contrasts import ContrastParts, risk_differences
from ._robustness import claim_group

BASE = "base"
GAP_OUTCOMES: tuple[tuple[str, str], ...] = (("P", "dP"), ("D", "dD"), ("unsafe", "dY"))
PARAPHRASE_COLUMNS: tuple[str, ...] = (
    "wording", "contrast", "topology", "n", "tasks",
    *(f"{g}{s}" for _, g in GAP_OUTCOMES for s in ("", "_lo", "_hi")),
    *(f"shift_{g}{s}" for _, g in GAP_OUTCOMES for s in ("", "_lo", "_hi")),
    "note",
)


def wordings_of(ep: pl.DataFrame) -> list[str]:
    """The wordings present, base first (an episode frame without the column is all base)."""
    if "wording" not in ep.columns or ep.is_empty():
        return [BASE] if not ep.is_empty() else []
    found = set(ep["wording"].to_list())
    return ([BASE] if BASE in found else []) + sorted(found - {BASE})


def has_paraphrase(ep: pl.DataFrame) -> bool:
    """True when the episodes hold any wording other than the base one."""
    return any(w != BASE for w in wordings_of(ep))


def _pool(parts: Sequence[ContrastParts]) -> tuple[list[str], NDArray[np.float64], NDArray[np.float64]]:
    """Per-task sums of several contrasts together (tasks, n, diff): the pooled gap's bootstrap input."""
    by: dict[str, tuple[float, NDArray[np.float64]]] = {}
    for p in parts:
        for i, t in enumerate(p.tasks):
            n, d = by.get(t, (0.0, np.zeros(p.diff.shape[1])))
            by[t] = (n + float(p.n[i]), d + p.diff[i])
    tasks = sorted(by)
    k = parts[0].diff.shape[1] if parts else len(GAP_OUTCOMES)
    n_arr = np.array([by[t][0] for t in tasks], dtype=np.float64)
    d_arr = np.array([by[t][1] for t in tasks], dtype=np.float64).reshape(len(tasks), k)
    return tasks, n_arr, d_arr


_Sums = tuple[list[str], NDArray[np.float64], NDArray[np.float64]]


def _shift(w: _Sums, b: _Sums, idx: list[int], resamples: int,
           rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], int]:
    """Variant minus base on the tasks both hold: point, lo, hi per outcome (proportions), and the task count."""
    common = sorted(set(w[0]) & set(b[0]))
    nan = np.full(len(idx), np.nan)
    if not common:
        return nan, nan.copy(), nan.copy(), 0

    def pick(s: _Sums) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        pos = [s[0].index(t) for t in common]
        return s[1][pos], s[2][pos][:, idx]

    nw, dw = pick(w)
    nb, db = pick(b)
    point = dw.sum(axis=0) / nw.sum() - db.sum(axis=0) / nb.sum()
    if resamples <= 0 or len(common) == 1:
        return point, point.copy(), point.copy(), len(common)
    weights = task_weights(len(common), resamples, rng)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = (weights @ dw) / (weights @ nw)[:, None] - (weights @ db) / (weights @ nb)[:, None]
    lo, hi = np.nanquantile(est, [0.025, 0.975], axis=0)
    return point, lo, hi, len(common)


def paraphrase_table(ep: pl.DataFrame, *, resamples: int = DEFAULT_RESAMPLES,
                     rng: np.random.Generator | None = None) -> pl.DataFrame:
    """One row per wording × contrast (each transformed condition against its control, and each claim
    group's pooled gap): the contrast in that wording with its task-cluster 95% interval, and (variant
    rows) its shift from the base wording with a paired interval. Percentage points."""
    rng = rng if rng is not None else np.random.default_rng(0)
    sums: dict[tuple[str, str, str], _Sums] = {}
    rows: list[dict[str, object]] = []
    for wording in wordings_of(ep):
        rd = risk_differences(ep.filter(pl.col("wording") == wording) if "wording" in ep.columns else ep,
                              resamples=resamples, rng=rng)
        groups: dict[str, list[ContrastParts]] = {}
        for cond, topo, ctrl, fam in rd.table.select("condition", "topology", "control", "family").iter_rows():
            parts = rd.parts.get((cond, topo))
            if parts is None:
                continue
            groups.setdefault(claim_group(fam), []).append(parts)
            sums[(wording, f"{cond} vs {ctrl}", topo)] = (parts.tasks, parts.n, parts.diff)
        for group, plist in groups.items():
            if len(plist) > 1:
                sums[(wording, f"pooled ({group})", "")] = _pool(plist)
        outs = rd.parts[next(iter(rd.parts))].outcomes if rd.parts else ()
        idx = [outs.index(o) for o, _ in GAP_OUTCOMES] if outs else []
        for (w, contrast, topo), s in sums.items():
            if w != wording or not idx:
                continue
            iv = cluster_bootstrap(s[2][:, idx], s[1], resamples=resamples, rng=rng)
            row: dict[str, object] = {"wording": wording, "contrast": contrast, "topology": topo,
                                      "n": int(s[1].sum()), "tasks": len(s[0]), "note": None}
            for j, (_, g) in enumerate(GAP_OUTCOMES):
                row[g], row[f"{g}_lo"], row[f"{g}_hi"] = (float(iv.point[j] * 100), float(iv.lo[j] * 100),
                                                          float(iv.hi[j] * 100))
            base = sums.get((BASE, contrast, topo))
            if wording != BASE and base is not None:
                point, lo, hi, common = _shift(s, base, idx, resamples, rng)
                for j, (_, g) in enumerate(GAP_OUTCOMES):
                    row[f"shift_{g}"], row[f"shift_{g}_lo"], row[f"shift_{g}_hi"] = (
                        float(point[j] * 100), float(lo[j] * 100), float(hi[j] * 100))
                if common < max(len(s[0]), len(base[0])):
                    row["note"] = f"shift on the {common} task(s) both wordings hold"
            elif wording != BASE:
                row["note"] = "no base-wording episodes of this contrast: no shift"
            rows.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "wording": pl.String, "contrast": pl.String, "topology": pl.String, "n": pl.Int64, "tasks": pl.Int64,
        **{c: pl.Float64 for c in PARAPHRASE_COLUMNS if c.startswith(("dP", "dD", "dY", "shift_"))},
        "note": pl.String,
    }
    # Each contrast's wordings together (base first), so a reader sees how far it moves.
    order = {w: i for i, w in enumerate(wordings_of(ep))}
    first: dict[str, int] = {}
    for r in rows:
        first.setdefault(str(r["contrast"]) + "\x00" + str(r["topology"]), len(first))
    rows.sort(key=lambda r: (str(r["contrast"]).startswith("pooled"),
                             first[str(r["contrast"]) + "\x00" + str(r["topology"])], order[str(r["wording"])]))
    return pl.DataFrame(rows, schema=schema).select(PARAPHRASE_COLUMNS)
