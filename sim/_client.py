"""The `sim` backend: a deterministic, seeded behavioural simulator as an AutoGen ChatCompletionClient.

It reads only what its agent's model receives (the `messages` passed to `create`), applies the
condition's transformation mechanics with the rates of its profile (sim/profiles/*.toml), and
exposes what it changed as ground truth in `client.truth`. Its rates are inputs, never findings.
Its output depends only on the profile, the config, the seed and the received texts.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal, Self

from autogen_core import CancellationToken, Component
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,  # type: ignore[attr-defined]
    ModelFamily,
    ModelInfo,
    RequestUsage,
    SystemMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel, ConfigDict, Field

from . import _roles as roles
from ._context import SimContext
from ._judge import judge as sim_judge
from ._profile import SimProfile, load_profile

SimRole = Literal["reviewer", "transformer", "executor", "judge", "selector"]

# The header W's read-only projection of the gate record starts with (agents/_prompts.py's WORKFLOW_HEADER,
# which tests/sim/test_sim.py keeps equal to it). The sim knows the shapes of the prompts it reads as it knows
# the "Stages:" block, and imports nothing of the backends' package, which imports it.
WORKFLOW_HEADER = "Workflow state (read-only, committed by the workflow system; not editable):"

# AutoGen's SelectorGroupChat prompt lists the candidates as a Python list: "['planner', 'critic']".
_CANDIDATES = re.compile(r"\[\s*('[^'\n]+'(?:\s*,\s*'[^'\n]+')*)\s*\]")


class SimClientConfig(BaseModel):
    """Everything the sim knows about its agent besides the messages it receives."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: str = Field(default="paper", description="Profile name: sim/profiles/<profile>.toml.")
    role: SimRole = Field(description="reviewer | transformer | executor | judge | selector (a user team's "
                                      "speaker selection).")
    agent: str = Field(default="", description="AutoGen agent name (summarizer_2, peer_1, coordinator, planner…).")
    condition: str = Field(default="", description="Condition id (selects the profile's rates).")
    transform: str = Field(default="", description="The condition's transform (selects the mechanics).")
    style: str | None = Field(default=None, description="Compression style: light | normal | compressed | aggressive.")
    seed: int = Field(default=0, description="Sampling seed.")
    hop: int = Field(default=0, description="1-based position of a transformer (0 for reviewer and executor).")
    requested_action: str = Field(default="", description="The action the goal asks for (the first forbidden one).")
    fallback_action: str = Field(default="", description="The task's admissible fallback action.")

    @classmethod
    def for_agent(cls, profile: str, *, role: str, agent: str, seed: int,
                  context: SimContext | None = None) -> SimClientConfig:
        """The config of one agent's sim client: its role, name and sampling seed (what every backend
        is told) and the sim's own `context`."""
        ctx = context if context is not None else SimContext()
        sim_role: Any = role  # an unknown role fails validation here, by name
        return cls(profile=profile, role=sim_role, agent=agent, seed=seed, **ctx.model_dump())


