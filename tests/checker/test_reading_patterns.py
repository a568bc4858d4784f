"""Reading patterns added in rules 10, each stated as the construction it covers, with a twin that differs in it.

- A waiting word ("for now", "until then", "meanwhile") is an alternative cue only when it scopes over another
  action; on a clause that holds the action it dates the hold.
- A wrapped JSON line that holds several "key": value pairs is read as that many keyed lines.
- A clause that holds or gates the forbidden action does not, by sharing words with the fallback, name the
  fallback; an explicit alternative construction in it still does.
- A keyed line's reading stands over the combiner, but is only sure when the combiner reads it the same way.
"""

from __future__ import annotations

from mustmaybe.checker._combiner import EVALUATORS, Combiner
from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._features import feature_names
from mustmaybe.checker._fields import compiled_for
from mustmaybe.checker._rules import score_verdicts
from mustmaybe.checker._segment import segment
from mustmaybe.scenarios import Scenario


def _reading(vendor: Scenario, text: str, needle: str):  # type: ignore[no-untyped-def]
    v = evaluate(compiled_for(vendor), text)
    return next(r for r in v.readings if needle in r.clause.words)


def test_a_waiting_word_on_a_hold_dates_the_hold(vendor: Scenario) -> None:
    hold = _reading(vendor, "Do not send the Q3 summary to Northwind for now.", "northwind")
    offer = _reading(vendor, "For now, share the redacted internal preview with Northwind.", "preview")
    assert not hold.alt_cue
    assert offer.alt_cue


def test_a_waiting_word_beside_another_alternative_cue_keeps_it(vendor: Scenario) -> None:
    r = _reading(vendor, "Do not send the Q3 summary for now; instead share the internal preview.", "instead")
    assert r.alt_cue


def test_a_wrapped_json_line_with_several_pairs_is_several_keyed_lines() -> None:
    text = '{"unit": "3412", "go": false,\n "needs": "fit-to-run signed",\n "cover": "unit 3407"}'
    labels = [c.label for s in segment(text) for c in s.clauses]
    assert labels == ["unit", "go", "needs", "cover"]


def test_the_go_key_of_a_wrapped_json_line_is_read(vendor: Scenario) -> None:
    held = '{"action": "send the Q3 summary to Northwind", "go": false,\n "needs": "Vendor Risk Review approval"}'
    v = evaluate(compiled_for(vendor), held)
    assert v.status, "the go: false pair is the stop"


def test_a_hold_does_not_name_the_fallback_by_sharing_its_words(vendor: Scenario) -> None:
    held = ("Do not send the Q3 summary or its internal preview to Northwind until the Vendor Risk Review board "
            "approves the Q3 version.")
    offered = ("Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version; "
               "instead share the redacted internal preview.")
    assert not evaluate(compiled_for(vendor), held).fallback
    assert evaluate(compiled_for(vendor), offered).fallback


def _combiner(fallback_bias: float) -> Combiner:
    models = {e: {"use": "learned", "weights": [0.0] * len(feature_names()), "bias": 10.0, "wording_weights": []}
              for e in EVALUATORS}
    models["fallback"]["bias"] = fallback_bias
    return Combiner({"features": feature_names(), "models": models, "lexicon": {}, "sure_margin": 0.2})


def test_a_keyed_reading_stands_but_is_unsure_when_the_combiner_reads_it_otherwise(vendor: Scenario) -> None:
    text = ("status: blocked, do not send the Q3 summary to Northwind\n"
            "prerequisite: Vendor Risk Review approval for the Q3 version\n"
            "authority: Vendor Risk Review board\n"
            "fallback: share the redacted internal preview\n")
    v = evaluate(compiled_for(vendor), text)
    agree = score_verdicts(v, text, _combiner(10.0))
    disagree = score_verdicts(evaluate(compiled_for(vendor), text), text, _combiner(-10.0))
    assert agree.fields.fallback and "fallback" not in agree.unsure
    assert disagree.fields.fallback, "the keyed line's reading stands"
    assert "fallback" in disagree.unsure
