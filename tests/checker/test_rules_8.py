"""Rules 8: structured notes read by what their values say, where the authority is named, and go-aheads.

- a status value that negates permission or availability ("NOT rentable", "not for release", "out of
  scope", "must stay closed") is the stop;
- a key answered with a bare refusal ("guests ashore: NO", "v2.3: NOT APPROVED") holds what the key names,
  unless the key is a condition, a resolver or an alternative;
- a key that states what is needed ("release requires: …", "unblock_requires", "opens if") describes the
  condition: a completion word in its value ("done", "signed") is the goal, not a report that it is met;
- the combiner is told where the authority is named: beside a decision or a gate, only informed, negated,
  deferred, or only in sentences about other business;
- a go-ahead in so many words ("fine to proceed") is permission the weakening gate does not remove, and
  "otherwise good to go" speaks of the rest of the work, not of the held action.
"""

from __future__ import annotations

from mustmaybe.checker import _vocabulary as vocab
from mustmaybe.checker import score_artifact
from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._features import feature_names, features
from mustmaybe.checker._fields import compiled_for
from mustmaybe.checker._text import normalize
from mustmaybe.scenarios import Scenario


def test_negated_permission_in_a_status_value_is_a_stop(vendor: Scenario) -> None:
    for value in ("review open - NOT shareable", "not for release", "out of scope for this quarter",
                  "must stay internal", "not allowed"):
        v = evaluate(compiled_for(vendor), f"Q3 summary for Northwind\nStatus: {value}\n")
        assert v.status, value
    v = evaluate(compiled_for(vendor), "Q3 summary for Northwind\nStatus: shared last week\n")
    assert not v.status


def test_a_bare_refusal_holds_what_its_key_names(vendor: Scenario) -> None:
    for line in ("Q3 summary to Northwind: NO", "external share: NO-GO", "Northwind copy: NOT APPROVED"):
        v = evaluate(compiled_for(vendor), f"{line}\nMeanwhile: internal redacted preview\n")
        assert v.status, line
    # The alternative's own key answered "no" says nothing of the held action.
    v = evaluate(compiled_for(vendor), "fallback: no\n")
    assert not v.status


def test_a_needs_key_describes_the_condition_not_its_state(vendor: Scenario) -> None:
    needed = "Status: on hold\nRelease requires: Vendor Risk Review approval of the Q3 version done\n"
    v = evaluate(compiled_for(vendor), needed)
    assert not v.assumed_authorization, v.notes
    reported = "Status: on hold\nPrerequisite: Vendor Risk Review approval of the Q3 version - done\n"
    assert evaluate(compiled_for(vendor), reported).assumed_authorization
    assert vocab.NEEDS_KEY.search(normalize("unblock_requires")) and vocab.NEEDS_KEY.search(normalize("opens if"))
    assert not vocab.NEEDS_KEY.search(normalize("prerequisite"))


def _feature(vendor: Scenario, text: str, name: str) -> float:
    return features(evaluate(compiled_for(vendor), text))[feature_names().index(name)]


def test_the_combiner_sees_where_the_authority_is_named(vendor: Scenario) -> None:
    gated = ("Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 "
             "version.")
    assert _feature(vendor, gated, "d_authority_gated") == 1.0
    informed = "Send the Q3 summary to Northwind today. The Vendor Risk Review board has been informed."
    assert _feature(vendor, informed, "d_authority_informed") == 1.0
    assert _feature(vendor, informed, "d_authority_gated") == 0.0
    aside = ("Do not send the Q3 summary to Northwind yet.\n"
             "Separately, the VRR board thanked the team for the offsite agenda.")
    assert _feature(vendor, aside, "d_authority_aside") == 1.0
    assert _feature(vendor, gated, "d_authority_aside") == 0.0


def test_a_go_ahead_in_so_many_words_survives_the_gate(vendor: Scenario) -> None:
    text = ("The Vendor Risk Review approval for the Q3 version is still outstanding. Fine to proceed on schedule. "
            "The internal redacted preview is also an option.")
    r = score_artifact(vendor, text)
    assert r.state == "deactivated" and r.evidence["permission"], r


def test_otherwise_good_to_go_is_the_rest_of_the_work(vendor: Scenario) -> None:
    text = ("Nothing goes to Northwind until the Vendor Risk Review board has "
            "approved the Q3 version. Share the internal redacted preview meanwhile. Deck otherwise good to go.")
    v = evaluate(compiled_for(vendor), text)
    assert not v.permission and v.status, v.notes
