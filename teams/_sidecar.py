"""The sidecar checker: scores every transmitted message as the team runs.

It is an InterventionHandler on the episode's own runtime (AUTOGEN_NOTES §4, option B), so it sees
each message before the next agent's model call. The agents never see the scores. It must never
raise or drop a message: either would hang the team.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage
from autogen_core import DefaultInterventionHandler

from mustmaybe import tracing
from mustmaybe.checker import CHECKER_VERSION, score_artifact
from mustmaybe.records import ArtifactScore, FieldProfile, Flags, Hop, Role, twin_reading
from mustmaybe.scenarios import Scenario

# The metadata key a single-call trajectory (teams/_trajectory.py) marks its published stages with.
STAGE_MARK = "mustmaybe_trajectory_stage"

warnings.filterwarnings("ignore", message="Intervention handler on_response returned None")
log = logging.getLogger(__name__)

HopCallback = Callable[[Hop], None]
ReviewObserver = Callable[[ArtifactScore], None]


_UNSCORED = ArtifactScore(
    fields=FieldProfile(status=False, prerequisite=False, authority=False, fallback=False),
    complete=False, state="undetermined", flags=Flags(), retention_score=0.0,
)


def safe_score(scenario: Scenario, text: str, errors: list[str]) -> ArtifactScore:
    """Score `text`; a checker failure is kept as an error and an undetermined score, never a lost hop."""
    if not tracing.enabled():
        return _safe_score(scenario, text, errors)
    with tracing.span("mustmaybe.checker.score", {"mustmaybe.checker": CHECKER_VERSION, "mustmaybe.task": scenario.id,
                                                  "mustmaybe.text.chars": len(text)}) as span:
        n = len(errors)
        score = _safe_score(scenario, text, errors)
        span.set_attributes(score_attributes(score))
        if len(errors) > n:
            span.set_attribute("error.type", "checker_failed")
        return score


# The checker is a pure function of task and text, so a text seen before for the same task object gets the
# score it got then (scores are frozen models; records serialize them the same). Identical messages are
# common: the reviewer's statement of one task across seeds and conditions at temperature 0, or a fixed-answer
# endpoint. Bounded: the last _MEMO_TEXTS texts of each of the last _MEMO_TASKS tasks, texts up to
# _MEMO_CHARS characters. MUSTMAYBE_SCORE_MEMO=off scores every message afresh.
_MEMO_TASKS, _MEMO_TEXTS, _MEMO_CHARS = 256, 256, 20_000
_MEMO: OrderedDict[int, tuple[Scenario, OrderedDict[str, ArtifactScore]]] = OrderedDict()
S = TypeVar("S")


def _memo_wanted() -> bool:
    return os.environ.get("MUSTMAYBE_SCORE_MEMO", "on").strip().lower() not in ("off", "0", "false", "no")


def _memo_of(scenario: Scenario, table: OrderedDict[int, tuple[Scenario, OrderedDict[str, S]]]) -> OrderedDict[str, S]:
    """The task's texts in `table` (made if new; the least recently used task goes past _MEMO_TASKS)."""
    hit = table.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        table.move_to_end(id(scenario))
        return hit[1]
    texts: OrderedDict[str, S] = OrderedDict()
    table[id(scenario)] = (scenario, texts)
    if len(table) > _MEMO_TASKS:
        table.popitem(last=False)
    return texts


def memoized(table: OrderedDict[int, tuple[Scenario, OrderedDict[str, S]]], scenario: Scenario, text: str,
             compute: Callable[[Scenario, str], S]) -> S:
    """`compute(scenario, text)` (a pure function of task and text), or what it returned for this text before.

    The bounds and the switch of the score memo: texts up to _MEMO_CHARS characters, the last _MEMO_TEXTS of
    each task; MUSTMAYBE_SCORE_MEMO=off computes every time. An exception is raised as it comes, never kept.
    """
    memo = _memo_of(scenario, table) if len(text) <= _MEMO_CHARS and _memo_wanted() else None
    if memo is None:
        return compute(scenario, text)
    seen = memo.get(text)
    if seen is not None:
        memo.move_to_end(text)
        return seen
    value = memo[text] = compute(scenario, text)
    if len(memo) > _MEMO_TEXTS:
        memo.popitem(last=False)
    return value


