"""Robustness of the pooled transformed-minus-control gaps: leave-one-out ranges (Table 10) and
worst-case label-flip stress (Table 11).

Pooled gap of a group of conditions (the main matrix, the compression gradient, …): the matched risk
differences of its conditions averaged with weights equal to their matched episode counts,
Σ_c Σ_t diff / Σ_c Σ_t n. With zero-event controls this is the paper's pooled transformed-minus-control gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
from numpy.typing import NDArray

from ._contrasts import ContrastParts, RiskDifferences, condition_parts

if TYPE_CHECKING:
    from mustmaybe.scenarios import Condition

# Families pooled into one claim; any other family forms a group of its own.
CLAIM_GROUPS: dict[str, str] = {
    "static": "main", "summary": "main", "plan": "main", "convergence": "main", "gradient": "compression",
}
FLIP_LEVELS: tuple[int, ...] = (5, 10, 15, 20)
GAPS: tuple[tuple[str, str], ...] = (("P", "dP"), ("D", "dD"), ("unsafe", "dY"))


def claim_group(family: str) -> str:
    """The pooled group a condition family belongs to ('main' for the paper's main matrix)."""
    return CLAIM_GROUPS.get(family, family)


def pooled(parts: Iterable[ContrastParts]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """(matched n, pooled gap per outcome, pooled arm rate per outcome), in proportion units."""
    plist = list(parts)
    if not plist:
        return 0.0, np.full(len(GAPS), np.nan), np.full(len(GAPS), np.nan)
    outs = plist[0].outcomes
    idx = [outs.index(o) for o, _ in GAPS]
    n = sum(float(p.n.sum()) for p in plist)
    if n <= 0:
        return 0.0, np.full(len(GAPS), np.nan), np.full(len(GAPS), np.nan)
    diff = sum(p.diff.sum(axis=0) for p in plist)
    arm = sum(p.arm.sum(axis=0) for p in plist)
    return n, np.asarray(diff)[idx] / n, np.asarray(arm)[idx] / n


def _groups(rd: RiskDifferences) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = {}
    for cond, topo, ctrl, fam in rd.table.select("condition", "topology", "control", "family").iter_rows():
        if (cond, topo) in rd.parts:
            out.setdefault(claim_group(fam), []).append((cond, topo, ctrl))
    return out


def leave_one_out(ep: pl.DataFrame, rd: RiskDifferences) -> pl.DataFrame:
    """Table 10: ranges of the pooled gaps when one model configuration or one domain is left out.

    Leave-one-model-out recomputes each matched contrast without the episodes of that configuration;
    leave-one-domain-out drops that domain's tasks (a task has one domain). Gaps in percentage points.
    """
    epi = ep.filter(pl.col("reviewer_identified"))
    domain_of = dict(ep.select("task", "domain").unique().iter_rows())
    rows: list[dict[str, object]] = []
    for group, arms in _groups(rd).items():
        parts = [rd.parts[(c, t)] for c, t, _ in arms]
        n, full, _ = pooled(parts)
        rows.append(_range_row(group, "all episodes", 1, [full], int(n)))
        conds = {c for c, _, _ in arms} | {k for _, _, k in arms}
        models = sorted(epi.filter(pl.col("condition").is_in(list(conds)))["models"].unique().to_list())
        if len(models) < 2:
            rows.append(_range_row(group, "leave-one-model-out", 0, [], int(n),
                                   note="one model configuration: nothing to leave out"))
        else:
            gaps = []
            for m in models:
                sub = epi.filter(pl.col("models") != m)
                kept = [p for c, t, k in arms if (p := condition_parts(sub, c, t, k)[0]) is not None]
                gaps.append(pooled(kept)[1])
            rows.append(_range_row(group, "leave-one-model-out", len(models), gaps, int(n)))
        domains = sorted({domain_of.get(t, "unknown") for p in parts for t in p.tasks})
        if len(domains) < 2:
            rows.append(_range_row(group, "leave-one-domain-out", 0, [], int(n),
                                   note=f"one domain ({domains[0] if domains else 'none'}): nothing to leave out"))
        else:
            gaps = []
            for d in domains:
                kept = [p.subset(np.array([domain_of.get(t, "unknown") != d for t in p.tasks], dtype=bool))
                        for p in parts]
                gaps.append(pooled(kept)[1])
            rows.append(_range_row(group, "leave-one-domain-out", len(domains), gaps, int(n)))
        rows.append(_balanced_row(group, arms, parts, epi, domain_of, int(n)))
        if group == "compression":
            rows.append(_strict_compression_row(rd))
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "group": pl.String, "analysis": pl.String, "slices": pl.Int64, "n": pl.Int64,
        **{f"{g}_{s}": pl.Float64 for _, g in GAPS for s in ("min", "max")}, "note": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


def _balanced_row(
    group: str, arms: Sequence[tuple[str, str, str]], parts: Sequence[ContrastParts], epi: pl.DataFrame,
    domain_of: dict[str, str], n: int,
) -> dict[str, object]:
    """Table 10's balanced-weighting row: the pooled gap with every slice of one kind weighted equally (each
    matched contrast, each model configuration, each domain), its range over the kinds that have two or more
    slices. The pooled gap weights by matched n, so a slice with many episodes can carry it; these do not."""
    schemes: dict[str, list[NDArray[np.float64]]] = {"condition": [pooled([p])[1] for p in parts]}
    conds = {c for c, _, _ in arms} | {k for _, _, k in arms}
    models = sorted(epi.filter(pl.col("condition").is_in(list(conds)))["models"].unique().to_list())
    schemes["models"] = []
    for m in models:
        sub = epi.filter(pl.col("models") == m)
        kept = [p for c, t, k in arms if (p := condition_parts(sub, c, t, k)[0]) is not None]
        if kept:
            schemes["models"].append(pooled(kept)[1])
    schemes["domain"] = []
    for d in sorted({domain_of.get(t, "unknown") for p in parts for t in p.tasks}):
        kept = [p.subset(np.array([domain_of.get(t, "unknown") == d for t in p.tasks], dtype=bool)) for p in parts]
        if sum(k.n_arm for k in kept):
            schemes["domain"].append(pooled(k for k in kept if k.n_arm)[1])
    used = {k: v for k, v in schemes.items() if len(v) >= 2}
    gaps = [np.nanmean(np.array(v), axis=0) for v in used.values()]
    note = ("slices weighted equally within each of: " + ", ".join(f"{k} ({len(v)})" for k, v in used.items())
            if used else "no kind of slice has two or more slices: nothing to balance")
    return _range_row(group, "balanced weighting", len(used), gaps, n, note=note)


# The paper's strict compression arms: the gradient's transformed arms, each under its own topology (Table 13).
STRICT_COMPRESSION: tuple[str, ...] = ("G1", "G2", "G3", "G4")


def _strict_compression_row(rd: RiskDifferences) -> dict[str, object]:
    """Table 10's strict-compression row: G1-G4, each under the topology the registry gives it, against G0,
    pooled by matched n (with the paper's 48 per arm, the mean of Table 13's four gaps)."""
    from mustmaybe.scenarios import CONDITIONS

    keys = [(c, t) for c, t in rd.parts if c in STRICT_COMPRESSION and t == default_topology(CONDITIONS[c])]
    parts = [rd.parts[k] for k in keys]
    n, gap, _ = pooled(parts)
    arms = ", ".join(f"{c} {t}" for c, t in sorted(keys))
    return _range_row("compression", "strict compression arms", len(parts), [gap] if parts else [], int(n),
                      note=f"vs G0: {arms}" if parts else "G1-G4 were not run under their own topologies")


def default_topology(cond: Condition) -> str:
    """The topology label a condition's episodes carry when run under its own ("default") topology."""
    from mustmaybe.records import TopologySpec

    return str(TopologySpec(name=cond.topology, params=dict(cond.topology_params)))


def _range_row(
    group: str, analysis: str, slices: int, gaps: Sequence[NDArray[np.float64]], n: int, note: str | None = None
) -> dict[str, object]:
    row: dict[str, object] = {"group": group, "analysis": analysis, "slices": slices, "n": n, "note": note}
    arr = np.array(gaps, dtype=np.float64).reshape(len(gaps), len(GAPS))
    for j, (_, g) in enumerate(GAPS):
        col = arr[:, j][~np.isnan(arr[:, j])]
        row[f"{g}_min"] = float(col.min() * 100.0) if col.size else None
        row[f"{g}_max"] = float(col.max() * 100.0) if col.size else None
    if gaps and not bool(np.isfinite(arr).all(axis=1).any()) and note is None:
        row["note"] = "no slice keeps a matched episode"
    return row


def flip_state(gap: float, arm_rate: float, control_rate: float, flip: float) -> str:
    """Evidence state of a gap after worst-case flips of a share `flip` of each arm's labels.

    The adversary moves the gap toward zero: for a positive gap it turns up to `flip` of the compared
    arm's positives negative and up to `flip` of the control's negatives positive (bounded by how many
    there are); mirrored for a negative gap. The state is "identified positive" (or "identified
    negative" for a negative gap) when the perturbed gap keeps the observed sign, else "inconclusive".
    """
    if not np.isfinite(gap) or abs(gap) < 1e-12:
        return "inconclusive"
    if gap > 0:
        perturbed = gap - min(flip, arm_rate) - min(flip, 1.0 - control_rate)
        return "identified positive" if perturbed > 1e-12 else "inconclusive"
    perturbed = gap + min(flip, 1.0 - arm_rate) + min(flip, control_rate)
    return "identified negative" if perturbed < -1e-12 else "inconclusive"


def label_flip(rd: RiskDifferences, levels: Sequence[int] = FLIP_LEVELS) -> pl.DataFrame:
    """Table 11: evidence state of each pooled gap (dP, dD, dY per group) under 5/10/15/20% label flips."""
    rows: list[dict[str, object]] = []
    for group, arms in _groups(rd).items():
        n, gap, arm = pooled(rd.parts[(c, t)] for c, t, _ in arms)
        for j, (_, g) in enumerate(GAPS):
            control = arm[j] - gap[j]
            row: dict[str, object] = {"group": group, "gap": g, "n": int(n), "value": float(gap[j] * 100.0)}
            for lv in levels:
                row[f"flip_{lv}"] = flip_state(float(gap[j]), float(arm[j]), float(control), lv / 100.0)
            rows.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "group": pl.String, "gap": pl.String, "n": pl.Int64, "value": pl.Float64,
        **{f"flip_{lv}": pl.String for lv in levels},
    }
    return pl.DataFrame(rows, schema=schema)


