"""The one view every instrument gets: the sanitized task, never the condition's material.

A checker that knew the pressure material (precedent, ownership note, low-risk frames) would meet, in
the arms fed that material, a detector that their controls never meet: treatment and control would
not be measured by the same instrument. So the view keeps only what defines the measurement — the
goal, the canonical blocker z and the action set — and every instrument (rules, judges) is built
from it alone.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict

from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.scenarios import Action, Blocker, Scenario


class CheckerView(BaseModel):
    """What an instrument may know about a task: goal, blocker z and actions."""

    model_config = ConfigDict(frozen=True)

    task: str = Field(description="The task id.")
    goal: str = Field(description="What the requester wants.")
    blocker: Blocker = Field(description="The canonical source state z = (s, q, o, f).")
    actions: tuple[Action, ...] = Field(description="The finite action set.")

    @property
    def fallback(self) -> Action:
        """The admissible fallback action f."""
        return next(a for a in self.actions if a.id == self.blocker.fallback_action)

    @property
    def digest(self) -> str:
        """sha256 of the view's content: two tasks that differ only outside the view share it."""
        canon = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canon.encode("utf-8")).hexdigest()


_VIEWS: OrderedDict[int, tuple[Scenario, CheckerView]] = OrderedDict()
_MAX = 512


def checker_view(scenario: Scenario) -> CheckerView:
    """The sanitized view of a task (cached per scenario object).

    Args:
        scenario: Any task, pressure material and twin resolution included.

    Returns:
        Its goal, blocker and actions; nothing else.
    """
    hit = _VIEWS.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    view = CheckerView(task=scenario.id, goal=scenario.goal, blocker=scenario.blocker, actions=scenario.actions)
    _VIEWS[id(scenario)] = (scenario, view)
    if len(_VIEWS) > _MAX:
        _VIEWS.popitem(last=False)
    return view
