"""One model judge: the rubric and the view in, a parsed answer out, each judgment asked for once.

A judge is a model role like the others: its client comes from the same pipeline (structured output
in the endpoint's mode, retries honouring Retry-After, the endpoint's shared limits). A judgment is
cached by judge, rubric version, view digest and artifact text, so a rescore or a resumed panel never
pays twice for an answer it already has (the sim backend included: its calls are counted too).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from mustmaybe.checker import RUBRIC, RUBRIC_VERSION, CheckerView, JudgeAnswer, judge_prompt

if TYPE_CHECKING:
    from mustmaybe.agents import CallSharing, RecordingClient, ResponseCache
    from mustmaybe.records import EndpointConfig, ModelSpec

JUDGE_MAX_TOKENS = 700


class JudgeCallError(RuntimeError):
    """The judge's model call failed (after retries): no judgment, never a guessed one."""


class JudgeReply(BaseModel):
    """What one judge answered about one artifact."""

    judge: str
    prompt: str
    raw: str
    answer: JudgeAnswer | None
    problem: str | None = None
    cached: bool = False

    @property
    def parse_ok(self) -> bool:
        return self.answer is not None


def parse_answer(raw: str) -> tuple[JudgeAnswer | None, str | None]:
    """The judge's answer, or why it is unusable."""
    from mustmaybe.agents import first_json_object

    obj = first_json_object(raw)
    if obj is None:
        return None, "no JSON object in the answer" if raw.strip() else "empty answer"
    try:
        return JudgeAnswer.model_validate(obj), None
    except ValidationError as exc:
        return None, "wrong shape: " + "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors())


class ModelJudge:
    """One judge (`judge:<model spec>`); its client is built once and serves every artifact."""

    def __init__(self, spec: str, model: ModelSpec, *, cache: ResponseCache | None = None,
                 sharing: CallSharing | None = None, endpoint: EndpointConfig | None = None,
                 timeout_s: float = 180.0) -> None:
        self.spec = spec  # as written: the judge's name and the key of its cached judgments
        self.model = model  # the same spec, parsed and checked where it entered (parse_instrument, --judges)
        self.name = f"judge:{spec}"
        self._cache = cache
        self._sharing = sharing
        self._endpoint = endpoint
        self._timeout_s = timeout_s
        self._client: RecordingClient | None = None
        self.calls = 0
        self.cache_hits = 0

    def _key(self, view: CheckerView, artifact: str) -> str:
        material = json.dumps([self.spec, RUBRIC_VERSION, view.digest, artifact], ensure_ascii=False)
        return "judgment:" + hashlib.sha256(material.encode("utf-8")).hexdigest()

    def client(self) -> RecordingClient:
        if self._client is None:
            from mustmaybe.agents import ClientContext, build_client
            from mustmaybe.records import RoleParams

            # Temperature 0 and a fixed seed: a judge's reading should not be a draw.
            params = RoleParams(temperature=0.0, max_tokens=JUDGE_MAX_TOKENS, seed=0, timeout_s=self._timeout_s)
            ctx = ClientContext(role="judge", agent="judge", condition="", transform="", style=None, seed=0,
                                params=params, endpoint=self._endpoint)
            self._client = build_client(self.model, ctx, json_output=JudgeAnswer, timeout_s=self._timeout_s,
                                        sharing=self._sharing)
        return self._client

    async def ask(self, view: CheckerView, artifact: str) -> JudgeReply:
        """This judge's reading of one artifact.

        Raises:
            JudgeCallError: the model call failed; the message names the judge and the endpoint.
        """
        from autogen_core.models import SystemMessage, UserMessage

        from mustmaybe.agents import ModelCallError

        prompt = judge_prompt(view, artifact)
        key = self._key(view, artifact)
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                self.cache_hits += 1
                # The model's words are what is kept; reading them again lets a fixed parser apply.
                answer, problem = parse_answer(str(hit.get("raw", "")))
                return JudgeReply(judge=self.spec, prompt=prompt, raw=str(hit.get("raw", "")), answer=answer,
                                  problem=problem, cached=True)
        try:
            client = self.client()
        except Exception as exc:  # a missing key variable, a backend that cannot start: no judgment
            raise JudgeCallError(f"{self.name}: cannot reach the judge: {exc}") from None
        try:
            result = await client.create([SystemMessage(content=RUBRIC), UserMessage(content=prompt, source="auditor")])
        except ModelCallError as exc:
            raise JudgeCallError(f"{self.name}: {exc}") from None
        finally:
            client.calls.clear()  # the judge keeps no transcript: a long sweep must not grow with it
        self.calls += 1
        raw = result.content if isinstance(result.content, str) else str(result.content)
        answer, problem = parse_answer(raw)
        reply = JudgeReply(judge=self.spec, prompt=prompt, raw=raw, answer=answer, problem=problem)
        if self._cache is not None:
            self._cache.put(key, reply.model_dump(mode="json", exclude={"cached"}))
        return reply

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()


def full_view(reply: JudgeReply) -> str:
    """The exact text the judge received: the rubric (system) and the view (user)."""
    return f"{RUBRIC}\n---\n{reply.prompt}"


def reply_fields(reply: JudgeReply) -> dict[str, Any]:
    a = reply.answer
    return {} if a is None else {k: getattr(a, k) for k in ("status", "prerequisite", "authority", "fallback")}
