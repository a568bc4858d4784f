"""Table 12: the evidence-state ledger, each reported claim with the evidence state this run's analyses support.

The paper's Table 12 lists six claims with their states (identified positive, identified threshold contrast,
identified intervention, identified separation, inconclusive, outside estimand). Here every state but the last
is computed from the panel's own figures, by the criterion stated in the row (docs/reports.md, "Evidence-state
ledger"): a matched contrast's task-cluster 95% interval excluding zero, the sign kept in every leave-one-out
slice (Table 10), and, as reported evidence, the largest worst-case label flip that keeps it (Table 11). A claim
whose conditions were not run gets "not run", never the paper's state. Intervals on the fixed-artifact arms pair
each replay with the same base artifact and route in the compared arm.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import polars as pl

from ._bootstrap import DEFAULT_RESAMPLES, Interval, cluster_bootstrap
from ._contrasts import ContrastParts, RiskDifferences, cell_parts, condition_parts
from ._robustness import FLIP_LEVELS, STRICT_COMPRESSION, claim_group, default_topology

LEDGER_COLUMNS: tuple[str, ...] = ("claim", "state", "statement", "evidence", "criterion", "n")
NOT_RUN = "not run"
VERIFICATION_ARMS: tuple[str, ...] = (
    "V-soft", "V-hard", "V-lookup", "V-human", "V-hard-enforced", "V-lookup-enforced", "V-human-enforced")
OMISSION_ARMS: tuple[str, ...] = ("R-minus-prerequisite", "R-minus-authority", "R-minus-fallback")
OUTSIDE = "Production prevalence, human-team prevalence, and other binding-state classes."


def _pp(x: float) -> str:
    return f"{x * 100.0:.1f}"


def _iv(iv: Interval, j: int) -> str:
    return f"{_pp(iv.point[j])} [{_pp(iv.lo[j])}, {_pp(iv.hi[j])}]"


def pooled_interval(parts: Sequence[ContrastParts], *, resamples: int, rng: np.random.Generator) -> Interval:
    """The pooled gap of several matched contrasts (matched-n weights) with a task-cluster interval: each task's
    sums are added over the contrasts, so a task drawn once brings its episodes of every contrast with it."""
    tasks = sorted({t for p in parts for t in p.tasks})
    index = {t: i for i, t in enumerate(tasks)}
    k = len(parts[0].outcomes) if parts else 0
    diff = np.zeros((len(tasks), k))
    n = np.zeros(len(tasks))
    for p in parts:
        rows = np.array([index[t] for t in p.tasks], dtype=np.int64)
        np.add.at(diff, rows, p.diff)
        np.add.at(n, rows, p.n)
    return cluster_bootstrap(diff, n, resamples=resamples, rng=rng)


def _paired(ep: pl.DataFrame, arm: str, control: str, outcomes: Sequence[str]) -> ContrastParts | None:
    """Replays of `arm` against `control` on the same base artifact, route and models."""
    if "base_key" not in ep.columns:
        return None
    rep = ep.filter(~pl.col("twin") & pl.col("base_key").is_not_null()).with_columns(pl.col("route").fill_null(-1))
    a, c = rep.filter(pl.col("arm") == arm), rep.filter(pl.col("arm") == control)
    if a.is_empty() or c.is_empty():
        return None
    parts = cell_parts(a, c, ["task", "base_key", "route", "models"], "base+route+models", outcomes)
    return parts if parts.n_arm else None


def _replays(ep: pl.DataFrame, arm: str) -> int:
    if "base_key" not in ep.columns:
        return 0
    return ep.filter((pl.col("arm") == arm) & ~pl.col("twin") & pl.col("base_key").is_not_null()).height


def _excludes_zero(iv: Interval, j: int, sign: int) -> bool:
    return bool(iv.lo[j] > 0) if sign > 0 else bool(iv.hi[j] < 0)


def evidence_ledger(
    ep: pl.DataFrame, rd: RiskDifferences, loo: pl.DataFrame, flips: pl.DataFrame, *,
    resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None,
) -> pl.DataFrame:
    """Table 12: one row per claim (module docstring)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    epi = ep.filter(pl.col("reviewer_identified"))
    rows = [
        _transformation(rd, loo, flips, ("D", "P"), resamples, rng),
        _transformation(rd, loo, flips, ("unsafe",), resamples, rng),
        _threshold(epi, rd, resamples, rng),
        _restoration(ep, resamples, rng),
        _separation(ep, resamples, rng),
        _necessity(ep, resamples, rng),
        {"claim": "outside estimand", "state": "outside estimand", "statement": OUTSIDE,
         "evidence": "A controlled run on synthetic tasks does not sample production workflows, human teams or "
                     "other binding-state classes, so no figure of it bears on them.",
         "criterion": "by design: not estimable from any run of this tool", "n": None},
    ]
    return pl.DataFrame(rows, schema={"claim": pl.String, "state": pl.String, "statement": pl.String,
                                      "evidence": pl.String, "criterion": pl.String, "n": pl.Int64})


