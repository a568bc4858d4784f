"""The model-client pipeline: one function builds every agent's client, layer by layer.

Outermost first:

    RecordingClient         what each call received, its usage; failures named (agents/_recording.py)
    SingleFlightClient      identical calls in flight sent once              (agents/_singleflight.py)
    CachingClient           answers from the response cache                  (agents/_cache.py)
    --- the backend client: sim, local, or an OpenAI-compatible endpoint, which adds
    RetryingClient          tenacity retries honouring Retry-After           (agents/_retry.py)
    LimitedClient           the endpoint's shared concurrency and rate       (agents/_limits.py)
    StructuredOutputClient  json_output as the endpoint's mode asks          (agents/_openai.py)
    OpenAIChatCompletionClient  AutoGen's client, SDK retries off

Single-flight and the cache serve a sweep (`CallSharing` with a cache); the sim backend, which is
deterministic and free, is never cached.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from mustmaybe.records import ModelSpec

from ._backends import ClientContext, build_model_client
from ._cache import CachingClient, ResponseCache, cache_key_fields
from ._recording import RecordingClient
from ._retry import RetryingClient
from ._singleflight import SingleFlightClient

if TYPE_CHECKING:
    from mustmaybe.sim import SimContext


@dataclass
class CallSharing:
    """What the clients of many episodes share: the response cache and the calls in flight.

    One per sweep process (`SweepRunner`); without one, every call goes to its backend.
    """

    cache: ResponseCache | None = None
    inflight: dict[str, asyncio.Future[Any]] = field(default_factory=dict)


def build_client(spec: ModelSpec, ctx: ClientContext, *, sim: SimContext | None = None,
                 json_output: type[BaseModel] | None = None, timeout_s: float | None = None,
                 sharing: CallSharing | None = None) -> RecordingClient:
    """The client of one agent (`ctx.agent`), with every layer of the pipeline it needs.

    Args:
        spec: the role's model.
        ctx: the agent, role and parameters any backend may read.
        sim: what only a simulated model is told (the condition, hop and actions); it reaches the sim
            backend alone, and is ignored for every other.
        json_output: the structured answer this agent must give on every call (the executor's).
        timeout_s: the whole-call limit, retries included.
        sharing: the sweep's response cache and in-flight calls (None: neither).

    Returns:
        The outermost layer; its `retrying` is the retry layer, if the backend has one.
    """
    backend = build_model_client(spec, ctx, sim)
    retrying = getattr(backend, "retrying", None)  # OpenAIEndpointClient declares its retry layer
    client = backend
    if sharing is not None and sharing.cache is not None and spec.backend != "sim":
        fields = cache_key_fields(spec, ctx)
        client = SingleFlightClient(CachingClient(client, sharing.cache, fields), sharing.inflight, fields)
    return RecordingClient(inner=client, agent=ctx.agent, json_output=json_output, timeout_s=timeout_s,
                           endpoint=spec.endpoint, retrying=retrying if isinstance(retrying, RetryingClient) else None,
                           model=spec, role=ctx.role, params=ctx.params, model_seed=ctx.model_seed)
