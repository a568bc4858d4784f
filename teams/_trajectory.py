"""The paper's single-call trajectories (001): one model call writes a whole team's stages.

The companion paper generates its summary, plan and convergence trajectories "within one response":
the reviewer and the executor are separate calls, but every intermediate stage (each summarizer's
handoff, each peer's line and the coordinator's summary, the planner's plan) comes from one call.
Here those conditions run as real multi-agent teams by default; `single-call` offers the paper's
design on the same tasks, models and seeds, so the two can be compared.

The one call is made by an agent named after the trajectory's last stage (`summarizer_3`,
`coordinator`, `planner`), so the stages, the drift curve and the artifact read exactly as the real
team's do. Its response is parsed into stages (`Stage 1:` … `Stage N:`); every stage but the last is
published as an inner message of its response and scored by the sidecar like any other hop; the last
is the handoff. A response that does not parse into exactly the requested stages is a failed
episode (`trajectory_parse_error`), never scored safe or unsafe.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from autogen_agentchat.agents import AssistantAgent, BaseChatAgent
from autogen_agentchat.base import Response
from autogen_agentchat.messages import BaseChatMessage, TextMessage
from autogen_core import CancellationToken

from mustmaybe.agents import prompts
from mustmaybe.records import COORDINATOR, PEER_PREFIX, PLANNER, REVIEWER, EpisodeError

from ._registry import GROUP_TRANSFORMS, HOP_TRANSFORMS, PLAN_TRANSFORMS, TeamPlan, TopologyContext, topology
from ._sidecar import STAGE_MARK
from ._topologies import _graph, _reviewer

MAX_STAGES = 32

_HEADER = re.compile(r"^[ \t]*(?:[#*_>\-]+[ \t]*)?stage[ \t]+(\d+)\b[^:\n]{0,60}:[ \t]*(?:\*\*|__)?[ \t]*(.*)$",
                     re.IGNORECASE | re.MULTILINE)


class TrajectoryParseError(ValueError):
    """The one response does not hold the requested stages."""


def parse_trajectory(text: str, n: int) -> list[str]:
    """The texts of stages 1…n of a single-call response, in order.

    Raises:
        TrajectoryParseError: a stage is missing, repeated, out of order, empty, or beyond n.
    """
    heads = list(_HEADER.finditer(text))
    numbers = [int(m.group(1)) for m in heads]
    if numbers != list(range(1, n + 1)):
        got = ", ".join(map(str, numbers)) or "none"
        raise TrajectoryParseError(f"expected stage headers 1 to {n} in order ('Stage N:'), found: {got}")
    out: list[str] = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = (m.group(2) + text[m.end():end]).strip().strip("*_").strip()
        if not body:
            raise TrajectoryParseError(f"stage {i + 1} is empty")
        out.append(body)
    return out


def _stage_plan(ctx: TopologyContext, params: dict[str, Any]) -> tuple[str, list[tuple[str, str | None]]]:
    """(kind, [(agent name, peer view)]) of the team the one call stands in for."""
    c, s = ctx.condition, ctx.scenario
    own = c.topology_params
    if c.transform in GROUP_TRANSFORMS:
        peers = int(params.get("peers", own.get("peers", 3)))
        rounds = int(params.get("rounds", own.get("rounds", 1)))
        frames = list(s.pressure.low_risk_frames) if "low_risk_frames" in c.transformer_sees else []
        if "low_risk_frames" in c.transformer_sees and not frames:
            raise ValueError(f"task {s.id}: pressure.low_risk_frames is required by condition {c.id}")
        names = [(f"{PEER_PREFIX}{i}", frames[(i - 1) % len(frames)] if frames else
                  "Weigh the reviewer's point on its merits.") for i in range(1, peers + 1)]
        return "group", [*(names * rounds), (COORDINATOR, None)]
    if c.transform in PLAN_TRANSFORMS:
        return "plan", [(PLANNER, None)]
    hops = int(params.get("stages", own.get("hops", 1) if c.topology == "chain" else 1))
    base = {"summary": "summarizer", "schema": "schema_summarizer", "ownership_summary": "ownership_summarizer",
            "ownership_deferral": "handoff_writer", "precedent": "handoff_writer"}.get(c.transform, "transformer")
    return "chain", [(base if hops == 1 else f"{base}_{i}", None) for i in range(1, hops + 1)]


class TrajectoryAgent(BaseChatAgent):
    """One model call for a whole trajectory: the stages are parsed from its one response."""

    def __init__(self, inner: AssistantAgent, stages: Sequence[str], problems: list[EpisodeError]) -> None:
        super().__init__(inner.name, "Writes every stage of a team's trajectory in one response.")
        self._inner = inner
        self._stages = list(stages)
        self._problems = problems

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        return (TextMessage,)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken) -> Response:
        result = await self._inner.on_messages(messages, cancellation_token)
        raw = result.chat_message.to_text()
        try:
            texts = parse_trajectory(raw, len(self._stages))
        except TrajectoryParseError as exc:
            shown = raw if len(raw) <= 300 else raw[:300] + "…"
            self._problems.append(EpisodeError(
                where=self.name, kind="trajectory_parse_error", role="transformer",
                message=f"the single-call trajectory did not parse: {exc}; response: {shown!r}"))
            raise
        mark = {STAGE_MARK: "1"}
        inner = [TextMessage(content=t, source=name, metadata=mark)
                 for name, t in zip(self._stages, texts, strict=True)]
        return Response(chat_message=inner[-1], inner_messages=inner[:-1])

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        await self._inner.on_reset(cancellation_token)


@topology("single-call", params={"stages": int, "peers": int, "rounds": int}, defaults={},
          bounds={"stages": (1, MAX_STAGES), "peers": (2, 16), "rounds": (1, 8)},
          compatible=HOP_TRANSFORMS | GROUP_TRANSFORMS | PLAN_TRANSFORMS, calls=lambda p: 1,  # the one call
          description="The paper's design (001): one model call writes every stage of the condition's team "
                      "(stages, peers, rounds default to its own); each parsed stage is scored as a hop.")
def build_single_call(ctx: TopologyContext, params: dict[str, Any]) -> TeamPlan:
    c, s = ctx.condition, ctx.scenario
    kind, stages = _stage_plan(ctx, params)
    system = prompts.trajectory_system(c, s, kind=kind, stages=stages, wording=ctx.wording,
                                       partial_work=bool(c.topology_params.get("partial_work", False)))
    rev = _reviewer(ctx)
    names = [n for n, _ in stages]
    # The one call is made by the agent named after the last stage, so the artifact and the stages read
    # as the real team's; it sees only the reviewer's handoff (its pressure material is in its prompt).
    inner = ctx.make_agent(names[-1], "transformer", system, include_sources=[REVIEWER], hop=1)
    problems: list[EpisodeError] = []
    agent = TrajectoryAgent(inner, names, problems)
    roles: dict[str, Any] = {REVIEWER: "reviewer", **dict.fromkeys(names, "transformer")}
    return TeamPlan(_graph([rev, agent], ctx), roles, names[-1], [rev, agent], problems=problems,
                    stage_roles=dict.fromkeys(names, "transformer"))