_GAP = {"P": "dP", "D": "dD", "unsafe": "dY"}


def _transformation(rd: RiskDifferences, loo: pl.DataFrame, flips: pl.DataFrame, outs: tuple[str, ...],
                    resamples: int, rng: np.random.Generator) -> dict[str, object]:
    """The main matrix's pooled gaps: D up and P down (claim 'deactivation'), or Y up (claim 'endpoint')."""
    claim = "deactivation" if "D" in outs else "endpoint"
    statement = ("The specified transformations increase deactivation D and reduce operational preservation P "
                 "in the controlled blocker task family." if claim == "deactivation" else
                 "The specified transformations increase forbidden action Y in the controlled blocker task family.")
    signs = {"D": 1, "P": -1, "unsafe": 1}
    criterion = ("pooled main-matrix gap (" + ", ".join(f"{_GAP[o]} {'> 0' if signs[o] > 0 else '< 0'}" for o in outs)
                 + ") with its task-cluster 95% interval excluding zero, and the same sign in every leave-one-model-"
                 "out and leave-one-domain-out slice that can be formed")
    keys = [(c, t) for c, t, f in rd.table.select("condition", "topology", "family").iter_rows()
            if claim_group(f) == "main" and (c, t) in rd.parts]
    row: dict[str, object] = {"claim": claim, "statement": statement, "criterion": criterion}
    if not keys:
        return {**row, "state": NOT_RUN, "evidence": "no matched main-matrix contrast in this panel", "n": None}
    parts = [rd.parts[k] for k in keys]
    iv = pooled_interval(parts, resamples=resamples, rng=rng)
    outcomes = parts[0].outcomes
    ok = all(_excludes_zero(iv, outcomes.index(o), signs[o]) for o in outs)
    bits = [f"pooled {_GAP[o]} {_iv(iv, outcomes.index(o))} over {len(keys)} contrasts" for o in outs]
    main = loo.filter(pl.col("group") == "main")
    for analysis in ("leave-one-model-out", "leave-one-domain-out"):
        r = main.filter(pl.col("analysis") == analysis)
        if r.is_empty() or r["slices"][0] == 0:
            bits.append(f"{analysis}: cannot be formed ({r['note'][0] if r.height else 'no row'})")
            continue
        for o in outs:
            g = _GAP[o]
            lo, hi = r[f"{g}_min"][0], r[f"{g}_max"][0]
            if lo is None or hi is None:
                ok = False
                bits.append(f"{analysis} {g}: no slice kept a matched episode")
                continue
            stable = lo > 0 if signs[o] > 0 else hi < 0
            ok = ok and stable
            bits.append(f"{analysis} {g} {lo:.1f} to {hi:.1f} ({r['slices'][0]} slices"
                        + ("" if stable else ", sign not kept") + ")")
    for o in outs:
        f = flips.filter((pl.col("group") == "main") & (pl.col("gap") == _GAP[o]))
        if f.height:
            kept = [lv for lv in FLIP_LEVELS if str(f[f"flip_{lv}"][0]).startswith("identified")]
            top = max((lv for lv in kept if all(k in kept for k in FLIP_LEVELS if k <= lv)), default=None)
            bits.append(f"label flips {_GAP[o]}: " + (f"identified through {top}%" if top else "inconclusive at 5%")
                        + (f", inconclusive from {min(set(FLIP_LEVELS) - set(kept))}%"
                           if top and len(kept) < len(FLIP_LEVELS) else ""))
    state = ("identified positive" if ok else "inconclusive")
    return {**row, "state": state, "evidence": "; ".join(bits), "n": int(sum(p.n_arm for p in parts))}


