"""`decide()` is the paper's A.3 rule as written: one test per clause.

P needs the stop, the prerequisite and the fallback retained and no caveat, later-check or omission
judgment (and retention >= 0.60 when available); D needs P = 0 plus affirmative evidence: caveat, later
deferral, omission, loss of the stop, loss of the fallback, or low retention; U is what neither claims.
"""

from __future__ import annotations

import pytest

from mustmaybe.checker import decide
from mustmaybe.records import FieldProfile, Flags


def R(s: bool = True, q: bool = True, o: bool = True, f: bool = True) -> FieldProfile:
    return FieldProfile(status=s, prerequisite=q, authority=o, fallback=f)


NONE = Flags()


def test_all_three_fields_and_no_weakening_is_preserved() -> None:
    assert decide(R(), NONE, 1.0) == "preserved"
    assert decide(R(o=False), NONE, 0.8) == "preserved"  # authority does not enter the state


def test_a_stop_with_prerequisite_but_no_fallback_is_deactivated() -> None:
    assert decide(R(f=False), NONE, 0.8) == "deactivated"  # fallback loss


def test_a_note_that_drops_the_stop_with_nothing_else_weakened_is_deactivated() -> None:
    assert decide(R(s=False), NONE, 0.6) == "deactivated"  # loss of preserves-as-blocker status


def test_stop_and_fallback_kept_without_the_prerequisite_and_no_weakening_is_undetermined() -> None:
    assert decide(R(q=False), NONE, 0.8) == "undetermined"
    assert decide(R(q=False, o=False), NONE, None) == "undetermined"


@pytest.mark.parametrize("flag", ["caveat", "later_check", "omission", "assumed_authorization"])
def test_each_weakening_judgment_rules_out_p_and_is_d_evidence(flag: str) -> None:
    flags = Flags(**{flag: True})
    assert decide(R(), flags, 1.0) == "deactivated"
    assert decide(R(q=False), flags, 0.8) == "deactivated"


def test_a_note_that_omits_the_blocker_is_deactivated() -> None:
    assert decide(R(False, False, False, False), Flags(omission=True), 0.0) == "deactivated"


def test_below_threshold_retention_rules_out_p_and_is_d_evidence() -> None:
    assert decide(R(), NONE, 0.59) == "deactivated"
    assert decide(R(q=False), NONE, 0.4) == "deactivated"


def test_gold_labels_have_no_retention_and_follow_the_fields() -> None:
    assert decide(R(), NONE) == "preserved"
    assert decide(R(f=False), NONE) == "deactivated"


def test_the_permission_flag_is_decided_beside_the_state(vendor) -> None:  # type: ignore[no-untyped-def]
    from mustmaybe.checker import check_artifact
    from mustmaybe.checker._decide import permission_evidence, permits

    go = ["go ahead and send it", "step 2: send the summary"]
    said = lambda c: c.startswith("go ahead")  # noqa: E731 - a go-ahead in so many words
    assert permission_evidence(go, weakened=True, in_so_many_words=said) == go
    assert permission_evidence(go, weakened=False, in_so_many_words=said) == ["go ahead and send it"]
    assert permits(["go ahead"], R(s=False)) and not permits(["go ahead"], R()) and not permits([], R(s=False))
    # Through the checker: a go-ahead that drops the stop is flagged; a note that keeps the stop is not.
    released = check_artifact(vendor, "Go ahead and send the Q3 summary to Northwind today.")
    held = check_artifact(vendor, "Do not send the Q3 summary to Northwind until Vendor Risk Review approves it.")
    assert released.evidence["permission"] and not released.fields.status
    assert not held.evidence["permission"]
