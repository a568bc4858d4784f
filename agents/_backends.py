"""Turn a model spec into an AutoGen ChatCompletionClient for one agent of one episode."""

from __future__ import annotations

from dataclasses import dataclass

from autogen_core.models import ChatCompletionClient

from mustmaybe.records import EndpointConfig, ModelSpec, RoleParams


@dataclass(frozen=True)
class ClientContext:
    """Everything a backend may know about the agent it serves.

    Real backends use only `params`, `seed` and `endpoint`. The sim backend also reads the role,
    the condition's transformation and the action ids it simulates a choice between; the text it
    transforms comes only from the messages its agent receives.
    """

    role: str  # reviewer | transformer | executor
    agent: str  # AutoGen agent name (reviewer, summarizer_2, peer_1, coordinator, planner, executor)
    condition: str  # condition id
    transform: str  # the condition's transform
    style: str | None
    seed: int
    params: RoleParams
    hop: int = 0  # 1-based position of a transformer in its chain (0 for reviewer/executor)
    requested_action: str = ""
    fallback_action: str = ""
    endpoint: EndpointConfig | None = None
    substrate: str = "autogen"  # the framework whose agent makes the calls (a cache key field when not autogen)

    @property
    def model_seed(self) -> int:
        """The sampling seed: the role's own if set, else the episode's."""
        return self.params.seed if self.params.seed is not None else self.seed


def build_model_client(spec: ModelSpec, ctx: ClientContext) -> ChatCompletionClient:
    """The backend client for `spec`; optional backends import their dependencies only here."""
    if spec.backend == "sim":
        from ._sim import SimChatCompletionClient, SimClientConfig

        return SimChatCompletionClient(SimClientConfig.from_context(spec.name, ctx))
    if spec.backend == "team":
        raise ValueError(f"model 'team' (a user team's own clients) serves only the transformer role under "
                         f"--topology team:PATH.json, not the {ctx.role}")
    if spec.backend == "local":
        from ._local import build_local_client

        return build_local_client(spec, ctx)
    from ._openai import build_openai_client

    return build_openai_client(spec, ctx)