def _safe_score(scenario: Scenario, text: str, errors: list[str]) -> ArtifactScore:
    memo = _memo_of(scenario, _MEMO) if len(text) <= _MEMO_CHARS and _memo_wanted() else None
    if memo is not None and (seen := memo.get(text)) is not None:
        memo.move_to_end(text)
        return seen
    try:
        score = score_artifact(scenario, text)
    except Exception as exc:
        log.exception("checker failed")
        errors.append(f"{type(exc).__name__}: {exc}")
        return _UNSCORED
    if memo is not None:
        memo[text] = score
        if len(memo) > _MEMO_TEXTS:
            memo.popitem(last=False)
    return score


def score_attributes(score: ArtifactScore) -> dict[str, object]:
    """A score as span attributes: the state, completeness, retention and the field profile R."""
    f = score.fields
    return {"mustmaybe.state": score.state, "mustmaybe.complete": score.complete,
            "mustmaybe.retention_score": score.retention_score, "mustmaybe.fields.status": f.status,
            "mustmaybe.fields.prerequisite": f.prerequisite, "mustmaybe.fields.authority": f.authority,
            "mustmaybe.fields.fallback": f.fallback}


def score_artifact_text(scenario: Scenario, text: str, hops: list[Hop], errors: list[str]) -> ArtifactScore:
    """The artifact's score: the hop that carried this exact text was scored already (the checker is
    a pure function of task and text), so reuse that; score afresh only if none did, or it failed."""
    for hop in reversed(hops):
        if hop.text == text and hop.score is not _UNSCORED:
            return hop.score
    return safe_score(scenario, text, errors)


class Sidecar(DefaultInterventionHandler):
    """Collects and scores each agent response published to the group topic."""

    def __init__(self, scenario: Scenario, roles: dict[str, Role], on_hop: HopCallback | None = None, *,
                 twin: bool = False, on_review: ReviewObserver | None = None) -> None:
        self.scenario = scenario
        self.roles = roles
        self.on_hop = on_hop
        self.twin = twin
        # W: trusted code that commits the gate once the reviewer's statement is scored; it runs here,
        # before the next agent's call, so every later hop sees the committed record's projection.
        self.on_review = on_review
        self.hops: list[Hop] = []
        self.errors: list[str] = []

    async def on_publish(self, message: Any, *, message_context: Any) -> Any:
        try:
            topic = message_context.topic_id
            # An agent's response to its peers (AutoGen's GroupChatAgentResponse, a private class) is
            # the group-topic message that carries a public `Response`.
            response = getattr(message, "response", None)
            if topic is not None and topic.type.startswith("group_topic_") and isinstance(response, Response):
                self._record(response)
        except Exception as exc:  # never let scoring break or hang the team
            log.exception("sidecar failed to score a message")
            self.errors.append(f"{type(exc).__name__}: {exc}")
        return message

    async def on_response(self, message: Any, *, sender: Any, recipient: Any) -> Any:
        # The default returns None for RPC replies, which the runtime warns about on every turn.
        return message

    def _record(self, response: Response) -> None:
        # A single-call trajectory (teams/_trajectory.py) publishes its earlier stages as marked inner
        # messages of its one response; each is a hop, scored before the final stage.
        for inner in response.inner_messages or ():
            if isinstance(inner, BaseChatMessage) and inner.metadata.get(STAGE_MARK):
                self.observe(inner.source, inner.to_text())
        chat = response.chat_message
        self.observe(chat.source, chat.to_text())

    def observe(self, source: str, text: str) -> None:
        """Score one transmitted message from agent `source`: the AutoGen handler above and the LangGraph
        nodes (teams/_langgraph.py, before they hand the message on) both come through here."""
        role = self.roles.get(source)
        if role is None:  # pressure material (the plan board), not a carrier of the blocker
            return
        if not tracing.enabled():
            self._hop(role, source, text)
            return
        with tracing.span("mustmaybe.hop", {"mustmaybe.hop.index": len(self.hops), "mustmaybe.hop.role": role,
                                            "mustmaybe.hop.sender": source}) as span:
            hop = self._hop(role, source, text)
            span.set_attributes(score_attributes(hop.score))

    def _hop(self, role: Role, source: str, text: str) -> Hop:
        score = safe_score(self.scenario, text, self.errors)
        hop = Hop(index=len(self.hops), role=role, sender=source, text=text,
                  score=twin_reading(score) if self.twin else score)
        self.hops.append(hop)
        if role == "reviewer" and self.on_review is not None:
            self.on_review(hop.score)
        if self.on_hop is not None:
            try:
                self.on_hop(hop)
            except Exception:
                log.exception("on_hop callback failed")
        return hop
