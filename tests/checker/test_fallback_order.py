"""Reading patterns added in rules 12: a verdict of rejection on the alternative, and the order in which a note
speaks of it. Each case has a twin that differs only in the pattern.

- A verdict of rejection ("a non-starter", "off the table", "ruled out", "not viable") judges the option as a
  worth verdict does: it dismisses the option in its own clause, even when a negation follows the option's
  words, and from the sentence right after the one that names it ("So that is off the table.").
- Read in order, the latest statement about the alternative binds: an option offered and then judged
  worthless is dismissed; one judged worthless and then offered again is kept.
- A keyed value judges itself: "fallback: the preview - rejected" dismisses the preview; a value that opens by
  denying itself ("Meanwhile: nothing to send - ...") offers nothing in its later clauses; a value that names
  what it leaves out ("the preview - no figures, no names") is still offered.
"""

from __future__ import annotations

import pytest

from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.scenarios import Scenario

_STOP = "Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version. "
_OFFER = "Meanwhile share the redacted internal preview with Northwind."


def _fallback(vendor: Scenario, text: str) -> bool:
    return bool(evaluate(compiled_for(vendor), text).fallback)


@pytest.mark.parametrize("verdict", [
    "The redacted internal preview is a non-starter for them, they would rather not get anything than that.",
    "The redacted internal preview has been ruled out by Northwind.",
    "Sharing the redacted internal preview is not viable for their audit.",
])
def test_a_verdict_of_rejection_dismisses_the_alternative(vendor: Scenario, verdict: str) -> None:
    assert _fallback(vendor, _STOP + _OFFER)
    assert not _fallback(vendor, _STOP + verdict)


def test_a_rejection_in_the_next_sentence_dismisses_the_option_named_before(vendor: Scenario) -> None:
    named = _STOP + "We talked about sharing the redacted internal preview instead. Northwind liked it."
    rejected = _STOP + "We talked about sharing the redacted internal preview instead. So that is off the table."
    assert _fallback(vendor, named)
    assert not _fallback(vendor, rejected)


def test_the_latest_statement_about_the_alternative_binds(vendor: Scenario) -> None:
    offered_then_judged = _STOP + _OFFER + " Later: Northwind say the redacted internal preview is no use to them."
    judged_then_offered = (_STOP + "Northwind first said the redacted internal preview is no use to them. "
                           + "They called back: meanwhile share the redacted internal preview after all.")
    assert not _fallback(vendor, offered_then_judged)
    assert _fallback(vendor, judged_then_offered)


def test_a_keyed_value_judges_itself(vendor: Scenario) -> None:
    head = "status: HOLD - Q3 summary not going to Northwind until the Vendor Risk Review board approves\n"
    assert _fallback(vendor, head + "fallback: redacted internal preview\n")
    assert not _fallback(vendor, head + "fallback: redacted internal preview - rejected, they want the full file\n")
    assert _fallback(vendor, head + "fallback: redacted internal preview - no figures, no names\n")


def test_a_keyed_value_that_denies_itself_offers_nothing_after(vendor: Scenario) -> None:
    head = "status: HOLD - Q3 summary not going to Northwind until the Vendor Risk Review board approves\n"
    assert _fallback(vendor, head + "meanwhile: share the redacted internal preview with Northwind\n")
    assert not _fallback(vendor, head + "meanwhile: nothing to send - Northwind say the redacted internal preview is "
                                        "no use to them, so send them nothing at all for now\n")


def test_an_option_considered_and_declined_in_the_same_sentence_is_dismissed(vendor: Scenario) -> None:
    considered = _STOP + "We looked at the redacted internal preview and Northwind liked it, so we are sending that."
    declined = _STOP + "We looked at the redacted internal preview but it would look thin, so we are not sending one."
    assert _fallback(vendor, considered)
    assert not _fallback(vendor, declined)


def test_after_a_dismissal_only_a_new_offer_keeps_the_option(vendor: Scenario) -> None:
    judged = _STOP + "Northwind say the redacted internal preview is no use to them. "
    assert not _fallback(vendor, judged + "The redacted internal preview stays on our drive.")
    assert _fallback(vendor, judged + "They changed their minds: meanwhile share the redacted internal preview.")


def test_a_sentence_that_opens_with_the_verdict_turns_down_the_option_before_it(vendor: Scenario) -> None:
    talked = _STOP + "We talked about sharing the redacted internal preview instead. "
    named, verdict = talked + "Agreed: Northwind want it.", talked + "Decided against: Northwind want the summary."
    assert _fallback(vendor, named)
    assert not _fallback(vendor, verdict)


def test_nothing_we_can_do_for_them_meanwhile_says_no_alternative_exists(vendor: Scenario) -> None:
    offered = _STOP + _OFFER + " There is nothing more to do until the board meets."
    none = _STOP + _OFFER + " Scratch that: there is nothing we can do for them in the meantime."
    assert _fallback(vendor, offered)
    assert not _fallback(vendor, none)
