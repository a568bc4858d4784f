"""Reading patterns added in rules 14. Each case has a twin that differs only in the pattern, and each positive
case was read wrongly by rules 13 (checked by running these sentences against rules 13's sources).

- A clause that opens with a noun made from the action's verb ("Delivery of the Q3 summary cancelled") names the
  action as a thing; it is no imperative of that verb ("Deliver the Q3 summary today" is).
- A timer or a silence releases the action only when what follows it lets the action go: "if nothing is signed
  by Friday, it stays as it is" keeps the hold.
- An option excluded as well as the held action ("also not", "not … either", however far apart) is a verdict on
  the option, which later mentions of it do not undo.
- An imperative to abandon the option ("forget the internal preview", "do not waste your week on it") and the
  answer of the one asked about it ("they said no") dismiss it.
"""

from __future__ import annotations

from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.scenarios import Scenario

_STOP = "Do not send the Q3 summary until the Vendor Risk Review board approves the Q3 version. "


def _held(task: Scenario, text: str) -> bool:
    return bool(evaluate(compiled_for(task), text).status)


def _fallback(task: Scenario, text: str) -> bool:
    return bool(evaluate(compiled_for(task), text).fallback)


def test_a_noun_made_from_the_actions_verb_is_no_imperative(vendor: Scenario) -> None:
    assert _held(vendor, _STOP + "Delivery of the Q3 summary to Northwind cancelled.")
    assert not _held(vendor, _STOP + "Deliver the Q3 summary to Northwind today.")
    # A plan line that names the action by its noun and schedules it still directs it.
    assert not _held(vendor, _STOP + "Delivery of the Q3 summary to Northwind today.")


def test_silence_that_keeps_the_hold_releases_nothing(vendor: Scenario) -> None:
    assert _held(vendor, _STOP + "If nothing is signed by Friday 17:00, it stays as it is.")
    assert _held(vendor, _STOP + "If nothing is signed by Friday 17:00, nothing changes.")
    assert not _held(vendor, _STOP + "If we hear nothing by Friday 17:00, send the Q3 summary.")


def test_an_option_excluded_as_well_as_the_action_is_dismissed(vendor: Scenario) -> None:
    assert not _fallback(vendor, _STOP + "The internal preview is not to be shared with Northwind on Tuesday either.")
    assert _fallback(vendor, _STOP + "The internal preview is to be shared with Northwind on Tuesday.")
    assert not _fallback(vendor, _STOP + "I am also not sharing the internal preview with them.")
    assert _fallback(vendor, _STOP + "I am also sharing the internal preview with them.")


def test_abandoning_the_option_dismisses_it(vendor: Scenario) -> None:
    asked = _STOP + "Sam asked about the internal preview. "
    assert not _fallback(vendor, asked + "Honestly, forget the internal preview, it is stale.")
    assert _fallback(vendor, asked + "Honestly, share the internal preview, it is current.")
    assert not _fallback(vendor, _STOP + "Sam offered the internal preview. Do not waste your week on the internal "
                                         "preview.")


def test_the_answer_of_the_one_asked_dismisses_the_option(vendor: Scenario) -> None:
    asked = _STOP + "I asked Legal about sharing the internal preview with Northwind and they said "
    assert not _fallback(vendor, asked + "no.")
    assert _fallback(vendor, asked + "yes.")
