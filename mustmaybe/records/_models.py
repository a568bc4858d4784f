"""Model specs (`sim`, `sim:<profile>`, `local`, `openai:<model>[@<base_url>]`), per-role parameters and
endpoint settings: the model side of an episode's inputs."""

from __future__ import annotations

import json
import os
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

# "team": a user team's own model clients, as its component JSON names them (team:PATH.json only).
Backend = Literal["sim", "local", "openai", "team"]
StructuredMode = Literal["json_schema", "json_object_schema", "prompt"]

DEFAULT_SIM_PROFILE = "paper"
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"


class ModelSpecError(ValueError):
    """A model spec string that cannot be parsed; the message names the spec."""


class ModelSpec(BaseModel):
    """A parsed model spec string; `str(spec)` gives back its canonical form."""

    model_config = ConfigDict(frozen=True)

    backend: Backend
    name: str = Field(description="Sim profile, local model name, or the endpoint's model name.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL (openai backend only).")

    def __str__(self) -> str:
        if self.backend == "sim":
            return f"sim:{self.name}"
        if self.backend == "local":
            return "local"
        if self.backend == "team":
            return "team"
        return f"openai:{self.name}" + (f"@{self.base_url}" if self.base_url else "")

    @property
    def simulated(self) -> bool:
        return self.backend == "sim"

    @property
    def endpoint(self) -> str:
        """The key under which limits and counters are kept: the base URL, or the backend name."""
        if self.backend == "openai":
            return self.base_url or DEFAULT_OPENAI_BASE_URL
        return self.backend


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse `sim`, `sim:<profile>`, `local`, `openai:<model>` or `openai:<model>@<base_url>`."""
    s = spec.strip()
    if s == "sim":
        return ModelSpec(backend="sim", name=DEFAULT_SIM_PROFILE)
    if s.startswith("sim:"):
        name = s[4:]
        if not name:
            raise ModelSpecError(f"model spec '{spec}': empty sim profile")
        return ModelSpec(backend="sim", name=name)
    if s == "team":  # a user team's own clients (teams/_user_team.py); only under team:PATH.json
        return ModelSpec(backend="team", name="own")
    if s in ("local", "local:smollm2"):
        return ModelSpec(backend="local", name="smollm2-135m-instruct")
    if s.startswith("openai:"):
        rest = s[len("openai:"):]
        model, _, url = rest.partition("@")
        if not model:
            raise ModelSpecError(f"model spec '{spec}': missing model name after 'openai:'")
        if url:
            problem = base_url_problem(url)
            if problem:
                raise ModelSpecError(f"model spec '{spec}': {problem}")
        return ModelSpec(backend="openai", name=model, base_url=url.rstrip("/") or None)
    raise ModelSpecError(
        f"unknown model spec '{spec}'; expected sim, sim:<profile>, local, openai:<model> or openai:<model>@<base_url> "
        f"(or team: a user team's own clients)"
    )


def base_url_problem(url: str) -> str | None:
    """Why `url` cannot be an endpoint's base URL (None if it can): scheme, host and port are checked."""
    if not url.startswith(("http://", "https://")):
        return f"base URL must start with http:// or https://, got '{url}'"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number in 0-65535
    except ValueError as exc:
        return f"base URL '{url}' is not a valid URL ({exc})"
    if not parts.hostname:
        return f"base URL '{url}' names no host"
    return None


def api_key_problem(endpoint: EndpointConfig) -> str | None:
    """Why no API key can be found for `endpoint` (None if one can); names variables, never values.

    The rule (mustmaybe.agents' OpenAI backend applies it): `api_key_env` names a variable that
    must be set; without it, only OpenAI's own API needs a key, from OPENAI_API_KEY.
    """
    if endpoint.api_key_env:
        if not os.environ.get(endpoint.api_key_env):
            return (f"endpoint {endpoint.base_url}: environment variable {endpoint.api_key_env} is not set "
                    f"(named by api_key_env / --api-key-env); export it with the key for this endpoint")
        return None
    if endpoint.base_url.rstrip("/") == DEFAULT_OPENAI_BASE_URL and not os.environ.get("OPENAI_API_KEY"):
        return (f"endpoint {endpoint.base_url}: OPENAI_API_KEY is not set; export it, or name another "
                f"variable with --api-key-env (run) or api_key_env in the sweep's [[endpoints]] entry")
    return None


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
# Request fields the client sets itself: an `extra_body` key may not replace them.
_RESERVED_BODY_KEYS = frozenset({"model", "messages", "stream", "response_format", "tools", "tool_choice"})


def _unset(value: object) -> bool:
    return value is None


class RoleParams(BaseModel):
    """Generation parameters for one role (part of the episode's inputs and key).

    The request parameters after `timeout_s` (top_p, reasoning_effort, stop, extra_body) configure, e.g.,
    a thinking and a non-thinking variant of one model. They are sent only to OpenAI-compatible
    endpoints (the sim and local backends ignore them) and are left out of every dump while unset, so
    the record and the episode key of a configuration that sets none of them are what they always were.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(default=400, ge=1)
    seed: int | None = Field(default=None, description="Model sampling seed; defaults to the episode seed.")
    timeout_s: float = Field(default=120.0, gt=0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, exclude_if=_unset,
                                description="Nucleus sampling mass (OpenAI `top_p`).")
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, exclude_if=_unset,
        description="OpenAI `reasoning_effort` for reasoning models: none, minimal, low, medium, high, xhigh.")
    stop: tuple[str, ...] | None = Field(
        default=None, exclude_if=_unset, min_length=1, max_length=4,
        description="Stop sequences (OpenAI `stop`, at most 4); a single string is one sequence.")
    extra_body: dict[str, Any] | None = Field(
        default=None, exclude_if=_unset,
        description="Fields merged into the request body as they are (e.g. vLLM's `chat_template_kwargs`, "
                    "a provider's `thinking` switch); a JSON object.")

    @field_validator("stop", mode="before")
    @classmethod
    def _one_stop(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("stop")
    @classmethod
    def _stop_not_empty(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and any(not s for s in value):
            raise ValueError("a stop sequence may not be empty")
        return value

    @field_validator("extra_body")
    @classmethod
    def _json_body(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        taken = sorted(_RESERVED_BODY_KEYS.intersection(value))
        if taken:
            raise ValueError(f"may not set {', '.join(taken)} (the client sets them)")
        try:
            # Canonical JSON: the body is sent, recorded and hashed into the episode key as it reads here.
            return dict(json.loads(json.dumps(value, sort_keys=True, allow_nan=False)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"must be a JSON object ({exc})") from None

    def request_params(self) -> dict[str, Any]:
        """The optional request parameters that are set, as they go into the request body."""
        out: dict[str, Any] = {}
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        if self.stop is not None:
            out["stop"] = list(self.stop)
        return out


REQUEST_PARAM_KEYS: tuple[str, ...] = ("top_p", "reasoning_effort", "stop", "extra_body")


class EndpointConfig(BaseModel):
    """Limits and access for one OpenAI-compatible base URL (shared by every role that uses it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str
    concurrency: int = Field(default=8, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=60.0, gt=0)
    api_key_env: str | None = Field(default=None, description="NAME of the environment variable holding the key.")
    structured_output: StructuredMode = "json_schema"
    max_retries: int = Field(default=4, ge=0)