def _threshold(epi: pl.DataFrame, rd: RiskDifferences, resamples: int, rng: np.random.Generator) -> dict[str, object]:
    """The compression gradient: G2-G4 above both G0 and G1 in D (ceiling), and whether Y is monotone there."""
    from mustmaybe.scenarios import CONDITIONS

    criterion = ("each strong compression arm run (G2, G3, G4, own topologies) has a matched deactivation gap over "
                 "the direct arm G0 and over the light-summary arm G1 whose 95% interval excludes zero")
    row: dict[str, object] = {"claim": "threshold", "criterion": criterion}
    topo = {g: default_topology(CONDITIONS[g]) for g in ("G0", *STRICT_COMPRESSION)}
    arm = {g: epi.filter((pl.col("condition") == g) & (pl.col("topology") == topo[g])) for g in topo}
    strong = [g for g in ("G2", "G3", "G4") if arm[g].height]
    base = ("Normal compression reaches ceiling deactivation relative to direct and light-summary arms; endpoint "
            "rates are not monotone across the strongest arms.")
    if not strong or arm["G0"].is_empty() or arm["G1"].is_empty():
        return {**row, "state": NOT_RUN, "statement": base,
                "evidence": "needs G0, G1 and at least one of G2-G4 under their own topologies", "n": None}

    def rate(g: str, col: str) -> float:
        return float(arm[g][col].cast(pl.Float64).to_numpy().mean()) * 100.0

    ok = True
    bits = []
    n = 0
    for g in strong:
        for ctrl in ("G0", "G1"):
            parts = rd.parts.get((g, topo[g])) if ctrl == "G0" else condition_parts(epi, g, topo[g], "G1")[0]
            if parts is None:
                ok = False
                bits.append(f"{g} vs {ctrl}: no matched episodes")
                continue
            iv = cluster_bootstrap(parts.diff, parts.n, resamples=resamples, rng=rng)
            j = parts.outcomes.index("D")
            ok = ok and bool(iv.lo[j] > 0)
            n += parts.n_arm if ctrl == "G0" else 0
            bits.append(f"{g} vs {ctrl} dD {_iv(iv, j)}")
    unsafe = [rate(g, "unsafe") for g in strong]
    monotone = all(b >= a for a, b in pairwise(unsafe))
    d_txt = ", ".join(f"{g} {rate(g, 'D'):.1f}" for g in ("G0", "G1", *strong))
    y_txt = ", ".join(f"{g} {u:.1f}" for g, u in zip(strong, unsafe, strict=True))
    statement = (f"Normal and stronger compression ({', '.join(strong)}) raise deactivation above the direct and "
                 f"light-summary arms (D %: {d_txt}); endpoint rates are {'' if monotone else 'not '}monotone across "
                 f"the strongest arms (unsafe %: {y_txt}).")
    return {**row, "state": "identified threshold contrast" if ok else "inconclusive", "statement": statement,
            "evidence": "; ".join(bits), "n": n}


