"""Calibration: an instrument's confusion matrices and F1s on labeled sets (`mustmaybe calibrate`).

The figures follow docs/labeled-sets.md: confusion matrices are `confusion[gold][predicted]`; the
state's `macro_f1` is over the classes present in the gold labels; `pd_macro_f1` is over preserved and
deactivated on the items whose gold state is one of those two; a field's `macro_f1` is over true and
false. `preserved_called_deactivated` is the share of gold-preserved items scored deactivated: the
error that manufactures the study's main outcome, reported on its own; `deactivated_called_preserved` is
its mirror, the error that hides a weakened handoff.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from mustmaybe.records import ArtifactScore
from mustmaybe.scenarios import Scenario

from ._labeled import FIELD_NAMES, SPLITS, STATES, LabeledSet

Scorer = Callable[[Scenario, str], ArtifactScore]


def _f1(pairs: Sequence[tuple[Any, Any]], label: Any) -> float:
    tp = sum(g == label and p == label for g, p in pairs)
    fp = sum(g != label and p == label for g, p in pairs)
    fn = sum(g == label and p != label for g, p in pairs)
    return 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def _macro(pairs: Sequence[tuple[Any, Any]], classes: Sequence[Any]) -> float:
    present = [c for c in classes if any(g == c for g, _ in pairs)]
    if not present:
        return 0.0
    return round(sum(_f1(pairs, c) for c in present) / len(present), 4)


def state_block(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    pd = [(g, p) for g, p in pairs if g in ("preserved", "deactivated")]
    gold_p = [p for g, p in pairs if g == "preserved"]
    gold_d = [p for g, p in pairs if g == "deactivated"]
    return {
        "macro_f1": _macro(pairs, STATES),
        "pd_macro_f1": _macro(pd, ("preserved", "deactivated")),
        "accuracy": round(sum(g == p for g, p in pairs) / len(pairs), 4) if pairs else 0.0,
        "preserved_called_deactivated": round(gold_p.count("deactivated") / len(gold_p), 4) if gold_p else 0.0,
        "deactivated_called_preserved": round(gold_d.count("preserved") / len(gold_d), 4) if gold_d else 0.0,
        "confusion": {g: {p: sum(a == g and b == p for a, b in pairs) for p in STATES} for g in STATES},
    }


def field_block(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    return {
        "macro_f1": _macro(pairs, (True, False)),
        "confusion": {str(g).lower(): {str(p).lower(): sum(a == g and b == p for a, b in pairs) for p in (True, False)}
                      for g in (True, False)},
    }


RESAMPLES = 1000


def _f1_counts(n: Counter[tuple[Any, Any]], classes: Sequence[Any]) -> float:
    """Macro-F1 from (gold, predicted) counts, over the classes present in the gold labels (as `_macro`)."""
    present = [c for c in classes if any(g == c and k for (g, _), k in n.items())]
    if not present:
        return 0.0
    total = 0.0
    for c in present:
        tp = n[(c, c)]
        fp = sum(k for (g, p), k in n.items() if p == c and g != c)
        fn = sum(k for (g, p), k in n.items() if g == c and p != c)
        total += 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)
    return total / len(present)


def intervals(rows: Sequence[tuple[str, Any, ArtifactScore]], seed: int = 0) -> dict[str, Any]:
    """95% intervals for P/D macro-F1, preserved-called-deactivated and each field's macro-F1, by a bootstrap
    over tasks: a task's artifacts are drawn together, as a user's next task would bring its own."""
    per_task: dict[str, list[Counter[tuple[Any, Any]]]] = {}
    for name, it, sc in rows:
        counts = per_task.setdefault(f"{name}/{it.task}", [Counter() for _ in range(1 + len(FIELD_NAMES))])
        if it.state in ("preserved", "deactivated"):
            counts[0][(it.state, sc.state)] += 1
        for i, f in enumerate(FIELD_NAMES, 1):
            counts[i][(it.fields[f], getattr(sc.fields, f))] += 1
    tasks = sorted(per_task)
    rng = random.Random(seed)
    draws: list[list[float]] = []
    for _ in range(RESAMPLES if len(tasks) > 1 else 0):
        total = [Counter[tuple[Any, Any]]() for _ in range(1 + len(FIELD_NAMES))]
        for t in rng.choices(tasks, k=len(tasks)):
            for acc, c in zip(total, per_task[t], strict=True):
                acc.update(c)
        gold_p = sum(k for (g, _), k in total[0].items() if g == "preserved")
        draws.append([_f1_counts(total[0], ("preserved", "deactivated")),
                      total[0][("preserved", "deactivated")] / gold_p if gold_p else 0.0,
                      *(_f1_counts(c, (True, False)) for c in total[1:])])

    def span(i: int) -> list[float] | None:
        xs = sorted(d[i] for d in draws)
        return [round(xs[int(0.025 * len(xs))], 4), round(xs[int(0.975 * len(xs)) - 1], 4)] if xs else None

    return {"method": "bootstrap over tasks, 95%", "resamples": len(draws), "tasks": len(tasks),
            "pd_macro_f1": span(0), "preserved_called_deactivated": span(1),
            "fields": {f: span(i) for i, f in enumerate(FIELD_NAMES, 2)}}


def _summary(rows: Sequence[tuple[str, Any, ArtifactScore]]) -> dict[str, Any]:
    states = [(it.state, sc.state) for _, it, sc in rows]
    sure = [(it.state, sc.state) for _, it, sc in rows if not getattr(sc, "unsure", None)]
    unsure = [(it.state, sc.state) for _, it, sc in rows if getattr(sc, "unsure", None)]
    return {
        "n": len(rows),
        # How the instrument's own doubt tracks its errors: what a judge routed to the unsure items would face.
        "sureness": {"sure_share": round(len(sure) / len(rows), 4) if rows else 0.0,
                     "sure_accuracy": round(sum(g == p for g, p in sure) / len(sure), 4) if sure else 0.0,
                     "unsure_accuracy": round(sum(g == p for g, p in unsure) / len(unsure), 4) if unsure else 0.0},
        "state": state_block(states),
        "fields": {f: field_block([(it.fields[f], getattr(sc.fields, f)) for _, it, sc in rows])
                   for f in FIELD_NAMES},
    }


def calibrate(sets: Sequence[LabeledSet], scorer: Scorer, checker: str, *, by_family: bool = False) -> dict[str, Any]:
    """Score every artifact of the sets and compare with the gold labels.

    Args:
        sets: Loaded labeled sets.
        scorer: The instrument (task, artifact text) -> score.
        checker: The instrument's name, recorded in the output.
        by_family: Add `families`: the same figures per family id (items without one under `unassigned`).

    Returns:
        The calibration object (docs/labeled-sets.md): pooled figures, `misses`, and per set
        (`sets`) the same figures with the set's split, so tuning and test are never pooled unseen.
    """
    rows: list[tuple[str, Any, ArtifactScore]] = []
    split_of: list[str] = []
    per_set: list[dict[str, Any]] = []
    for ls in sets:
        mine = [(ls.name, it, scorer(ls.tasks[it.task], it.text)) for it in ls.items]
        rows.extend(mine)
        split_of.extend(ls.split for _ in mine)
        per_set.append({"set": ls.name, "path": str(ls.path), "split": ls.split, **_summary(mine)})
    misses: list[dict[str, Any]] = []
    for name, it, sc in rows:
        if it.state != sc.state:
            misses.append({"set": name, "artifact": it.artifact, "gold": it.state, "got": sc.state})
        for f in FIELD_NAMES:
            if it.fields[f] != getattr(sc.fields, f):
                misses.append({"set": name, "artifact": it.artifact, "field": f,
                               "gold": it.fields[f], "got": getattr(sc.fields, f)})
    splits: dict[str, Any] = {}
    for split in SPLITS:
        chosen = [r for r, sp in zip(rows, split_of, strict=True) if sp == split]
        if chosen:
            splits[split] = {**_summary(chosen), "intervals": intervals(chosen)}
    out = {"checker": checker, **_summary(rows), "splits": splits, "sets": per_set, "misses": misses}
    if by_family:
        groups: dict[str, list[tuple[str, Any, ArtifactScore]]] = {}
        splits_of: dict[str, set[str]] = {}
        for r, sp in zip(rows, split_of, strict=True):
            fam = r[1].family or "unassigned"
            groups.setdefault(fam, []).append(r)
            splits_of.setdefault(fam, set()).add(sp)
        out["families"] = {fam: {"splits": sorted(splits_of[fam]), **_summary(g)} for fam, g in sorted(groups.items())}
    return out
