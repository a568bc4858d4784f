"""The OpenAI-compatible backend: vLLM, Ollama, llama.cpp's server, LM Studio or a hosted API.

`build_openai_client` returns an `OpenAIEndpointClient`, a serializable component around this
stack (outermost first):

    RetryingClient     tenacity retries with Retry-After        (agents/_retry.py)
    LimitedClient      the endpoint's shared concurrency + rpm   (agents/_limits.py)
    StructuredOutputClient  json_output mapped per endpoint mode
    OpenAIChatCompletionClient  AutoGen's client, SDK retries off

Keys: the endpoint config names an environment variable (`api_key_env`); the key is read from
it when the client is built and handed only to the SDK. It is never logged, never in a repr,
and never in `dump_component()`, which stores the variable's name instead (reloading reads the
variable again).
"""

from __future__ import annotations

import asyncio
import os
import warnings
import weakref
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import openai
from autogen_core import Component, ComponentModel, ComponentToConfig
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage, ModelFamily, ModelInfo
from autogen_ext.models.openai import OpenAIChatCompletionClient
from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.records import DEFAULT_OPENAI_BASE_URL, EndpointConfig, ModelSpec, StructuredMode, api_key_problem

from ._delegating import CallArgs, DelegatingClient
from ._failure import check_completion_response
from ._limits import LimitedClient
from ._retry import RetryingClient, Sleep
from ._thin import install_thin_path

if TYPE_CHECKING:
    from ._backends import ClientContext

PLACEHOLDER_API_KEY = "not-needed"  # keyless local servers ignore it; the SDK insists on some key

# Unknown models need model_info (AUTOGEN_NOTES §2). No tools in this testbed; JSON and
# structured output are claimed so AutoGen passes them on, and StructuredOutputClient decides
# what actually reaches the server.
ENDPOINT_MODEL_INFO = ModelInfo(
    vision=False, function_calling=False, json_output=True, family=ModelFamily.UNKNOWN, structured_output=True
)


def quiet_model_mismatch() -> None:
    """Silence AutoGen's "Resolved model mismatch" UserWarning in this process.

    AutoGen warns whenever the answering model's name differs from its own alias table (llama.cpp's
    server reports its GGUF file, vLLM its served name). The record already stores the model asked
    for; the warning only garbles the live run and sweep displays. Repeated calls add no filter.
    """
    # Only when missing: every filterwarnings() call also resets the warnings caches of every module,
    # and this runs for every agent of every episode.
    for action, message, category, _module, _lineno in warnings.filters:
        if action == "ignore" and category is UserWarning and getattr(message, "pattern", None) == _MISMATCH:
            return
    warnings.filterwarnings("ignore", message=_MISMATCH, category=UserWarning)


_MISMATCH = "Resolved model mismatch"


class ApiKeyMissingError(RuntimeError):
    """The endpoint config names a key variable that is not set (or OpenAI's API has no key)."""


def resolve_api_key(endpoint: EndpointConfig) -> str:
    """The API key for `endpoint`, read from the environment.

    - `api_key_env` set: that variable, which must be set and non-empty.
    - otherwise, for OpenAI's own API only, `OPENAI_API_KEY`; any other base URL gets a
      placeholder (keyless local servers), so an OpenAI key is never sent to a third party.

    Raises:
        ApiKeyMissingError: naming the variable and the base URL, never a value.
    """
    problem = api_key_problem(endpoint)  # the same rule the CLI checks before a run starts
    if problem:
        raise ApiKeyMissingError(problem)
    if endpoint.api_key_env:
        return os.environ[endpoint.api_key_env]
    if endpoint.base_url.rstrip("/") != DEFAULT_OPENAI_BASE_URL:
        return PLACEHOLDER_API_KEY
    return os.environ["OPENAI_API_KEY"]


