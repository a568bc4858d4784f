"""Role agents, prompt templates, model backends (local, OpenAI-compatible; the sim's own package,
`mustmaybe.sim`, behind the same dispatch) and the client pipeline
(`build_client`: record → single-flight → cache → retry → limit → structured output → backend)."""

from typing import Any

from . import _deferred as _deferred  # before AutoGen: jsonref (its tools' schemas) loads on first use
from . import _prompts as prompts
from ._backends import ClientContext, build_model_client
from ._cache import CachingClient, ResponseCache, cache_key_fields
from ._delegating import DelegatingClient
from ._executor import (
    ExecutorDecision,
    ParsedDecision,
    decision_model_for,
    first_json_object,
    parse_decision,
    recommended_action,
)
from ._failure import ModelCallError, NotACompletionError, describe_failure
from ._limits import EndpointLimiter, limiters, set_limiter_factory
from ._local_check import LocalBackendUnavailable, check_local_backend, local_model_path
from ._patches import dependency_patches
from ._pipeline import CallSharing, build_client
from ._recording import CallRecord, RecordingClient, message_text
from ._retry import RetryingClient
from ._singleflight import SingleFlightClient
from ._spec import check_model_spec

__all__ = [
    "CachingClient",
    "CallRecord",
    "CallSharing",
    "ClientContext",
    "DelegatingClient",
    "EndpointLimiter",
    "ExecutorDecision",
    "LocalBackendUnavailable",
    "ModelCallError",
    "NotACompletionError",
    "ParsedDecision",
    "RecordingClient",
    "ResponseCache",
    "RetryingClient",
    "SingleFlightClient",
    "build_client",
    "build_model_client",
    "cache_key_fields",
    "check_local_backend",
    "check_model_spec",
    "decision_model_for",
    "dependency_patches",
    "describe_failure",
    "first_json_object",
    "limiters",
    "local_model_path",
    "message_text",
    "parse_decision",
    "prompts",
    "recommended_action",
    "set_limiter_factory",
]


def __getattr__(name: str) -> Any:
    # Stored records' team configs and exported teams name the sim client by the path it had before it
    # became mustmaybe.sim ("mustmaybe.agents.SimChatCompletionClient"); AutoGen's loader imports that
    # module and reads the name, so it resolves here, on access only (it is not part of this API).
    if name == "SimChatCompletionClient":
        from mustmaybe.sim import SimChatCompletionClient

        return SimChatCompletionClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
