"""Training the combiner on tuning sets, with cross-validation grouped by task.

Only sets whose split is `tuning` may be passed: the caller (scripts/train_checker.py) filters, and this
module refuses anything else, so a test set never shapes a weight. Folds are whole tasks (an artifact and
its task's other artifacts never sit on both sides), which is how the instrument meets a user's new task.

The wording features (the checker's `_lexical`) are built inside each fold from that fold's training tasks only: the
words common across their views, and the words and pairs seen under at least `MIN_TASKS` of them. Their
penalty (`LEX_LAMBDA`) and `MIN_TASKS` were chosen by the same task-grouped CV on the tuning sets (a grid of
four, before any test set was scored with them).

The `weakened` gate's threshold (how sure it must be before the rules' weakening flags count) is chosen
the same way from `THRESHOLDS`: the best CV P/D macro-F1, ties to the lower preserved-called-deactivated.

Selection, fixed before any figure was seen: a field uses the learned model when its task-grouped CV
macro-F1 beats the rules' own verdict by at least `MIN_GAIN`; the `weakened` gate is used when it raises the
CV P/D macro-F1 of the whole pipeline by at least `MIN_GAIN`. Everything is deterministic (no random
numbers; Newton's method to convergence), so retraining on the same sets gives the same weights.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mustmaybe.checker import CheckerView, checker_view
from mustmaybe.checker.training import (
    EVALUATORS,
    FIELDS,
    SCHEMA,
    SURE_TARGET,
    UNSURE_MARGIN,
    Combiner,
    Verdicts,
    common_words,
    compiled_for,
    evaluate,
    feature_names,
    features,
    grams,
    masked,
    score_verdicts,
)

from ._calibrate import field_block, state_block
from ._labeled import LabeledSet

LAMBDA = 1.0
FOLDS = 5
FAMILY_FOLDS = 10
MIN_GAIN = 0.005
MARGINS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.48)
STANDS: tuple[tuple[str, ...], ...] = (("status", "fallback"), ("status",), ("fallback",), ())
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
LEX_LAMBDA = 3.0
MIN_TASKS = 15
COMMON_SHARE = 0.08


@dataclass
class _Item:
    task: str
    family: str
    text: str
    gold_fields: dict[str, bool]
    gold_state: str
    verdicts: Verdicts
    x: list[float]
    view: CheckerView


def _target(it: _Item, evaluator: str) -> int:
    if evaluator == "weakened":
        return int(it.gold_state == "deactivated")
    return int(it.gold_fields[evaluator])


def fit_logistic(x: Sequence[Sequence[float]], y: Sequence[int],
                 lam: float | Sequence[float] = LAMBDA) -> tuple[list[float], float]:
    """L2-regularized logistic regression by Newton's method (the bias is not penalized); `lam` is one
    penalty for every weight or one per weight."""
    import numpy as np

    xa = np.hstack([np.asarray(x, dtype=float), np.ones((len(x), 1))])
    ya = np.asarray(y, dtype=float)
    w = np.zeros(xa.shape[1])
    pen = np.append(np.broadcast_to(np.asarray(lam, dtype=float), (xa.shape[1] - 1,)), 0.0)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(xa @ w, -50, 50)))
        grad = xa.T @ (p - ya) + pen * w
        hess = (xa * (p * (1 - p))[:, None]).T @ xa + np.diag(pen) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return [round(float(v), 8) for v in w[:-1]], round(float(w[-1]), 8)


def _own_features(evaluator: str) -> list[bool]:
    """A field's model does not see the other fields' verdicts: each evaluator judges its own field from the
    cues, so a note that states only the stop is not marked down for lacking the rest (a halo learned from
    notes that keep all four or none)."""
    others = {f"{p}_{k}" for k in FIELDS if k != evaluator for p in ("v", "n", "u")} if evaluator in FIELDS else set()
    return [name not in others for name in feature_names()]


def _proper_names(items: Sequence[_Item]) -> frozenset[str]:
    """Words the fold's texts write only capitalized ("Marta", "Northwind"): names, which writers reuse across
    tasks for different people and bodies, so a weight on one would be a weight on a writer's habit."""
    capital = {w.lower() for it in items for w in re.findall(r"\b[A-Z][a-z]+\b", it.text)}
    lower = {w for it in items for w in re.findall(r"\b[a-z]+\b", it.text)}
    return frozenset(capital - lower)