def json_schema_response_format(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAI's strict `json_schema` response_format for `model`, exactly as the openai SDK builds it."""
    try:
        from openai.lib._parsing._completions import type_to_response_format_param
    except ImportError:  # pragma: no cover - a future SDK moved it; build the same shape by hand
        schema = model.model_json_schema()
        schema["additionalProperties"] = False
        return {"type": "json_schema", "json_schema": {"name": model.__name__, "schema": schema, "strict": True}}
    return dict(type_to_response_format_param(model))  # type: ignore[arg-type]


def map_structured_output(
    mode: StructuredMode,
    json_output: bool | type[BaseModel] | None,
    extra_create_args: Mapping[str, Any],
) -> tuple[bool | type[BaseModel] | None, dict[str, Any]]:
    """What AutoGen's client should be asked for, given what the agent wants and the server supports.

    A pydantic `json_output` never reaches AutoGen's client as a type: that would route the call
    through the SDK's `parse()`, which raises on an answer that does not validate (and on one cut
    off by max_tokens), losing the raw text the executor's parse-failure rule needs. The schema is
    sent as a plain `response_format` instead, and agents/_executor.py parses and flags the answer.

    - `json_schema`: OpenAI's `{"type": "json_schema", "json_schema": {name, schema, strict}}`,
      the same body AutoGen would send (vLLM, OpenAI).
    - `json_object_schema`: `{"type": "json_object", "schema": ...}`, which llama.cpp's server
      enforces with a grammar (it rejects `json_schema`, AUTOGEN_NOTES §8).
    - `prompt`: nothing; the executor's prompt asks for JSON.

    `json_output=True` (plain JSON mode) passes through except in `prompt` mode.
    """
    extra = dict(extra_create_args)
    if mode == "prompt":
        return None, extra
    if isinstance(json_output, type) and issubclass(json_output, BaseModel):
        if mode == "json_schema":
            extra["response_format"] = json_schema_response_format(json_output)
        else:
            extra["response_format"] = {"type": "json_object", "schema": json_output.model_json_schema()}
        return None, extra
    return json_output, extra


class StructuredOutputClient(DelegatingClient):
    """Maps each call's `json_output` to what the endpoint's structured-output mode supports.

    `sampling` (temperature, max_tokens, seed: this agent's) goes with every call, under the call's
    own `extra_create_args`, so one AutoGen client per endpoint can serve every agent.
    """

    def __init__(self, inner: ChatCompletionClient, mode: StructuredMode,
                 sampling: Mapping[str, Any] | None = None) -> None:
        super().__init__(inner)
        self.mode: StructuredMode = mode
        self.sampling: dict[str, Any] = dict(sampling or {})

    def _mapped(self, args: CallArgs) -> CallArgs:
        extra = {**self.sampling, **args.extra_create_args} if self.sampling else args.extra_create_args
        json_output, extra = map_structured_output(self.mode, args.json_output, extra)
        return replace(args, json_output=json_output, extra_create_args=extra)

    async def _create(self, messages: Sequence[LLMMessage], args: CallArgs) -> CreateResult:
        return await self.inner.create(messages, **self._mapped(args).kwargs())

    async def _create_stream(self, messages: Sequence[LLMMessage], args: CallArgs,
                             ) -> AsyncGenerator[str | CreateResult, None]:
        async for chunk in self.inner.create_stream(messages, **self._mapped(args).kwargs()):
            yield chunk

    def __repr__(self) -> str:
        return f"StructuredOutputClient({self.inner!r}, mode={self.mode!r})"


# One HTTP connection pool per endpoint and event loop, shared by every agent's client. Building
# an httpx client loads the CA bundle (~20 ms of CPU), and a sweep builds three or more clients per
# episode; a shared pool also keeps connections alive between calls. Kept per loop because an
# httpx client belongs to the loop it first ran in (tests run one loop each).
_HTTP_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, float], Any]] = (
    weakref.WeakKeyDictionary()
)


