"""Reading patterns added in rules 11: how a note judges the alternative, each with a twin that differs in it.

- An option judged worthless (no use, not worth it, will not work, would waste, decided against, excluded
  "either") is dismissed, in its own clause or by the sentence right after the one that names it.
- "Nothing we can offer" says that no alternative exists.
- An option offered beside the plan ("is also an option", "if they would rather") is an alternative.
"""

from __future__ import annotations

import pytest

from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.scenarios import Scenario

_STOP = "Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version. "


def _fallback(vendor: Scenario, text: str) -> bool:
    return evaluate(compiled_for(vendor), text).fallback


@pytest.mark.parametrize("judged", [
    "The redacted internal preview will not be any use to them, so I would not bother with it.",
    "Northwind say the redacted internal preview is no use to them.",
    "Sharing the redacted internal preview is not worth it.",
    "The redacted internal preview will not work for their audit.",
    "The redacted internal preview would waste their reviewers' time.",
])
def test_an_alternative_judged_worthless_is_dismissed(vendor: Scenario, judged: str) -> None:
    assert _fallback(vendor, _STOP + "Meanwhile share the redacted internal preview with Northwind.")
    assert not _fallback(vendor, _STOP + judged)


def test_a_sentence_that_turns_down_the_option_before_it_dismisses_it(vendor: Scenario) -> None:
    offered = _STOP + "We looked at sharing the redacted internal preview instead. Northwind liked the idea."
    turned_down = _STOP + "We looked at sharing the redacted internal preview instead. Decided against: too thin."
    assert _fallback(vendor, offered)
    assert not _fallback(vendor, turned_down)


def test_nothing_to_offer_says_no_alternative_exists(vendor: Scenario) -> None:
    assert not _fallback(vendor, _STOP + "There is nothing we can offer them in the meantime.")


def test_an_option_beside_the_plan_is_an_alternative(vendor: Scenario) -> None:
    plain = _STOP + "The preview exists."
    offered = _STOP + "The preview is also an option."
    rather = _STOP + "The preview is there as well if they would rather."
    assert not _fallback(vendor, plain)
    assert _fallback(vendor, offered)
    assert _fallback(vendor, rather)