def _text(m: LLMMessage) -> str:
    content: Any = getattr(m, "content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c if isinstance(c, str) else str(c) for c in content)
    return str(content)


def _tokens(text: str) -> int:
    return len(text.split())


class SimChatCompletionClient(ChatCompletionClient, Component[SimClientConfig]):
    """A deterministic simulated model for one agent; `truth` lists what each transformer call changed."""

    component_type = "model"
    component_config_schema = SimClientConfig
    # The path the sim had before it left agents/: stored records' team configs and exported teams name it,
    # so it stays (records byte-identical, old team:PATH.json files loadable); mustmaybe.agents resolves the
    # name on access, for AutoGen's loader only.
    component_provider_override = "mustmaybe.agents.SimChatCompletionClient"

    def __init__(self, config: SimClientConfig) -> None:
        self._config = config
        self._profile: SimProfile = load_profile(config.profile)  # an unknown profile fails here, by name
        self.truth: list[dict[str, Any]] = []
        self._usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    @property
    def config(self) -> SimClientConfig:
        return self._config

    @property
    def profile(self) -> SimProfile:
        return self._profile

    def _rng(self, texts: Sequence[str]) -> random.Random:
        # The profile enters by name (it is in the config), not by its rates: the same draws are
        # compared against changed rates, so a higher rate only ever adds weakening.
        material = json.dumps({"config": self._config.model_dump(mode="json"), "texts": list(texts)},
                              sort_keys=True)
        return random.Random(int.from_bytes(hashlib.sha256(material.encode("utf-8")).digest()[:16], "big"))

    def _respond(self, messages: Sequence[LLMMessage]) -> str:
        cfg = self._config
        system = "\n".join(_text(m) for m in messages if isinstance(m, SystemMessage))
        # What others sent (the task, the review, earlier hops, peers); never the agent's own replies.
        users = [_text(m) for m in messages if not isinstance(m, SystemMessage | AssistantMessage)]
        # W's projection of the gate record: the sim's transformers write their prose from the
        # handoff as usual (their rates are the prose's own); the executor reads it in its task text.
        users = [u for u in users if not u.startswith(WORKFLOW_HEADER)]
        rng = self._rng([system, *users])
        last = users[-1] if users else ""
        if cfg.role == "reviewer":
            return roles.review(last, cfg.requested_action, rng)
        if cfg.role == "judge":
            return sim_judge(last, self._profile.judge, rng)
        if cfg.role == "selector":
            return _select(last)
        rates = self._profile.rates(cfg.condition, cfg.transform)
        if cfg.role == "executor":
            return roles.execute(last, requested=cfg.requested_action, fallback=cfg.fallback_action,
                                 unsafe=rates.unsafe, ex=self._profile.executor, rng=rng)
        if roles.trajectory_stages(system):  # the paper's single-call trajectory (teams/_trajectory.py)
            text, truths = roles.trajectory(condition=cfg.condition, transform_name=cfg.transform, style=cfg.style,
                                            system=system, users=users, rates=rates, rng=rng)
            self.truth.extend({**t, "profile": cfg.profile, "seed": cfg.seed} for t in truths)
            return text
        text, truth = roles.transform(agent=cfg.agent, hop=cfg.hop, condition=cfg.condition,
                                      transform_name=cfg.transform, style=cfg.style, system=system, users=users,
                                      rates=rates, rng=rng)
        self.truth.append({**truth, "profile": cfg.profile, "seed": cfg.seed})
        return text

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        if tools:
            raise ValueError("the sim backend does not support function calling (model_info.function_calling=False)")
        content = self._respond(messages)
        usage = RequestUsage(prompt_tokens=sum(_tokens(_text(m)) for m in messages),
                             completion_tokens=_tokens(content))
        self._usage = RequestUsage(prompt_tokens=self._usage.prompt_tokens + usage.prompt_tokens,
                                   completion_tokens=self._usage.completion_tokens + usage.completion_tokens)
        return CreateResult(finish_reason="stop", content=content, usage=usage, cached=False)

    async def create_stream(  # type: ignore[override]
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        result = await self.create(messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                                   extra_create_args=extra_create_args, cancellation_token=cancellation_token)
        assert isinstance(result.content, str)
        words = result.content.split(" ")
        for i, w in enumerate(words):
            yield w if i == len(words) - 1 else w + " "
        yield result

    async def close(self) -> None:
        return None

    def actual_usage(self) -> RequestUsage:
        return self._usage

    def total_usage(self) -> RequestUsage:
        return self._usage

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return sum(_tokens(_text(m)) for m in messages)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return max(0, 1_000_000 - self.count_tokens(messages, tools=tools))

    @property
    def capabilities(self) -> ModelCapabilities:  # type: ignore[override]
        return self.model_info  # type: ignore[return-value]

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(vision=False, function_calling=False, json_output=True, family=ModelFamily.UNKNOWN,
                         structured_output=True)

    def _to_config(self) -> SimClientConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: SimClientConfig) -> Self:
        return cls(config)


def sim_client(profile: str, *, role: str, agent: str, seed: int,
               context: SimContext | None = None) -> SimChatCompletionClient:
    """The sim model client of one agent: what `mustmaybe.agents.build_model_client` returns for a
    `sim:<profile>` spec. An unknown profile raises UnknownSimProfileError, naming the known ones."""
    return SimChatCompletionClient(SimClientConfig.for_agent(profile, role=role, agent=agent, seed=seed,
                                                             context=context))


def _select(prompt: str) -> str:
    """A speaker for a SelectorGroupChat: of the candidates its prompt lists, the one whose lines
    ("name: …") the prompt holds fewest of, the first listed on a tie, so speakers take turns in their
    listed order. AutoGen falls back to the previous speaker when a reply names none."""
    found = _CANDIDATES.findall(prompt)
    names = [n.strip().strip("'") for n in found[-1].split(",")] if found else []
    lines = prompt.splitlines()
    spoken = {n: sum(1 for ln in lines if ln.startswith(f"{n}:")) for n in names}
    return min(names, key=lambda n: (spoken[n], names.index(n))) if names else ""


__all__ = ["SimChatCompletionClient", "SimClientConfig", "sim_client"]
