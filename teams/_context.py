"""A model context that shows an agent only the messages its condition allows.

By default every agent in an AutoGen team sees the whole shared history (AUTOGEN_NOTES §3); the
testbed's claims rest on each role seeing only what its condition gives it, so every agent gets
one of these with an explicit allow-list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Self

from autogen_core import Component
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import BaseModel, Field

PROJECTION_SOURCE = "workflow_state"


class SourceFilterContextConfig(BaseModel):
    include_sources: list[str] | None = Field(default=None, description="Only messages from these sources.")
    exclude_sources: list[str] = Field(default_factory=list, description="Never messages from these sources.")
    last_n: int | None = Field(default=None, description="Keep only the last n of what remains.")
    include_own: bool = Field(default=False, description="Keep the agent's own earlier replies.")


class SourceFilterContext(UnboundedChatCompletionContext, Component[SourceFilterContextConfig]):  # type: ignore[misc]
    """Stores every message; `get_messages` returns only those from allowed sources."""

    component_config_schema = SourceFilterContextConfig  # type: ignore[assignment]
    # Subclasses inherit the parent's override and would reload as the parent (AUTOGEN_NOTES §7).
    component_provider_override = "mustmaybe.teams.SourceFilterContext"

    def __init__(self, include_sources: list[str] | None = None, exclude_sources: list[str] | None = None,
                 last_n: int | None = None, include_own: bool = False) -> None:
        super().__init__()
        self._cfg = SourceFilterContextConfig(
            include_sources=include_sources, exclude_sources=list(exclude_sources or []),
            last_n=last_n, include_own=include_own,
        )
        # W: a read-only view of trusted state, read at each call and never stored in the history, so
        # no message (and no model) can edit what the next call shows. Not part of the config.
        self.projection: Callable[[], str | None] | None = None

    def _allowed(self, m: LLMMessage) -> bool:
        if isinstance(m, AssistantMessage):
            return self._cfg.include_own
        if not isinstance(m, UserMessage):
            return False
        if m.source in self._cfg.exclude_sources:
            return False
        return self._cfg.include_sources is None or m.source in self._cfg.include_sources

    async def get_messages(self) -> list[LLMMessage]:
        kept = [m for m in self._messages if self._allowed(m)]
        if self._cfg.last_n is not None:
            kept = kept[-self._cfg.last_n :]
        view = self.projection() if self.projection is not None else None
        if view:
            kept = [*kept, UserMessage(content=view, source=PROJECTION_SOURCE)]
        return kept

    def _to_config(self) -> SourceFilterContextConfig:  # type: ignore[override]
        return self._cfg

    @classmethod
    def _from_config(cls, config: SourceFilterContextConfig) -> Self:  # type: ignore[override]
        return cls(config.include_sources, config.exclude_sources, config.last_n, config.include_own)