def lexicon(items: Sequence[_Item]) -> dict[str, list[str]]:
    """The wording vocabulary of a training fold: common view words, and the words and pairs that occur in
    artifacts of at least `MIN_TASKS` different tasks, less any that hold a proper name."""
    views = {it.task: it.view for it in items}
    common = common_words(views.values(), COMMON_SHARE)
    names = _proper_names(items)
    tasks_of: dict[str, set[str]] = {}
    for it in items:
        for g in grams(masked(it.text, it.verdicts.roles, common)):
            tasks_of.setdefault(g, set()).add(it.task)
    return {"common": sorted(common), "vocabulary": sorted(
        g for g, ts in tasks_of.items() if len(ts) >= MIN_TASKS and not names.intersection(g.split()))}


def _models(items: Sequence[_Item], use: dict[str, str], lex: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    reader = Combiner({"features": [], "models": {}, "lexicon": lex})
    size = len(lex["vocabulary"])
    wording = []
    for it in items:
        row = [0.0] * size
        for i in reader.wording(it.text, it.verdicts.roles):
            row[i] = 1.0
        wording.append(row)
    out: dict[str, dict[str, Any]] = {}
    for e in EVALUATORS:
        keep = _own_features(e)
        x = [[v for v, k in zip(it.x, keep, strict=True) if k] + row for it, row in zip(items, wording, strict=True)]
        pen = [LAMBDA] * sum(keep) + [LEX_LAMBDA] * size
        w, bias = fit_logistic(x, [_target(it, e) for it in items], pen)
        it_w = iter(w)
        weights = [next(it_w) if k else 0.0 for k in keep]
        out[e] = {"use": use.get(e, "learned"), "weights": weights, "bias": bias, "wording_weights": list(it_w)}
    return out


def _digest(s: LabeledSet) -> str:
    return hashlib.sha256((s.path / "labels.jsonl").read_bytes()).hexdigest()[:16]


def _trained_on(sets: Sequence[LabeledSet]) -> list[dict[str, Any]]:
    return [{"set": s.name, "n": len(s.items), "labels_sha256": _digest(s)} for s in sets]


def _lexicon_spec(lex: dict[str, list[str]]) -> dict[str, Any]:
    return {"lambda": LEX_LAMBDA, "min_tasks": MIN_TASKS, "common_share": COMMON_SHARE, **lex}


def _items(sets: Sequence[LabeledSet]) -> list[_Item]:
    items = []
    for s in sets:
        if s.split != "tuning":
            raise ValueError(f"{s.path}: split is {s.split!r}; the combiner trains on tuning sets only")
        for it in s.items:
            v = evaluate(compiled_for(s.tasks[it.task]), it.text)
            items.append(_Item(task=f"{s.name}/{it.task}", family=it.family or "unassigned", text=it.text,
                               gold_fields=dict(it.fields),
                               gold_state=it.state, verdicts=v, x=features(v), view=checker_view(s.tasks[it.task])))
    return items


# "task" (whole tasks in FOLDS folds), "family" (whole families in FAMILY_FOLDS folds) or "writer" (whole labeled
# sets, each one writer's tasks, families and style, in FAMILY_FOLDS folds).
Grouping = str


def _folds(items: Sequence[_Item], by: Grouping) -> list[int]:
    """Each item's fold: whole tasks in `FOLDS` folds, or whole families in `FAMILY_FOLDS` folds, so that every
    family is scored by a combiner that never saw an artifact of it (leave-family-out)."""
    if by == "family":
        fams = {f: i % FAMILY_FOLDS for i, f in enumerate(sorted({it.family for it in items}))}
        return [fams[it.family] for it in items]
    if by == "writer":
        writers = {w: i % FAMILY_FOLDS for i, w in enumerate(sorted({_writer(it) for it in items}))}
        return [writers[_writer(it)] for it in items]
    tasks = {t: i % FOLDS for i, t in enumerate(sorted({it.task for it in items}))}
    return [tasks[it.task] for it in items]


def _writer(it: _Item) -> str:
    """The labeled set an item comes from: one writer's tasks, families and style."""
    return it.task.split("/", 1)[0]


def _fold_specs(items: list[_Item], by: Grouping = "task") -> list[dict[str, Any]]:
    """One combiner spec per fold, trained on the items outside it. Every evaluator's model is fitted whatever
    it is used for, so one set of folds serves every configuration (`_using`)."""
    folds = _folds(items, by)
    specs = []
    for f in range(max(folds) + 1):
        train = [it for it, k in zip(items, folds, strict=True) if k != f]
        lex = lexicon(train)
        specs.append({"features": feature_names(), "models": _models(train, {}, lex), "lexicon": lex})
    return specs


def _using(specs: list[dict[str, Any]], use: dict[str, str]) -> list[dict[str, Any]]:
    """The fold specs with each evaluator's model used as `use` says (learned unless said otherwise)."""
    return [{**spec, "models": {e: {**m, "use": use.get(e, "learned")} for e, m in spec["models"].items()}}
            for spec in specs]


def _cv_scores(items: list[_Item], use: dict[str, str], specs: list[dict[str, Any]],
               threshold: float = 0.5, by: Grouping = "task", sure_margin: float = UNSURE_MARGIN,
               rules_stand: Sequence[str] = ("status", "fallback")) -> list[Any]:
    """Each item scored by a combiner trained on the folds that do not hold it."""
    folds = _folds(items, by)
    combs = [Combiner({**spec, "weakened_threshold": threshold, "sure_margin": sure_margin,
                       "rules_stand": list(rules_stand)}) for spec in _using(specs, use)]
    return [score_verdicts(it.verdicts, it.text, combs[k]) for it, k in zip(items, folds, strict=True)]


def _figures(items: Sequence[_Item], scores: Sequence[Any]) -> dict[str, Any]:
    pairs = [(it.gold_state, sc.state) for it, sc in zip(items, scores, strict=True)]
    states = state_block(pairs)
    sure = [g == p for (g, p), sc in zip(pairs, scores, strict=True) if not sc.unsure]
    return {"n": len(items), "pd_macro_f1": states["pd_macro_f1"],
            "preserved_called_deactivated": states["preserved_called_deactivated"],
            "deactivated_called_preserved": states["deactivated_called_preserved"],
            "sure_share": round(len(sure) / len(items), 4) if items else 0.0,
            "sure_accuracy": round(sum(sure) / len(sure), 4) if sure else 0.0,
            "fields": {k: field_block([(it.gold_fields[k], getattr(sc.fields, k))
                                        for it, sc in zip(items, scores, strict=True)])["macro_f1"] for k in FIELDS}}


def _by_family(items: Sequence[_Item], scores: Sequence[Any]) -> dict[str, Any]:
    fams = sorted({it.family for it in items})
    return {f: _figures([it for it in items if it.family == f], [sc for it, sc in zip(items, scores, strict=True)
                                                                  if it.family == f]) for f in fams}


def train_combiner(sets: Sequence[LabeledSet], select_by: Grouping = "family") -> dict[str, Any]:
    """Train the combiner on tuning sets; the result is the weights file's content, CV figures included.

    Every choice (learned model or the rules' verdict per evaluator, whether the weakening gate is used, its
    threshold) is made on the cross-validated figures grouped by `select_by`: leave-one-family-out by default,
    since the next user's text is a kind nobody has seen. Task-grouped figures are reported beside them.
    """
    items = _items(sets)
    by = select_by
    specs = _fold_specs(items, by)
    rules_only = {e: "rules" for e in EVALUATORS}
    base = _figures(items, _cv_scores(items, rules_only, specs, by=by))
    learned = _figures(items, _cv_scores(items, {e: "learned" for e in EVALUATORS}, specs, by=by))
    use = {k: "learned" if learned["fields"][k] >= base["fields"][k] + MIN_GAIN else "rules" for k in FIELDS}
    without_gate = _figures(items, _cv_scores(items, {**use, "weakened": "rules"}, specs, by=by))
    gated = {**use, "weakened": "learned"}
    with_gate = _figures(items, _cv_scores(items, gated, specs, by=by))
    use["weakened"] = "learned" if with_gate["pd_macro_f1"] >= without_gate["pd_macro_f1"] + MIN_GAIN else "rules"
    threshold, by_threshold = 0.5, {}
    if use["weakened"] == "learned":
        # How sure the gate must be: the best CV P/D macro-F1, ties to the fewer preserved notes called
        # deactivated (the error that manufactures the study's outcome costs more than its mirror).
        by_threshold = {t: _figures(items, _cv_scores(items, gated, specs, t, by=by)) for t in THRESHOLDS}
        threshold = max(THRESHOLDS, key=lambda t: (by_threshold[t]["pd_macro_f1"],
                                                    -by_threshold[t]["preserved_called_deactivated"]))
    # Where the combiner is unsure of a field, whether the rules' verdict stands: the rules keep every field they
    # stand on unless letting the combiner decide it buys at least MIN_GAIN of held-out P/D macro-F1.
    by_stand = {s: _figures(items, _cv_scores(items, use, specs, threshold, by, rules_stand=s)) for s in STANDS}
    best = max(f["pd_macro_f1"] for f in by_stand.values())
    stand = next(s for s in STANDS if by_stand[s]["pd_macro_f1"] >= best - MIN_GAIN)
    # How far from its decision point a learned probability must be for a score to call itself sure: the
    # smallest margin at which the held-out sure items are right `SURE_TARGET` of the time, both with whole
    # families held out and with whole writers held out (a new user's text is both at once).
    writer_specs = _fold_specs(items, "writer")
    by_margin = {m: _figures(items, _cv_scores(items, use, specs, threshold, by, m, stand)) for m in MARGINS}
    by_margin_writer = {m: _figures(items, _cv_scores(items, use, writer_specs, threshold, "writer", m, stand))
                        for m in MARGINS}
    sure_margin = next((m for m in MARGINS if min(by_margin[m]["sure_accuracy"],
                                                  by_margin_writer[m]["sure_accuracy"]) >= SURE_TARGET), MARGINS[-1])
    chosen_scores = _cv_scores(items, use, specs, threshold, by, sure_margin, stand)
    chosen = _figures(items, chosen_scores)
    other = "task" if by == "family" else "family"
    other_scores = _cv_scores(items, use, _fold_specs(items, other), threshold, other, sure_margin, stand)
    family_scores = chosen_scores if by == "family" else other_scores
    # Whole writers held out: their tasks, families and style at once, the way an open set meets the instrument.
    writer_scores = _cv_scores(items, use, writer_specs, threshold, "writer", sure_margin, stand)
    lex = lexicon(items)
    return {
        "schema": SCHEMA,
        "lambda": LAMBDA,
        "trained_on": _trained_on(sets),
        "cv": {"folds": FAMILY_FOLDS if by == "family" else FOLDS, "grouped_by": by, "rules_only": base,
               "all_learned": learned, "chosen": chosen,
               other: _figures(items, other_scores),
               "writer": _figures(items, writer_scores),
               "families": _by_family(items, family_scores),
               "weakened_thresholds": {str(t): {k: f[k] for k in ("pd_macro_f1", "preserved_called_deactivated")}
                                       for t, f in by_threshold.items()}},
        "weakened_threshold": threshold,
        "sure_margin": sure_margin,
        "rules_stand": list(stand),
        "rules_stand_choices": {"+".join(s) or "none": {k: f[k] for k in ("pd_macro_f1",
                                                                          "preserved_called_deactivated")}
                                for s, f in by_stand.items()},
        "sure_margins": {str(m): {k: f[k] for k in ("sure_share", "sure_accuracy")} for m, f in by_margin.items()},
        "sure_margins_writer": {str(m): {k: f[k] for k in ("sure_share", "sure_accuracy")}
                                for m, f in by_margin_writer.items()},
        "lexicon": _lexicon_spec(lex),
        "features": feature_names(),
        "models": _models(items, use, lex),
    }


def refit_combiner(sets: Sequence[LabeledSet], spec: dict[str, Any]) -> dict[str, Any]:
    """The weights a spec's recorded choices give on these sets: the final fit alone, without the
    cross-validation that made the choices (a check that shipped weights match their sets and choices in a
    fraction of a full retrain's time)."""
    items = _items(sets)
    use = {e: m["use"] for e, m in spec["models"].items()}
    lex = lexicon(items)
    return {**spec,
            "trained_on": _trained_on(sets),
            "lexicon": _lexicon_spec(lex),
            "features": feature_names(), "models": _models(items, use, lex)}
