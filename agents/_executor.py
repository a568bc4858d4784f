"""The executor's structured answer: its schema, and reading an answer into a decision.

Which action an answer that does not parse asked for is the checker's to say (`score_action`,
the paper's rule in `mustmaybe.teams`); this module only reads the JSON and names the problem.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Literal, cast

from pydantic import BaseModel, Field, ValidationError, create_model

from mustmaybe.scenarios import Scenario


class ExecutorDecision(BaseModel):
    """What the executor returns: one action id, whether it saw a blocker, and why."""

    action: str = Field(description="One action id from the list.")
    blocker_recognized: bool = Field(description="True if the handoff said something blocks the requested action.")
    rationale: str = Field(description="One sentence.")


RATIONALE_MAX_CHARS = 240


def decision_model_for(scenario: Scenario) -> type[ExecutorDecision]:
    """ExecutorDecision whose `action` is limited to this task's action ids.

    Servers that enforce a schema with a grammar (llama.cpp) then cannot return an id that does not
    exist; the parser still checks, since other servers only take the schema as a hint.
    """
    return _decision_model(tuple(a.id for a in scenario.actions))


@functools.lru_cache(maxsize=1024)
def _decision_model(ids: tuple[str, ...]) -> type[ExecutorDecision]:
    # Built once per action list: pydantic model construction costs milliseconds per episode.
    action_type: Any = Literal[ids]  # type: ignore[valid-type]
    model = create_model(
        "ExecutorDecision",
        __base__=ExecutorDecision,
        action=(action_type, Field(description="One action id from the list.")),
        # Bounded so a grammar-constrained answer closes its JSON within a small max_tokens.
        rationale=(str, Field(description="One sentence.", max_length=RATIONALE_MAX_CHARS)),
    )
    return cast(type[ExecutorDecision], model)


class ParsedDecision(BaseModel):
    """The executor's answer as read: the decision when it parses, else what is wrong with it."""

    decision: ExecutorDecision | None = Field(description="The answer, when it is a valid decision.")
    problem: str | None = Field(default=None, description="Why the answer is not a valid decision.")
    recognized: bool = Field(default=False, description="`blocker_recognized`, read even from a bad answer.")
    rationale: str = Field(default="", description="The rationale, or the start of a free-text answer.")

    @property
    def parse_ok(self) -> bool:
        return self.decision is not None


_RECOMMENDED = re.compile(r"recommended action\s*[:\-]\s*`?([a-z0-9_]+)", re.IGNORECASE)


def first_json_object(text: str) -> dict[str, object] | None:
    """The first complete JSON object in a model answer (answers often wrap it in prose or a code fence)."""
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                # A quote ends the string only when the character before it did not escape it.
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        obj = json.loads(text[start : i + 1])
                    except json.JSONDecodeError:
                        break
                    return obj if isinstance(obj, dict) else None
        start = text.find("{", start + 1)
    return None


def recommended_action(scenario: Scenario, handoff: str) -> str | None:
    """The action id a handoff recommends ('Recommended action: <id>'), if it names a real action."""
    ids = {a.id for a in scenario.actions}
    for m in _RECOMMENDED.finditer(handoff):
        if m.group(1) in ids:
            return m.group(1)
    return None


def parse_decision(scenario: Scenario, raw: str) -> ParsedDecision:
    """Read the executor's answer: a JSON decision naming one of the task's action ids, or the problem."""
    ids = {a.id for a in scenario.actions}
    obj = first_json_object(raw)
    problem: str
    if obj is not None:
        try:
            d = ExecutorDecision.model_validate(obj)
        except ValidationError as exc:
            problem = "wrong shape: " + "; ".join(
                f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()
            )
        else:
            if d.action in ids:
                return ParsedDecision(decision=d, recognized=d.blocker_recognized, rationale=d.rationale)
            problem = f"unknown action id '{d.action}'"
    else:
        problem = "no JSON object in the answer" if raw.strip() else "empty answer"
    recognized = bool(obj.get("blocker_recognized")) if isinstance(obj, dict) else False
    rationale = str(obj.get("rationale", "")) if isinstance(obj, dict) else raw.strip()[:500]
    return ParsedDecision(decision=None, problem=problem, recognized=recognized, rationale=rationale)
