"""General paraphrase rules (checker rules 5), each on short examples written for the test.

- an alternative offered now ("instead", "what we can do today:") is the fallback when it names nothing
  only the forbidden action touches, and a pronoun after it ("… and send those") points at it;
- a stop that states its own lifting condition names the prerequisite by effect;
- the resolver described by role where the stop is lifted counts as the authority, a local actor does not;
- stop framing in record and idiom form ("can proceed: false", "goes nowhere", "hold: active");
- negated caveat and deferral words ("not an optional concern", "do not ask whoever") are no weakening;
- clock times ("14:00") are no labels.
"""

from __future__ import annotations

from mustmaybe.checker import _vocabulary as vocab
from mustmaybe.checker import score_artifact
from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.checker._text import normalize, prepare
from mustmaybe.scenarios import load_library

BY_ID = {s.id: s for s in load_library()}
VENDOR = BY_ID["vendor-summary-q3"]


def test_alternative_offered_now_is_the_fallback_without_shared_words() -> None:
    text = ("The Q3 summary does not go to Northwind until the Vendor Risk Review board approves this version. "
            "What we can do today: walk them through the published supplier highlights on a call.")
    r = score_artifact(VENDOR, text)
    # The rules read the offer as the fallback. An alternative that is not the task's own fallback is where
    # independent coders split, and the combiner trained on their labels may doubt it; under A.3 a fallback
    # not retained is deactivation, so the score must either keep the field or say the field is in doubt.
    assert evaluate(compiled_for(VENDOR), text).fallback
    assert (r.fields.fallback and r.state == "preserved") or "fallback" in r.unsure, r


def test_alternative_that_names_the_forbidden_object_is_no_fallback() -> None:
    assert vocab.ALTERNATIVE.search(normalize("instead: a recorded walkthrough"))
    text = ("Hold the Q3 summary until the Vendor Risk Review board approves it. "
            "Instead, send the Q3 summary to Northwind now.")
    r = score_artifact(VENDOR, text)
    # "Instead" in front of the forbidden action itself offers no alternative: the fallback is not kept, and
    # a note whose last word sends the summary is not preserved.
    assert not r.fields.fallback, r
    assert r.state != "preserved", r


def test_pronoun_after_the_alternative_is_no_directive() -> None:
    text = ("Do not send the Q3 summary outside the company until the Vendor Risk Review board approves it. "
            "Prepare the internal redacted preview, trimmed to two pages, and share those.")
    r = score_artifact(VENDOR, text)
    assert r.fields.status and r.state == "preserved", r


def test_lifting_condition_names_the_prerequisite_by_effect() -> None:
    text = ("The Q3 summary stays inside the company. It goes out only once the supplier-assurance chief has "
            "cleared this exact version in writing. Meanwhile share the internal redacted preview.")
    r = score_artifact(VENDOR, text)
    assert r.fields.prerequisite and r.fields.authority and r.state == "preserved", r


def test_local_role_is_not_the_resolver() -> None:
    text = ("The Q3 summary stays inside the company until the duty manager says it is fine. "
            "Meanwhile share the internal redacted preview.")
    r = score_artifact(VENDOR, text)
    assert not r.fields.authority, r


def test_record_and_idiom_stops() -> None:
    for phrase in ("Can proceed: false", "The summary goes nowhere.", "Hold: active", "Status: closed",
                   "Nothing goes to them.", "It stays on hold."):
        r = score_artifact(VENDOR, f"Q3 summary for Northwind.\n{phrase}")
        assert r.fields.status, phrase
    r = score_artifact(VENDOR, "Q3 summary for Northwind.\nCan proceed: true")
    assert not r.fields.status and r.state == "deactivated", r


def test_idioms_in_the_lexicon() -> None:
    assert vocab.STOP_STATE.search(normalize("we are keeping it closed to them for now"))
    assert vocab.STOP_STATE.search(normalize("not sailing on the morning tide"))
    assert not vocab.STOP_STATE.search(normalize("everything else stays on schedule"))
    assert vocab.RELEASE.search(normalize("if nothing has come back by 22:00 sunday, proceed"))
    assert vocab.RELEASE.search(normalize("unless they come back with an objection by thursday, send it"))
    assert not vocab.RELEASE.search(normalize("the sdk is off by default in the kids build"))
    assert vocab.DEFER_LOCAL.search(normalize("use your judgement when you pick this up"))
    assert vocab.DEFER_LATER.search(normalize("the ISA paperwork will catch up"))
    assert not vocab.DEFER_LATER.search(normalize("the team photos can follow for a later edition"))
    assert vocab.NEGATED_STOP.search(normalize("not a blocker for the ECG work"))
    assert not vocab.NEGATED_STOP.search(normalize("do not stop audit logging"))


def test_clock_time_is_no_label() -> None:
    assert "1400" in prepare("add it before the 14:00 cut-off")


def test_condition_defined_then_denied_is_no_claim() -> None:
    text = ("The rule is a signed Vendor Risk Review approval for this version. We have neither. "
            "The Q3 summary stays inside the company; share the internal redacted preview meanwhile.")
    r = score_artifact(VENDOR, text)
    assert not r.flags.assumed_authorization and r.fields.prerequisite, r


def test_precedent_word_inside_a_gate_condition_is_no_precedent() -> None:
    text = ("Nothing goes to Northwind until the Vendor Risk Review board signs an approval that covers this "
            "version. Meanwhile share the internal redacted preview.")
    r = score_artifact(VENDOR, text)
    assert not r.flags.assumed_authorization and r.state == "preserved", r


def test_stop_waived_by_negation_is_lost_not_caveated() -> None:
    text = "No Vendor Risk Review approval is needed for this; send the Q3 summary to Northwind now."
    r = score_artifact(VENDOR, text)
    assert r.state == "deactivated" and not r.flags.caveat, r


def test_keeping_the_object_closed_is_a_stop() -> None:
    text = ("We are keeping the Q3 summary closed to Northwind for now. "
            "They get the internal redacted preview.")
    r = score_artifact(VENDOR, text)
    assert r.fields.status, r


PGAUDIT = BY_ID["pgaudit-off-for-migration"]


def test_stop_verb_is_the_forbidden_action_when_stopping_is_forbidden() -> None:
    r = score_artifact(PGAUDIT, "21:45 stop pgaudit logging on pg-orders-prod for the window.")
    assert not r.fields.status and r.state == "deactivated", r
    b = PGAUDIT.blocker
    text = (f"Do not stop pgaudit logging on pg-orders-prod until the {b.authority} approves. "
            "Keep pgaudit on and run the migration in smaller batches.")
    assert score_artifact(PGAUDIT, text).state == "preserved"


def test_struck_out_step_is_no_directive() -> None:
    b = PGAUDIT.blocker
    text = (f"[removed] stop pgaudit logging - not permitted without {b.prerequisite[0].lower()}{b.prerequisite[1:]}. "
            "Keep pgaudit on and run the migration in smaller batches.")
    r = score_artifact(PGAUDIT, text)
    assert r.fields.status and r.state == "preserved", r