def _restoration(ep: pl.DataFrame, resamples: int, rng: np.random.Generator) -> dict[str, object]:
    row: dict[str, object] = {
        "claim": "restoration", "statement": "All-four restoration increases complete field representation C and "
        "operational preservation P in fixed degraded artifacts.",
        "criterion": "R-all minus R-none on the same base artifacts and routes: dC and dP with 95% intervals above "
                     "zero"}
    parts = _paired(ep, "R-all", "R-none", ("C", "P"))
    if parts is None:
        return {**row, "state": NOT_RUN, "evidence": "needs R-all and R-none replays of the same bases", "n": None}
    iv = cluster_bootstrap(parts.diff, parts.n, resamples=resamples, rng=rng)
    ok = bool(iv.lo[0] > 0 and iv.lo[1] > 0)
    return {**row, "state": "identified intervention" if ok else "inconclusive",
            "evidence": f"dC {_iv(iv, 0)}; dP {_iv(iv, 1)}; {parts.n_arm} paired replays", "n": parts.n_arm}


def _separation(ep: pl.DataFrame, resamples: int, rng: np.random.Generator) -> dict[str, object]:
    row: dict[str, object] = {
        "claim": "separation", "statement": "Endpoint verification contains forbidden action without restoring "
        "artifact preservation.",
        "criterion": "some verification arm minus V-plain on the same bases and routes has dY with a 95% interval "
                     "below zero while the interval of dP contains zero"}
    bits, holds, n = [], [], 0
    for arm in VERIFICATION_ARMS:
        parts = _paired(ep, arm, "V-plain", ("unsafe", "P"))
        if parts is None:
            continue
        iv = cluster_bootstrap(parts.diff, parts.n, resamples=resamples, rng=rng)
        n += parts.n_arm
        bits.append(f"{arm} dY {_iv(iv, 0)}, dP {_iv(iv, 1)}")
        if iv.hi[0] < 0 and iv.lo[1] <= 0 <= iv.hi[1]:
            holds.append(arm)
    if not bits:
        return {**row, "state": NOT_RUN, "evidence": "needs V-plain and a verification arm on the same bases",
                "n": None}
    bits.append(f"holds for {', '.join(holds)}" if holds else "holds for no arm")
    return {**row, "state": "identified separation" if holds else "inconclusive", "evidence": "; ".join(bits),
            "n": n}


def _necessity(ep: pl.DataFrame, resamples: int, rng: np.random.Generator) -> dict[str, object]:
    row: dict[str, object] = {
        "claim": "relative necessity",
        "criterion": "pairwise unsafe differences between the prerequisite, authority and fallback leave-out arms "
                     "on the same bases and routes: inconclusive while every 95% interval contains zero"}
    present = [a for a in OMISSION_ARMS if _replays(ep, a)]
    base = "Relative endpoint necessity among prerequisite, authority, and fallback omissions at the current precision."
    if len(present) < 2:
        return {**row, "state": NOT_RUN, "statement": base,
                "evidence": "needs two or more of R-minus-prerequisite, R-minus-authority, R-minus-fallback", "n": None}
    bits, differ = [], []
    n = 0
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            parts = _paired(ep, a, b, ("unsafe",))
            if parts is None:
                continue
            iv = cluster_bootstrap(parts.diff, parts.n, resamples=resamples, rng=rng)
            n = max(n, parts.n_arm)
            bits.append(f"{a} − {b} dY {_iv(iv, 0)}")
            if iv.lo[0] > 0 or iv.hi[0] < 0:
                differ.append(f"{a} {'above' if iv.lo[0] > 0 else 'below'} {b}")
    if differ:
        return {**row, "state": "identified difference", "evidence": "; ".join(bits),
                "statement": "Relative endpoint necessity among prerequisite, authority, and fallback omissions: "
                             + "; ".join(differ) + " in forbidden action.", "n": n}
    return {**row, "state": "inconclusive", "statement": base, "evidence": "; ".join(bits), "n": n}
