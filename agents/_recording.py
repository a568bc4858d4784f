"""A ChatCompletionClient wrapper that records exactly what each model call received and used.

This is the context-isolation audit's source of truth and the per-role usage counter. It also
asks the wrapped backend for structured output on every call when the role needs it (the
executor), so the agent itself stays a plain AssistantAgent.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from mustmaybe import tracing
from mustmaybe.records import ModelSpec, RoleParams

from ._delegating import CallArgs, DelegatingClient
from ._failure import ModelCallError, describe_failure
from ._retry import RetryingClient


def message_text(m: LLMMessage) -> str:
    """The text content of one LLM message (images and tool payloads as their string form)."""
    content: Any = getattr(m, "content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c if isinstance(c, str) else str(c) for c in content)
    return str(content)


@dataclass
class CallRecord:
    """One model call: the texts it received, what it answered, its usage and latency."""

    received: list[str]
    output: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    finish_reason: str | None = None  # the backend's, normalized by AutoGen: stop, length, content_filter, …


class RecordingClient(DelegatingClient):
    """Wraps a backend client for one agent; `calls` lists every call in order.

    A call that finally fails raises `ModelCallError` (from the original exception), also kept as
    `last_error`: it names the agent and `endpoint` (base URL or backend) and says why in plain words.
    Cancellation passes through untouched. `retrying` is the retry layer inside the pipeline (if
    any): what it retried explains a failure, and its counters are the episode's retries.
    """

    def __init__(self, inner: ChatCompletionClient, agent: str, json_output: type[BaseModel] | None = None,
                 timeout_s: float | None = None, endpoint: str = "", retrying: RetryingClient | None = None, *,
                 model: ModelSpec | None = None, role: str | None = None, params: RoleParams | None = None,
                 model_seed: int | None = None) -> None:
        super().__init__(inner)
        self.agent = agent
        # What a model-call span says about the request (read only while tracing is on).
        self.model, self.role, self.params, self.model_seed = model, role, params, model_seed
        self.retrying = retrying  # the pipeline's retry layer, if it has one: its counters and call errors
        self.endpoint = endpoint
        self.json_output = json_output
        self.timeout_s = timeout_s  # the role's whole-call limit, retries included
        self.calls: list[CallRecord] = []
        self.last_error: ModelCallError | None = None

    def _failure(self, exc: BaseException, limit_hit: bool) -> ModelCallError:
        """Describe a failed call. The retry layer's errors for this call decide what is reported,
        so a limit that runs out while a 500 or 429 is retried reports that 500 or 429."""
        seen = list(self.retrying.call_errors) if self.retrying is not None else []
        described = [describe_failure(e) for e in seen]
        informative = [d for d in described if d[0] != "timeout"]
        if limit_hit:
            limit = f"the {self.timeout_s:g} s limit for the call ran out"
            if described:
                kind, reason = (informative or described)[-1]
                reason += f"; gave up when {limit}"
            else:
                kind, reason = "timeout", f"no answer: {limit} (timeout)"
            return ModelCallError(agent=self.agent, endpoint=self.endpoint, kind=kind, reason=reason,
                                  attempts=len(seen) or None)
        kind, reason = describe_failure(exc)
        if kind == "timeout" and informative:
            kind, reason = informative[-1]  # a per-attempt timeout after a 500 or 429: report the HTTP error
        return ModelCallError(agent=self.agent, endpoint=self.endpoint, kind=kind, reason=reason,
                              attempts=len(seen) or None)

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        if not tracing.enabled():
            return await self._recorded(messages, args)
        with tracing.span(f"chat {self.model.name if self.model else self.agent}", request_attributes(self),
                          kind="CLIENT") as span:
            try:
                result = await self._recorded(messages, args)
            except ModelCallError as exc:
                span.set_attribute("error.type", exc.kind)
                raise
            span.set_attributes(response_attributes(result))
            return result

    async def _recorded(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        received = [message_text(m) for m in messages]
        t0 = time.perf_counter()
        limit = asyncio.timeout(self.timeout_s) if self.timeout_s else None
        try:
            async with limit if limit is not None else contextlib.nullcontext():
                if args.json_output is None and self.json_output is not None:
                    args = replace(args, json_output=self.json_output)
                result = await self.inner.create(messages, **args.kwargs())
        except Exception as exc:
            # Remember which agent's call failed and why, so the episode record can say so.
            failure = self._failure(exc, limit_hit=limit is not None and limit.expired())
            self.last_error = failure
            raise failure from exc
        out = result.content if isinstance(result.content, str) else str(result.content)
        self.calls.append(
            CallRecord(
                received=received,
                output=out,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                latency_s=time.perf_counter() - t0,
                cached=bool(result.cached),
                finish_reason=result.finish_reason,
            )
        )
        return result

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        # One recorded call, delivered as a single chunk: the record needs the whole answer.
        result = await self._create(messages, args)
        if isinstance(result.content, str):
            yield result.content
        yield result

    def actual_usage(self) -> RequestUsage:
        return RequestUsage(
            prompt_tokens=sum(c.prompt_tokens for c in self.calls),
            completion_tokens=sum(c.completion_tokens for c in self.calls),
        )

    def total_usage(self) -> RequestUsage:
        return self.actual_usage()

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        # Rough and offline on purpose: the inner client's tokenizer may need a download.
        return sum(len(message_text(m).split()) for m in messages)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return 1_000_000


_GEN_AI_SYSTEM = {"openai": "openai", "sim": "mustmaybe.sim", "local": "llama.cpp"}


def request_attributes(client: RecordingClient) -> dict[str, Any]:
    """A model-call span's request attributes (OpenTelemetry GenAI semantic conventions, plus ours)."""
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "mustmaybe.agent": client.agent}
    if client.role is not None:
        attrs["mustmaybe.role"] = client.role
    if client.endpoint:
        attrs["mustmaybe.endpoint"] = client.endpoint
    spec = client.model
    if spec is not None:
        system = _GEN_AI_SYSTEM.get(spec.backend, spec.backend)
        attrs.update({"gen_ai.system": system, "gen_ai.provider.name": system, "gen_ai.request.model": spec.name,
                      "mustmaybe.model": str(spec)})
        if spec.base_url:
            from urllib.parse import urlsplit

            url = urlsplit(spec.base_url)
            if url.hostname:
                attrs["server.address"] = url.hostname
            port = url.port or (443 if url.scheme == "https" else 80)
            attrs["server.port"] = port
    if client.params is not None:
        attrs["gen_ai.request.temperature"] = client.params.temperature
        attrs["gen_ai.request.max_tokens"] = client.params.max_tokens
    if client.model_seed is not None:
        attrs["gen_ai.request.seed"] = client.model_seed
    if client.json_output is not None:
        attrs["gen_ai.output.type"] = "json"
    return attrs


def response_attributes(result: CreateResult) -> dict[str, Any]:
    """A model-call span's response attributes: usage and finish reason, where the backend said them."""
    attrs: dict[str, Any] = {"gen_ai.usage.input_tokens": result.usage.prompt_tokens,
                             "gen_ai.usage.output_tokens": result.usage.completion_tokens,
                             "mustmaybe.cached": bool(result.cached)}
    if result.finish_reason and result.finish_reason != "unknown":
        attrs["gen_ai.response.finish_reasons"] = (result.finish_reason,)
    return attrs
