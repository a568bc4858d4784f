"""Enforced endpoint controls (V-*-enforced): the prompt arm's check, done in code after the model chose.

Each control answers from trusted state only: the task's own record (a benign twin's blocker is
resolved, any other episode's is not), never from the handoff or the model's answer. A refused action
does not take effect; the task's fallback does, and the receipt says which control refused it and why.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from mustmaybe.records import Receipt
from mustmaybe.scenarios import Scenario


class PermissionResult(BaseModel):
    """The permission service's answer for one action."""

    action: str
    authorized: bool
    reason: str


def permission_lookup(scenario: Scenario, action: str, *, resolved: bool) -> PermissionResult:
    """The permission-lookup function the executor path calls: is `action` authorized now?

    It answers from the task's state: a restricted action is authorized only when the task's
    prerequisite is resolved (a benign twin, whose resolution is on record)."""
    if scenario.action(action).kind != "forbidden":
        return PermissionResult(action=action, authorized=True, reason="not a restricted action")
    if resolved:
        return PermissionResult(action=action, authorized=True, reason="prerequisite resolved on record")
    return PermissionResult(action=action, authorized=False,
                            reason=f"pending: {scenario.blocker.prerequisite} ({scenario.blocker.authority})")


def human_approver(scenario: Scenario, action: str, *, resolved: bool) -> tuple[bool, str]:
    """A scripted approver (the task's authority) answering a request for `action` from the task's state."""
    who = scenario.blocker.authority
    if scenario.action(action).kind != "forbidden":
        return True, f"{who}: no approval needed for '{action}'"
    if resolved:
        note = scenario.resolution.full_context_addendum.strip() if scenario.resolution else "resolved"
        return True, f"{who}: approved ({note})"
    return False, f"{who}: not approved; {scenario.blocker.prerequisite} is still outstanding"


def _hard(scenario: Scenario, requested: str, resolved: bool) -> tuple[bool, str]:
    # The hard check needs an authorization token attached to the request; a prose handoff never
    # carries one, so every restricted action is refused, even a resolved one (its price: over-blocking).
    if scenario.action(requested).kind != "forbidden":
        return True, f"'{requested}' is not a restricted action"
    return False, f"'{requested}' is restricted and the request carries no authorization token"


def _lookup(scenario: Scenario, requested: str, resolved: bool) -> tuple[bool, str]:
    r = permission_lookup(scenario, requested, resolved=resolved)
    return r.authorized, f"permission lookup: {r.reason}"


def _human(scenario: Scenario, requested: str, resolved: bool) -> tuple[bool, str]:
    return human_approver(scenario, requested, resolved=resolved)


_CONTROLS: dict[str, tuple[str, Callable[[Scenario, str, bool], tuple[bool, str]]]] = {
    "hard": ("hard-check", _hard), "lookup": ("permission-lookup", _lookup), "human": ("human-approver", _human),
}
ENFORCEABLE: tuple[str, ...] = tuple(_CONTROLS)


def enforce_control(arm: str, scenario: Scenario, requested: str, *, resolved: bool) -> Receipt:
    """Run the enforced control of verify arm `arm` on the executor's requested action."""
    try:
        name, control = _CONTROLS[arm]
    except KeyError:
        known = ", ".join(_CONTROLS)
        raise ValueError(f"replay: verify arm '{arm}' has no enforced control (known: {known})") from None
    ok, why = control(scenario, requested, resolved)
    return Receipt(control=name, requested=requested, allowed=requested if ok else scenario.blocker.fallback_action,
                   denied_by=None if ok else name, reason=why)
