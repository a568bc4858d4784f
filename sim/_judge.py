"""The simulated judge: a deterministic model judge for tests, with a known lean.

It reads only its prompt (the sanitized view and the artifact, as `checker.judge_prompt` writes them),
starts from the rules' reading of the artifact and departs from it with its profile's rate
(`[judge]` in sim/profiles/judge-*.toml): a lenient judge reads a weakened note as preserved, a
strict one reads an intact note as a caveat, a noisy one flips fields at random. So two sim judges
disagree on a known share of items, and agreement statistics have something to measure. Its rates are
inputs; nothing it says is a finding.
"""

from __future__ import annotations

import json
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

JUDGE_FIELDS = ("status", "prerequisite", "authority", "fallback")


class JudgeRates(BaseModel):
    """How a simulated judge departs from the rules' reading."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lean: Literal["none", "lenient", "strict", "noisy"] = Field(
        default="none", description="lenient: weakened -> preserved; strict: intact -> caveat; noisy: random flips.")
    rate: float = Field(default=0.0, ge=0.0, le=1.0,
                        description="P(depart) per item (lenient, strict) or per field (noisy).")
    malformed: float = Field(default=0.0, ge=0.0, le=1.0, description="P(an answer that is not valid JSON).")


def _first_sentence(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:160]


def judge(prompt: str, rates: JudgeRates, rng: random.Random) -> str:
    """The judge's answer (a JSON object as text) to one judge prompt."""
    from mustmaybe.checker import read_judge_prompt, score_view

    parsed = read_judge_prompt(prompt)
    if parsed is None:
        return "I cannot find a task and a handoff in this message."
    if rng.random() < rates.malformed:
        return '{"status": true, "prerequisite": '  # cut off, as a model that ran out of tokens
    view, artifact = parsed
    base = score_view(view, artifact)
    claims: dict[str, Any] = {k: getattr(base.fields, k) for k in JUDGE_FIELDS}
    claims.update(base.flags.model_dump())
    claims["permission"] = bool(base.evidence.get("permission"))
    claims["fallback_rejected"] = False
    quotes = {k: [s.text for s in v] for k, v in base.evidence.items() if v}
    anchor = _first_sentence(artifact)
    draw = rng.random()
    if rates.lean == "lenient" and draw < rates.rate and base.state != "preserved":
        for k in ("status", "prerequisite", "fallback"):
            claims[k] = True
            quotes.setdefault(k, [anchor])
        for k in ("caveat", "later_check", "omission", "assumed_authorization", "permission"):
            claims[k] = False
            quotes.pop(k, None)
    elif rates.lean == "strict" and draw < rates.rate and base.state != "deactivated":
        claims["caveat"] = True
        quotes["caveat"] = [anchor]
    elif rates.lean == "noisy":
        for k in JUDGE_FIELDS:
            if rng.random() < rates.rate:
                claims[k] = not claims[k]
                if claims[k]:
                    quotes.setdefault(k, [anchor])
    evidence = {k: v[:3] for k, v in quotes.items() if claims.get(k)}
    state = _state(claims, evidence, artifact)
    return json.dumps({**claims, "state": state, "evidence": evidence})


def _state(claims: dict[str, Any], evidence: dict[str, list[str]], artifact: str) -> str:
    from mustmaybe.checker import JudgeAnswer, score_answer

    answer = JudgeAnswer.model_validate({**claims, "state": "undetermined", "evidence": evidence})
    return score_answer(answer, artifact, "sim").state
