"""Role agents, prompt templates and model backends (sim, local, OpenAI-compatible)."""

from . import _prompts as prompts
from ._backends import ClientContext, build_model_client
from ._cache import CachingClient, ResponseCache, cache_key_fields
from ._executor import ExecutorDecision, ParsedDecision, decision_model_for, parse_decision, recommended_action
from ._limits import EndpointLimiter, limiters
from ._local import local_model_path
from ._recording import CallRecord, RecordingClient, message_text
from ._retry import RetryingClient
from ._sim import SimChatCompletionClient, SimClientConfig
from ._spec import (
    Backend,
    EndpointConfig,
    ModelSpec,
    ModelSpecError,
    RoleParams,
    StructuredMode,
    parse_model_spec,
)

__all__ = [
    "Backend",
    "CachingClient",
    "CallRecord",
    "ClientContext",
    "EndpointConfig",
    "EndpointLimiter",
    "ExecutorDecision",
    "ModelSpec",
    "ModelSpecError",
    "ParsedDecision",
    "RecordingClient",
    "ResponseCache",
    "RetryingClient",
    "RoleParams",
    "SimChatCompletionClient",
    "SimClientConfig",
    "StructuredMode",
    "build_model_client",
    "cache_key_fields",
    "decision_model_for",
    "limiters",
    "local_model_path",
    "message_text",
    "parse_decision",
    "parse_model_spec",
    "prompts",
    "recommended_action",
]
