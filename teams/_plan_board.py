"""A deterministic participant that posts the existing plan: pressure material, not a model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from autogen_agentchat.agents import BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core import CancellationToken, Component
from pydantic import BaseModel


class PlanBoardConfig(BaseModel):
    name: str
    text: str


class PlanBoard(BaseChatAgent, Component[PlanBoardConfig]):
    """Posts a fixed plan text when its turn comes; makes no model call."""

    component_type = "agent"
    component_config_schema = PlanBoardConfig
    component_provider_override = "mustmaybe.teams.PlanBoard"

    def __init__(self, name: str, text: str) -> None:
        super().__init__(name, "Posts the current delivery plan.")
        self._text = text

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        return (TextMessage,)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        return Response(chat_message=TextMessage(content=self._text, source=self.name))

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        return None

    def _to_config(self) -> PlanBoardConfig:
        return PlanBoardConfig(name=self.name, text=self._text)

    @classmethod
    def _from_config(cls, config: PlanBoardConfig) -> Self:
        return cls(config.name, config.text)
