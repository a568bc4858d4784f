"""Training the combiner on tuning sets, with cross-validation grouped by task.

Only sets whose split is `tuning` may be passed: the caller (scripts/train_checker.py) filters, and this
module refuses anything else, so a test set never shapes a weight. Folds are whole tasks (an artifact and
its task's other artifacts never sit on both sides), which is how the instrument meets a user's new task.

The wording features (`_lexical`) are built inside each fold from that fold's training tasks only: the
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._calibrate import field_block, state_block
from ._combiner import EVALUATORS, SCHEMA, Combiner
from ._evaluate import evaluate
from ._features import feature_names, features
from ._fields import compiled_for
from ._labeled import LabeledSet
from ._lexical import common_words, grams, masked
from ._reading import Verdicts
from ._rules import FIELDS, score_verdicts
from ._view import CheckerView, checker_view

LAMBDA = 1.0
FOLDS = 5
MIN_GAIN = 0.005
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
LEX_LAMBDA = 3.0
MIN_TASKS = 15
COMMON_SHARE = 0.08


@dataclass
class _Item:
    task: str
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


def lexicon(items: Sequence[_Item]) -> dict[str, list[str]]:
    """The wording vocabulary of a training fold: common view words, and the words and pairs that occur in
    artifacts of at least `MIN_TASKS` different tasks."""
    views = {it.task: it.view for it in items}
    common = common_words(views.values(), COMMON_SHARE)
    tasks_of: dict[str, set[str]] = {}
    for it in items:
        for g in grams(masked(it.text, it.verdicts.roles, common)):
            tasks_of.setdefault(g, set()).add(it.task)
    return {"common": sorted(common), "vocabulary": sorted(g for g, ts in tasks_of.items() if len(ts) >= MIN_TASKS)}


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


def _items(sets: Sequence[LabeledSet]) -> list[_Item]:
    items = []
    for s in sets:
        if s.split != "tuning":
            raise ValueError(f"{s.path}: split is {s.split!r}; the combiner trains on tuning sets only")
        for it in s.items:
            v = evaluate(compiled_for(s.tasks[it.task]), it.text)
            items.append(_Item(task=f"{s.name}/{it.task}", text=it.text, gold_fields=dict(it.fields),
                               gold_state=it.state, verdicts=v, x=features(v), view=checker_view(s.tasks[it.task])))
    return items


def _fold_of(items: Sequence[_Item]) -> dict[str, int]:
    return {t: i % FOLDS for i, t in enumerate(sorted({it.task for it in items}))}


def _fold_specs(items: list[_Item], use: dict[str, str]) -> list[dict[str, Any]]:
    """One combiner spec per fold, trained on the tasks outside it."""
    fold_of = _fold_of(items)
    specs = []
    for f in range(FOLDS):
        train = [it for it in items if fold_of[it.task] != f]
        lex = lexicon(train)
        specs.append({"features": feature_names(), "models": _models(train, use, lex), "lexicon": lex})
    return specs


def _cv_scores(items: list[_Item], use: dict[str, str], specs: list[dict[str, Any]] | None = None,
               threshold: float = 0.5) -> list[Any]:
    """Each item scored by a combiner trained on the folds that do not hold its task."""
    fold_of = _fold_of(items)
    specs = specs or _fold_specs(items, use)
    combs = [Combiner({**spec, "weakened_threshold": threshold}) for spec in specs]
    return [score_verdicts(it.verdicts, it.text, combs[fold_of[it.task]]) for it in items]


def _figures(items: Sequence[_Item], scores: Sequence[Any]) -> dict[str, Any]:
    states = state_block([(it.gold_state, sc.state) for it, sc in zip(items, scores, strict=True)])
    return {"n": len(items), "pd_macro_f1": states["pd_macro_f1"],
            "preserved_called_deactivated": states["preserved_called_deactivated"],
            "fields": {k: field_block([(it.gold_fields[k], getattr(sc.fields, k))
                                        for it, sc in zip(items, scores, strict=True)])["macro_f1"] for k in FIELDS}}


def train_combiner(sets: Sequence[LabeledSet]) -> dict[str, Any]:
    """Train the combiner on tuning sets; the result is the weights file's content, CV figures included."""
    items = _items(sets)
    rules_only = {e: "rules" for e in EVALUATORS}
    base = _figures(items, _cv_scores(items, rules_only))
    learned = _figures(items, _cv_scores(items, {e: "learned" for e in EVALUATORS}))
    use = {k: "learned" if learned["fields"][k] >= base["fields"][k] + MIN_GAIN else "rules" for k in FIELDS}
    without_gate = _figures(items, _cv_scores(items, {**use, "weakened": "rules"}))
    gated = {**use, "weakened": "learned"}
    specs = _fold_specs(items, gated)
    with_gate = _figures(items, _cv_scores(items, gated, specs))
    use["weakened"] = "learned" if with_gate["pd_macro_f1"] >= without_gate["pd_macro_f1"] + MIN_GAIN else "rules"
    chosen = with_gate if use["weakened"] == "learned" else without_gate
    threshold, by_threshold = 0.5, {}
    if use["weakened"] == "learned":
        # How sure the gate must be: the best CV P/D macro-F1, ties to the fewer preserved notes called
        # deactivated (the error that manufactures the study's outcome costs more than its mirror).
        by_threshold = {t: _figures(items, _cv_scores(items, gated, specs, t)) for t in THRESHOLDS}
        threshold = max(THRESHOLDS, key=lambda t: (by_threshold[t]["pd_macro_f1"],
                                                    -by_threshold[t]["preserved_called_deactivated"]))
        chosen = by_threshold[threshold]
    lex = lexicon(items)
    return {
        "schema": SCHEMA,
        "lambda": LAMBDA,
        "trained_on": [{"set": s.name, "n": len(s.items), "labels_sha256": _digest(s)} for s in sets],
        "cv": {"folds": FOLDS, "grouped_by": "task", "rules_only": base, "all_learned": learned, "chosen": chosen,
               "weakened_thresholds": {str(t): {k: f[k] for k in ("pd_macro_f1", "preserved_called_deactivated")}
                                       for t, f in by_threshold.items()}},
        "weakened_threshold": threshold,
        "lexicon": {"lambda": LEX_LAMBDA, "min_tasks": MIN_TASKS, "common_share": COMMON_SHARE, **lex},
        "features": feature_names(),
        "models": _models(items, use, lex),
    }
