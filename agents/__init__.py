"""Role agents, prompt templates and model backends (sim, local, OpenAI-compatible)."""

from . import _prompts as prompts
from ._backends import ClientContext, build_model_client
from ._executor import ExecutorDecision, ParsedDecision, parse_decision, recommended_action
from ._recording import CallRecord, RecordingClient, message_text
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
    "CallRecord",
    "ClientContext",
    "EndpointConfig",
    "ExecutorDecision",
    "ModelSpec",
    "ModelSpecError",
    "ParsedDecision",
    "RecordingClient",
    "RoleParams",
    "StructuredMode",
    "build_model_client",
    "message_text",
    "parse_decision",
    "parse_model_spec",
    "prompts",
    "recommended_action",
]