def shared_http_client(base_url: str, timeout_s: float) -> Any | None:
    """The running loop's shared `httpx` client for this endpoint (None outside a running loop)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    per_loop = _HTTP_CLIENTS.setdefault(loop, {})
    key = (base_url.rstrip("/"), timeout_s)
    client = per_loop.get(key)
    if client is None:
        client = per_loop[key] = checked_http_client(timeout_s)
    return client


# One AutoGen client (so one AsyncOpenAI) per endpoint, model, key and timeout, and event loop: every
# agent of every episode calls through it, passing its own sampling arguments per call. Building an
# AsyncOpenAI per agent per episode, and its platform probe on first use (a thread hop), cost about
# 0.3 ms of CPU a call. Usage and retries are counted per agent above it (RecordingClient,
# RetryingClient), never read from this client. SHARE_SDK_CLIENTS = False builds one per agent again.
SHARE_SDK_CLIENTS = True
_SDK_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str, str, float], Any]] = (
    weakref.WeakKeyDictionary()
)


def shared_sdk_client(model: str, base_url: str, api_key: str, timeout_s: float,
                      ) -> OpenAIChatCompletionClient | None:
    """The running loop's AutoGen client for this endpoint and model (None outside a running loop,
    or with sharing turned off)."""
    if not SHARE_SDK_CLIENTS:
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    per_loop = _SDK_CLIENTS.setdefault(loop, {})
    key = (base_url.rstrip("/"), model, api_key, timeout_s)
    client: OpenAIChatCompletionClient | None = per_loop.get(key)
    if client is None:
        http_client = shared_http_client(base_url, timeout_s)
        client = per_loop[key] = _sdk_client(model, base_url, api_key, timeout_s, http_client, {})
    return client


def _sdk_client(model: str, base_url: str, api_key: str, timeout_s: float, http_client: Any,
                create_args: dict[str, Any]) -> OpenAIChatCompletionClient:
    client = OpenAIChatCompletionClient(
        model=model,
        base_url=base_url,
        api_key=api_key,
        model_info=ENDPOINT_MODEL_INFO,
        timeout=timeout_s,
        max_retries=0,  # RetryingClient retries, visibly and with one policy
        **{**create_args, "http_client": http_client},
    )
    install_thin_path(client)  # plain chat calls as one POST on the same pool (agents/_thin.py)
    return client


def checked_http_client(timeout_s: float) -> Any:
    """An `httpx` client for the SDK whose chat-completion answers are checked to be chat completions.

    An HTML error page or JSON without `choices` then fails the call with a plain reason
    (agents/_failure.py) instead of reaching AutoGen as a string or an empty object.
    """
    return openai.DefaultAsyncHttpxClient(timeout=timeout_s, event_hooks={"response": [check_completion_response]})


class OpenAIEndpointClientConfig(BaseModel):
    """Everything needed to rebuild the client; the key is absent by design (only its variable's name)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="The endpoint's model name.")
    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1.")
    endpoint: EndpointConfig = Field(description="Limits, timeout, key variable name and structured-output mode.")
    temperature: float
    max_tokens: int
    seed: int | None = None
    # The role's optional request parameters (RoleParams): absent from the dump while unset, so the
    # recorded team config of a role that sets none is what it always was.
    top_p: float | None = Field(default=None, exclude_if=lambda v: v is None)
    reasoning_effort: str | None = Field(default=None, exclude_if=lambda v: v is None)
    stop: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    extra_body: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    retry_initial_s: float = Field(default=0.5, gt=0, description="First retry backoff (exponential, jittered).")
    retry_max_s: float = Field(default=30.0, gt=0, description="Longest backoff between attempts.")
    retry_after_cap_s: float = Field(default=120.0, ge=0, description="Longest Retry-After honoured.")


class OpenAIEndpointClient(DelegatingClient, Component[OpenAIEndpointClientConfig]):
    """One agent's client for an OpenAI-compatible endpoint: retries, shared limits, structured output.

    `retrying` exposes the retry counters; `limited.limiter` the endpoint's shared limiter.
    """

    component_type = "model"
    component_config_schema = OpenAIEndpointClientConfig
    component_provider_override = "mustmaybe.agents._openai.OpenAIEndpointClient"

    def __init__(self, config: OpenAIEndpointClientConfig, *, sleep: Sleep = asyncio.sleep) -> None:
        quiet_model_mismatch()
        self.config = config
        sampling: dict[str, Any] = {"temperature": config.temperature, "max_tokens": config.max_tokens}
        if config.seed is not None:
            sampling["seed"] = config.seed
        # Optional request parameters go with every call as AutoGen create arguments (`extra_body` is
        # one AutoGen passes on to the SDK, which merges it into the request body).
        for name in ("top_p", "reasoning_effort", "stop", "extra_body"):
            if (value := getattr(config, name)) is not None:
                sampling[name] = value
        api_key, timeout_s = resolve_api_key(config.endpoint), config.endpoint.timeout_s
        shared = shared_sdk_client(config.model, config.base_url, api_key, timeout_s)
        self._shared_http = shared is not None
        if shared is not None:
            # The endpoint's one AutoGen client; this agent's sampling goes with each call.
            sdk_client, per_call = shared, sampling
        else:
            http_client = shared_http_client(config.base_url, timeout_s)
            self._shared_http = http_client is not None
            # Outside a running loop the client gets its own pool (closed with it), still checked.
            sdk_client = _sdk_client(config.model, config.base_url, api_key, timeout_s,
                                     http_client or checked_http_client(timeout_s), sampling)
            per_call = {}
        self.structured = StructuredOutputClient(sdk_client, config.endpoint.structured_output, per_call)
        self.limited = LimitedClient(self.structured, config.endpoint, retry_after_cap=config.retry_after_cap_s)
        self.retrying = RetryingClient(
            self.limited,
            max_attempts=config.endpoint.max_retries + 1,
            initial_wait=config.retry_initial_s,
            max_wait=config.retry_max_s,
            retry_after_cap=config.retry_after_cap_s,
            sleep=sleep,
        )
        super().__init__(self.retrying)

    async def close(self) -> None:
        # The AutoGen client or its connection pool is shared with the endpoint's other clients; it
        # ends with its loop.
        if not self._shared_http:
            await super().close()

    @property
    def structured_mode(self) -> StructuredMode:
        return self.config.endpoint.structured_output

    def _to_config(self) -> OpenAIEndpointClientConfig:
        return self.config.model_copy()

    @classmethod
    def _from_config(cls, config: OpenAIEndpointClientConfig) -> OpenAIEndpointClient:
        return cls(config)

    def dump_component(self) -> ComponentModel:
        # This client is a component of its own (DelegatingClient would dump the SDK client, key mask and all).
        return ComponentToConfig.dump_component(self)

    def __repr__(self) -> str:
        return (f"OpenAIEndpointClient(model={self.config.model!r}, base_url={self.config.base_url!r}, "
                f"structured_output={self.structured_mode!r})")


def build_openai_client(spec: ModelSpec, ctx: ClientContext) -> OpenAIEndpointClient:
    """The client for `openai:<model>[@<base_url>]` serving one agent.

    Limits come from `ctx.endpoint` (the sweep's `[[endpoints]]` entry for this URL), or the
    defaults when the sweep has none. The seed is the role's own, else the episode's.

    Raises:
        ApiKeyMissingError: the key variable is not set.
    """
    endpoint = ctx.endpoint if ctx.endpoint is not None else EndpointConfig(base_url=spec.endpoint)
    seed = ctx.model_seed
    return OpenAIEndpointClient(OpenAIEndpointClientConfig(
        model=spec.name,
        base_url=spec.endpoint,
        endpoint=endpoint,
        temperature=ctx.params.temperature,
        max_tokens=ctx.params.max_tokens,
        seed=seed,
        **ctx.params.request_params(),
        extra_body=ctx.params.extra_body,
    ))
