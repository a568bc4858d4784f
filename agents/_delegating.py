"""The one delegation base of the model-client pipeline (agents/_pipeline.py).

Every layer (recording, single-flight, cache, retry, limit, structured output) is a
`DelegatingClient`: it forwards everything to `inner` and overrides only what it changes, through
two hooks that take the call's keyword arguments as one `CallArgs` (AutoGen's `create()` signature
is written once, here).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autogen_core import CancellationToken, ComponentModel
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,  # type: ignore[attr-defined]
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel


@dataclass(frozen=True)
class CallArgs:
    """The keyword arguments of one `create()` / `create_stream()` call, passed down the layers as one value."""

    tools: Sequence[Tool | ToolSchema] = ()
    tool_choice: Any = "auto"
    json_output: bool | type[BaseModel] | None = None
    extra_create_args: Mapping[str, Any] = field(default_factory=dict)
    cancellation_token: CancellationToken | None = None

    def kwargs(self) -> dict[str, Any]:
        """As keyword arguments for the next client's `create()` or `create_stream()`."""
        return {"tools": self.tools, "tool_choice": self.tool_choice, "json_output": self.json_output,
                "extra_create_args": self.extra_create_args, "cancellation_token": self.cancellation_token}


class DelegatingClient(ChatCompletionClient):
    """A ChatCompletionClient that forwards everything to `inner`; wrappers override what they change.

    `dump_component()` returns the inner client's dump: retries, limits and caches are how a run
    was executed, not part of the team it ran, so a reloaded config rebuilds the bare client.
    """

    def __init__(self, inner: ChatCompletionClient) -> None:
        self.inner = inner

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Any = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        return await self._create(messages, CallArgs(tools, tool_choice, json_output, extra_create_args,
                                                     cancellation_token))

    def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Any = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        return self._create_stream(messages, CallArgs(tools, tool_choice, json_output, extra_create_args,
                                                      cancellation_token))

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        """One call; a layer overrides this (and `_create_stream`) to change what it changes."""
        return await self.inner.create(messages, **args.kwargs())

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        async for chunk in self.inner.create_stream(messages, **args.kwargs()):
            yield chunk

    async def close(self) -> None:
        await self.inner.close()

    def actual_usage(self) -> RequestUsage:
        return self.inner.actual_usage()

    def total_usage(self) -> RequestUsage:
        return self.inner.total_usage()

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return self.inner.count_tokens(messages, tools=tools)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return self.inner.remaining_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:  # type: ignore[override]
        return self.inner.model_info  # type: ignore[return-value]

    @property
    def model_info(self) -> ModelInfo:
        return self.inner.model_info

    def dump_component(self) -> ComponentModel:
        return self.inner.dump_component()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"
