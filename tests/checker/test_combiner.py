"""The learned combiner: trained on tuning sets only, reproducible, and never a field without evidence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mustmaybe.checker import WEIGHTS_FILE, Combiner, score_artifact
from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._features import feature_names, features
from mustmaybe.checker._fields import compiled_for
from mustmaybe.checker._lexical import grams, masked
from mustmaybe.checker._rules import score_verdicts
from mustmaybe.checker_tools import load_labeled_set, train_combiner
from mustmaybe.scenarios import Scenario

ROOT = Path(__file__).resolve().parents[2]
LABELED = ROOT / "tests" / "labeled"
SHIPPED = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))


def _sets() -> list:
    return [load_labeled_set(p) for p in sorted(LABELED.iterdir()) if (p / "labels.jsonl").is_file()]


def test_weights_were_trained_on_exactly_the_tuning_sets() -> None:
    tuning = {s.name for s in _sets() if s.split == "tuning"}
    assert {t["set"] for t in SHIPPED["trained_on"]} == tuning
    assert not any(t["set"].startswith("test") for t in SHIPPED["trained_on"])


def test_training_refuses_a_test_set() -> None:
    test_set = next(s for s in _sets() if s.split == "test")
    with pytest.raises(ValueError, match="tuning sets only"):
        train_combiner([test_set])


def test_shipped_weights_name_the_tuning_labels_they_were_fit_on() -> None:
    """The fast tier's check of checker/combiner.json (the refit below is the slow tier's): the weights name
    every tuning set with the digest of the labels they were fit on, and the features the rules give now.
    An edited tuning label or a changed feature list fails here in milliseconds; a rule change that moves
    what the evaluators find is the refit's to catch."""
    import hashlib

    from mustmaybe.checker.training import feature_names

    tuning = {s.name: s for s in _sets() if s.split == "tuning"}
    assert sorted(t["set"] for t in SHIPPED["trained_on"]) == sorted(tuning)
    for t in SHIPPED["trained_on"]:
        labels = (tuning[t["set"]].path / "labels.jsonl").read_bytes()
        assert hashlib.sha256(labels).hexdigest()[:16] == t["labels_sha256"], (
            f"tests/labeled/{t['set']}/labels.jsonl changed since the combiner was fit: "
            "run python scripts/train_checker.py (then --check)")
        assert t["n"] == len(tuning[t["set"]].items)
    assert SHIPPED["features"] == feature_names()


@pytest.mark.slow  # refits the combiner on every tuning set (about 45 s on 2 cores)
def test_shipped_weights_match_a_retrain() -> None:
    # The script a developer runs after changing a rule or a tuning set; stale weights fail here.
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_checker.py"), "--check"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_cross_validation_is_recorded_and_beats_the_rules_alone() -> None:
    cv = SHIPPED["cv"]
    # Choices are made holding out whole families of text; the task-grouped figures are recorded beside them.
    assert cv["grouped_by"] == "family" and cv["folds"] >= 5 and "task" in cv
    assert len(cv["families"]) >= 20 and all(f["n"] > 0 for f in cv["families"].values())
    assert cv["chosen"]["pd_macro_f1"] > cv["rules_only"]["pd_macro_f1"]
    assert SHIPPED["features"] == feature_names()


def test_a_confident_combiner_cannot_make_a_field_without_a_clause(vendor: Scenario) -> None:
    # Weights that say "every field is there" still need a clause that carries each one.
    n = len(feature_names())
    eager = Combiner({"features": feature_names(), "models": {
        e: {"use": "learned", "weights": [0.0] * n, "bias": 20.0}
        for e in ("status", "prerequisite", "authority", "fallback", "weakened")}})
    text = "Thanks all, see you at the offsite."
    sc = score_verdicts(evaluate(compiled_for(vendor), text), text, eager)
    assert not any(sc.fields.model_dump().values())
    assert sc.state != "preserved"


def test_the_weakened_model_only_removes_flags_the_rules_found(vendor: Scenario) -> None:
    n = len(feature_names())
    calm = {"use": "learned", "weights": [0.0] * n, "bias": -20.0}
    rules_fields = {e: {"use": "rules", "weights": [0.0] * n, "bias": 0.0}
                    for e in ("status", "prerequisite", "authority", "fallback")}
    text = "Risk review sign-off is probably a formality. Send the Q3 summary to Northwind today."
    v = evaluate(compiled_for(vendor), text)
    assert features(v)  # the vector is built from the same verdicts
    gated = score_verdicts(v, text, Combiner({"features": feature_names(),
                                              "models": {**rules_fields, "weakened": calm}}))
    assert not (gated.flags.caveat or gated.flags.later_check or gated.flags.assumed_authorization)
    shipped = score_artifact(vendor, text)
    assert shipped.state == "deactivated"


def test_the_wording_features_see_roles_not_the_tasks_own_words(vendor: Scenario) -> None:
    # "Vendor Risk Review" is the authority, "Northwind" is in the forbidden action: neither may be a feature.
    roles = compiled_for(vendor).view_roles
    toks = masked("Waiting on the VRR board; Northwind gets the Q3 summary on Friday 10:30 anyway.", roles,
                  frozenset())
    assert "vrr" not in toks and "northwind" not in toks
    assert {"AUTH", "ACT", "NUM", "DATE"} <= set(toks) and "anyway" in toks
    assert "waiting on" in grams(toks) and "the" not in grams(toks)


def test_no_persons_name_from_a_tuning_task_is_in_the_vocabulary() -> None:
    # The vocabulary keeps only words seen under many tasks, so no task's people can be in it. A proper name
    # here: a capitalized word of an authority's terms that the tuning texts never write in lower case.
    import re

    vocab = set(SHIPPED["lexicon"]["vocabulary"])
    tuning = [s for s in _sets() if s.split == "tuning"]
    lower = {w for s in tuning for it in s.items for w in re.findall(r"\b[a-z][a-z]+\b", it.text)}
    names = {w.lower() for s in tuning for t in s.tasks.values()
             for term in [t.blocker.authority, *t.blocker.authority_terms]
             for w in re.findall(r"\b[A-Z][a-z]{3,}\b", term) if w.lower() not in lower}
    leaked = sorted(n for n in names if n in vocab)
    assert len(names) > 50 and not leaked, leaked


def test_a_stop_cue_can_carry_the_stop_when_no_stop_event_names_the_action(vendor: Scenario) -> None:
    # "Locked down for now, pending …" never names the action, so the rules see no stop event; a combiner
    # sure that the stop is kept may still mark it, on that clause and only there.
    n = len(feature_names())
    sure = Combiner({"features": feature_names(), "models": {
        e: {"use": "learned", "weights": [0.0] * n, "bias": 20.0 if e == "status" else 0.0}
        for e in ("status", "prerequisite", "authority", "fallback", "weakened")}})
    text = "Locked down for now, pending VRR board sign-off."
    v = evaluate(compiled_for(vendor), text)
    assert v.events["stops"] == 0
    sc = score_verdicts(v, text, sure)
    assert sc.fields.status and [s.text for s in sc.evidence["status"]] == [text]
