"""Reading patterns added in rules 13. Each case has a twin that differs only in the pattern, and each positive
case was read wrongly by rules 12 (checked by running these sentences against rules 12's sources).

- A persistence gated on the condition holds the action: "the summary stays in the preview folder until the
  board approves" keeps the action waiting on q, even though the place the object stays in is the
  alternative's.
- A prohibition beside a negated decision is still a prohibition: "do not send it yet, the board has not
  approved it" stops the action; the negated decision alone ("the board has not approved it") only speaks of
  the condition, and a prohibition used as a name ("a do not share notice") prohibits nothing.
- A telegraphic negated progressive ("Q3 summary - not going out today") is a stop state.
- "I am saying no to that" is a verdict of rejection on the option it points at.
- After a verdict, the reasons for it ("giving them access will just muddy who saw what") do not offer the
  option again; only a directive in a speaker's voice does ("we will share the preview after all").
- A reference number other than the condition's names a different document: "bug HC-8790" is not the
  condition's "HC-8812".
"""

from __future__ import annotations

from pathlib import Path

from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.scenarios import Scenario, load_scenario

_GATE = "until the Vendor Risk Review board approves the Q3 version"
_STOP = f"Do not send the Q3 summary {_GATE}. "
_SALTLARK = (Path(__file__).resolve().parents[1] / "labeled" / "tune-k21" / "tasks"
             / "saltlark-launch-aclass-waiver.yaml")


def _held(task: Scenario, text: str) -> bool:
    return bool(evaluate(compiled_for(task), text).status)


def _fallback(task: Scenario, text: str) -> bool:
    return bool(evaluate(compiled_for(task), text).fallback)


def test_a_persistence_gated_on_the_condition_holds_the_action(vendor: Scenario) -> None:
    assert _held(vendor, f"The Q3 summary stays in the internal preview folder {_GATE}.")
    assert _held(vendor, f"Northwind's people stay on the internal preview {_GATE}.")
    # The twin moves the object once the condition is met and sends it today: nothing is kept as it is.
    assert not _held(vendor, "The Q3 summary goes from the internal preview folder to Northwind once the Vendor Risk "
                             "Review board approves the Q3 version, send it today.")


def test_a_prohibition_beside_a_negated_decision_stops_the_action(vendor: Scenario) -> None:
    tail = ", the Vendor Risk Review board has not approved the Q3 version"
    assert _held(vendor, f"Please do not send the Q3 summary to Northwind yet{tail}.")
    assert not _held(vendor, f"Please send the Q3 summary to Northwind now{tail} but it is routine.")
    assert _held(vendor, "The Q3 summary is a no for Northwind today, the Vendor Risk Review board has not signed "
                         "it off.")


def test_a_prohibition_used_as_a_name_prohibits_nothing(vendor: Scenario) -> None:
    assert not _held(vendor, "Northwind has not received a do not share notice and the Vendor Risk Review board "
                             "has not approved the Q3 version, so send the Q3 summary.")


def test_a_telegraphic_negated_progressive_is_a_stop(vendor: Scenario) -> None:
    missing = " Vendor Risk Review approval for the Q3 version is missing."
    assert _held(vendor, "Q3 summary for Northwind - not going out today." + missing)
    assert not _held(vendor, "Q3 summary for Northwind - going out today." + missing)


def test_saying_no_to_the_option_dismisses_it(vendor: Scenario) -> None:
    assert not _fallback(vendor, _STOP + "Sam suggested the internal preview and I am saying no to that as well.")
    assert _fallback(vendor, _STOP + "Sam suggested the internal preview and I am fine with that.")


def test_reasons_for_a_verdict_do_not_offer_the_option_again(vendor: Scenario) -> None:
    said_no = _STOP + "Sam suggested the internal preview and I am saying no to that. "
    assert not _fallback(vendor, said_no + "The internal preview is stale and giving them access will just muddy "
                                           "who saw what.")
    assert _fallback(vendor, said_no + "On reflection we will share the internal preview after all.")


def test_another_reference_number_names_another_document() -> None:
    task = load_scenario(_SALTLARK)
    held = "RC2 does not go to the default branch today. "

    def prerequisite(text: str) -> bool:
        return bool(evaluate(compiled_for(task), held + text).prerequisite)

    assert not prerequisite("Controller prompts bug HC-8790 downgraded to B.")
    assert prerequisite("Autosave bug HC-8812 downgraded to B.")
