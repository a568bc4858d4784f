"""Turn a model spec into an AutoGen ChatCompletionClient for one agent of one episode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from autogen_core.models import ChatCompletionClient

from mustmaybe.records import EndpointConfig, ModelSpec, RoleParams

if TYPE_CHECKING:
    from mustmaybe.sim import SimContext


@dataclass(frozen=True)
class ClientContext:
    """Everything a backend may know about the agent it serves.

    Real backends use only `params`, `seed` and `endpoint`; the pipeline names the agent and its role
    in what it records. The sim is told more (the condition, the hop, the actions it simulates a choice
    between), in its own `mustmaybe.sim.SimContext`, which `build_client` passes to the sim alone.
    """

    role: str  # reviewer | transformer | executor | judge
    agent: str  # AutoGen agent name (reviewer, summarizer_2, peer_1, coordinator, planner, executor)
    seed: int
    params: RoleParams
    endpoint: EndpointConfig | None = None
    substrate: str = "autogen"  # the framework whose agent makes the calls (a cache key field when not autogen)

    @property
    def model_seed(self) -> int:
        """The sampling seed: the role's own if set, else the episode's."""
        return self.params.seed if self.params.seed is not None else self.seed


def build_model_client(spec: ModelSpec, ctx: ClientContext, sim: SimContext | None = None) -> ChatCompletionClient:
    """The backend client for `spec`; optional backends import their dependencies only here.

    `sim` (what only a simulated model is told) reaches the sim client and no other backend; None is a
    context-free sim call (a judge's).
    """
    if spec.backend == "sim":
        from mustmaybe.sim import sim_client

        return sim_client(spec.name, role=ctx.role, agent=ctx.agent, seed=ctx.model_seed, context=sim)
    if spec.backend == "team":
        raise ValueError(f"model 'team' (a user team's own clients) serves only the transformer role under "
                         f"--topology team:PATH.json, not the {ctx.role}")
    if spec.backend == "local":
        from ._local import build_local_client

        return build_local_client(spec, ctx)
    from ._openai import build_openai_client

    return build_openai_client(spec, ctx)
