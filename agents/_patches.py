"""Runtime patches to pinned dependencies that remove per-call CPU a sweep never uses.

Each patch replaces one function of AutoGen, the openai SDK or httpcore2 with one that returns the
same result (or, for diagnostics nobody listens to, skips building it) and is written so it could be
sent upstream: its docstring names the upstream change that would make it unnecessary. A patch
applies only to the exact version and source it was written against (`Patch.target`): when the
dependency changes under it, it is left out and `tests/backends/test_patches.py` fails, naming it.

A sweep applies them for its run (`dependency_patches()`, from `sweep.lean_runtime`) and restores
the originals after; `MUSTMAYBE_DEPENDENCY_PATCHES=off` runs without them. They change no stored
byte (tests/sweep/test_fast_path.py runs the same sweep both ways and compares the records).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.metadata
import inspect
import logging
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("mustmaybe.agents.patches")

PATCHES_ENV = "MUSTMAYBE_DEPENDENCY_PATCHES"  # "off" (or "0", "false", "no") runs without them


@dataclass(frozen=True)
class Patch:
    """One replaced function: where it lives, which release and source it was written against, and why.

    `owner` is a module path, optionally followed by `:Class`; `name` the attribute replaced there.
    `source_sha256` is the digest of the original's source text (`inspect.getsource`), so a release
    that changes the function without changing its version still leaves the patch out.
    """

    key: str
    distribution: str
    version: str
    owner: str
    name: str
    source_sha256: str
    make: Callable[[Any], Any]  # the original -> its replacement

    def holder(self) -> Any:
        module_name, _, cls = self.owner.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in filter(None, cls.split(".")):
            obj = getattr(obj, part)
        return obj

    def original(self) -> Any:
        """The attribute as stored (a classmethod object stays one)."""
        return self.holder().__dict__[self.name]

    def problem(self) -> str | None:
        """Why this patch does not fit the installed dependency (None: it fits)."""
        installed = _installed_version(self.distribution)
        if installed is None:
            return f"{self.distribution} is not installed"
        if installed != self.version:
            return f"{self.distribution} is {installed}, the patch was written for {self.version}"
        try:
            fn = _function_of(self.original())
            digest = hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()
        except (AttributeError, ImportError, KeyError, OSError, TypeError) as exc:
            return f"{self.owner}.{self.name} is not there any more ({type(exc).__name__}: {exc})"
        if digest != self.source_sha256:
            return f"{self.owner}.{self.name} changed (source sha256 {digest[:12]}, patched {self.source_sha256[:12]})"
        return None


@functools.cache
def _installed_version(distribution: str) -> str | None:
    """The installed version of `distribution` (None: not installed), read once per process: each read
    scans the path's metadata (~2 ms), and eight of the patches ask for autogen-core's."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _function_of(obj: Any) -> Any:
    """The plain function behind a classmethod/staticmethod/contextmanager, for its source text."""
    if isinstance(obj, classmethod | staticmethod):
        obj = obj.__func__
    return inspect.unwrap(obj)


# --- AutoGen: diagnostics that cost nothing when nobody listens --------------------------------


def _is_noop_tracer(tracer: object) -> bool:
    return type(tracer) is _noop_tracer_type()


@functools.cache
def _noop_tracer_type() -> type:
    # Imported once: the check runs on every routed message, an import statement each time costs ~4 µs.
    from opentelemetry.trace import NoOpTracer

    return NoOpTracer


def _make_trace_block(original: Any) -> Any:
    """`TraceHelper.trace_block` without span names or attribute dicts when tracing is off.

    With `AUTOGEN_DISABLE_RUNTIME_TRACING=true` the helper's tracer is OpenTelemetry's no-op tracer,
    yet every message (about 80 a 3-call episode) still formats a span name and builds two attribute
    dicts before the no-op tracer drops them. Upstream: have `trace_block` return a null context
    (holding `INVALID_SPAN`) when the helper's tracer is a `NoOpTracer`.
    """
    from opentelemetry.trace import INVALID_SPAN

    noop = contextlib.nullcontext(INVALID_SPAN)  # reusable: nullcontext keeps no state

    def trace_block(self: Any, operation: Any, destination: Any, parent: Any, **kwargs: Any) -> Any:
        if _is_noop_tracer(self.tracer):
            return noop
        return original(self, operation, destination, parent, **kwargs)

    return trace_block


def _make_create_otel_attributes(original: Any) -> Any:
    """`SingleThreadedAgentRuntime._create_otel_attributes` returns {} when tracing is off.

    Its result only feeds `trace_block`'s span attributes, but it is awaited on every delivery and
    looks up both agents and serializes the message to JSON first. Upstream: build the attributes
    only when the runtime's tracer records (or pass a callable that `trace_block` calls lazily).
    """

    async def _create_otel_attributes(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_noop_tracer(self._tracer_helper.tracer):
            return {}
        return await original(self, *args, **kwargs)

    return _create_otel_attributes


def _make_try_serialize(original: Any) -> Any:
    """`SingleThreadedAgentRuntime._try_serialize` skips the JSON when no one will read it.

    Every routed message is serialized for a `MessageEvent` (about 8 times per model call) before
    `event_logger.info` checks its level and drops the event. When that logger is off for INFO and
    tracing is off (the only other reader, through `_create_otel_attributes`), the payload is never
    seen, so an empty string stands in. Upstream: build `MessageEvent` only under
    `if event_logger.isEnabledFor(logging.INFO)`.
    """
    from autogen_core._single_threaded_agent_runtime import event_logger

    def _try_serialize(self: Any, message: Any) -> str:
        if not event_logger.isEnabledFor(logging.INFO) and _is_noop_tracer(self._tracer_helper.tracer):
            return ""
        result: str = original(self, message)
        return result

    return _try_serialize


def _make_publish_message(original: Any) -> Any:
    """`SingleThreadedAgentRuntime.publish_message` without its log line and event when nobody logs them.

    Every publish (about nine a 3-call episode) formats `f"... {message.__dict__}"` for `logger.info`,
    the repr of the whole message with its pydantic models, and builds a `MessageEvent` for
    `event_logger.info`, before either logger checks its level (mustmaybe's CLI sets both to CRITICAL).
    With both loggers off for INFO this is the original without those two statements; with either on,
    the original runs. Upstream: `if logger.isEnabledFor(logging.INFO)` around each, or lazy %-style
    arguments.
    """
    from autogen_core import CancellationToken
    from autogen_core._single_threaded_agent_runtime import (
        PublishMessageEnvelope,
        event_logger,
        get_telemetry_envelope_metadata,
    )
    from autogen_core._single_threaded_agent_runtime import logger as runtime_logger

    async def publish_message(self: Any, message: Any, topic_id: Any, *, sender: Any = None,
                              cancellation_token: Any = None, message_id: str | None = None) -> None:
        if runtime_logger.isEnabledFor(logging.INFO) or event_logger.isEnabledFor(logging.INFO):
            await original(self, message, topic_id, sender=sender, cancellation_token=cancellation_token,
                           message_id=message_id)
            return
        with self._tracer_helper.trace_block("create", topic_id, parent=None,
                                             extraAttributes={"message_type": type(message).__name__}):
            if cancellation_token is None:
                cancellation_token = CancellationToken()
            if message_id is None:
                message_id = str(uuid.uuid4())
            await self._message_queue.put(
                PublishMessageEnvelope(message=message, cancellation_token=cancellation_token, sender=sender,
                                       topic_id=topic_id, metadata=get_telemetry_envelope_metadata(),
                                       message_id=message_id)
            )

    return publish_message


def _make_discover_handlers(original: Any) -> Any:
    """`RoutedAgent._discover_handlers` once per class instead of once per agent.

    It walks `dir(cls)` and `getattr`s every attribute on each instantiation (every agent container
    of every episode). A class's handlers are fixed when the class is made. Upstream: compute them
    in `__init_subclass__` (or cache per class as here).
    """
    func = _function_of(original)
    cache: dict[type, tuple[Any, ...]] = {}

    def _discover_handlers(cls: type) -> list[Any]:
        handlers = cache.get(cls)
        if handlers is None:
            handlers = cache[cls] = tuple(func(cls))
        return list(handlers)  # a fresh list, as before: callers may keep or extend it

    return classmethod(_discover_handlers)


def _make_dump_component(original: Any) -> Any:
    """`ComponentToConfig.dump_component` with each class's description worked out once.

    A component without `component_description` is described by the first paragraph of its class
    docstring, which the original recomputes on every dump by splitting the whole docstring four times;
    GraphFlow's and AssistantAgent's run to many kilobytes, so that was half the CPU of dumping an
    episode's team (the record's `team_config.component`). The rest is the original, line for line.
    Upstream: compute the description once per class (`functools.cache` on a classmethod).
    """
    import warnings

    from autogen_core._component_config import ComponentModel, _type_to_provider_str

    described: dict[type, str | None] = {}

    def _description(cls: type) -> str | None:
        if cls not in described:
            description = None
            if cls.__doc__:
                docstring = cls.__doc__.strip()
                for marker in ["\n\nArgs:", "\n\nParameters:", "\n\nAttributes:", "\n\n"]:
                    docstring = docstring.split(marker)[0]
                description = docstring.strip()
            described[cls] = description
        return described[cls]

    def dump_component(self: Any) -> Any:
        if self.component_provider_override is not None:
            provider = self.component_provider_override
        else:
            provider = _type_to_provider_str(self.__class__)
            if "._" in provider:
                warnings.warn(
                    "Internal module name used in provider string. This is not recommended and may cause issues in "
                    "the future. Silence this warning by setting component_provider_override to this value.",
                    stacklevel=2,
                )
        if "<locals>" in provider:
            raise TypeError("Cannot dump component with local class")
        if not hasattr(self, "component_type"):
            raise AttributeError("component_type not defined")
        description = self.component_description
        if description is None:
            description = _description(self.__class__)
        obj_config = self._to_config().model_dump(exclude_none=True)
        return ComponentModel(
            provider=provider,
            component_type=self.component_type,
            version=self.component_version,
            component_version=self.component_version,
            description=description,
            label=self.component_label or self.__class__.__name__,
            config=obj_config,
        )

    return dump_component


def _make_genai_span(original: Any) -> Any:
    """AutoGen's GenAI agent spans (`trace_create_agent_span`, `trace_invoke_agent_span`) skipped when
    no tracer provider is configured.

    Every agent's construction and every turn opens one (six a 3-call episode) through OpenTelemetry's
    global tracer: `get_tracer`, an attribute dict, a span name, `start_as_current_span` and a context
    attach and detach, all for the no-op tracer of the API's proxy provider, whose span records nothing
    and carries its parent's context, which is what the block runs under without it. When the global
    provider is that proxy (none set; a provider set later is seen on the next span) and the caller names
    no tracer or parent, the block runs under a null context holding `INVALID_SPAN` (agentchat never
    reads the span); otherwise the original runs. AutoGen's runtime tracing switch
    (`AUTOGEN_DISABLE_RUNTIME_TRACING`) does not reach these. Upstream: check the switch, or
    `tracer.is_recording`-style laziness, before building the span.
    """
    from opentelemetry import trace
    from opentelemetry.trace import INVALID_SPAN, ProxyTracerProvider

    noop = contextlib.nullcontext(INVALID_SPAN)

    def span(agent_name: str, *, tracer: Any = None, parent: Any = None, agent_id: str | None = None,
             agent_description: str | None = None) -> Any:
        if tracer is None and parent is None and type(trace.get_tracer_provider()) is ProxyTracerProvider:
            return noop
        return original(agent_name, tracer=tracer, parent=parent, agent_id=agent_id,
                        agent_description=agent_description)

    return functools.wraps(original)(span)


# --- httpcore2: the idle-connection probe ------------------------------------------------------


def _make_get_extra_info(original: Any) -> Any:
    """`AnyIOStream.get_extra_info("is_readable")` without rebuilding anyio's attribute dict.

    The pool asks every idle connection whether it is readable on every request it assigns; each
    ask goes through anyio's `extra_attributes`, which builds a dict of lambdas and calls
    `getpeername()` only to return the raw socket, which never changes. Upstream: httpcore's
    AnyIOStream could keep the socket it got once (the known httpx/httpcore issue about
    `getpeername` on idle connections), or anyio could compute `remote_address` lazily.
    """
    import anyio.abc
    from httpcore2._utils import is_socket_readable

    raw_socket = anyio.abc.SocketAttribute.raw_socket

    def get_extra_info(self: Any, info: str) -> Any:
        if info == "is_readable":
            try:
                sock = self._mustmaybe_raw_socket
            except AttributeError:
                sock = self._mustmaybe_raw_socket = self._stream.extra(raw_socket, None)
            return is_socket_readable(sock)
        return original(self, info)

    return get_extra_info


# --- openai: the parameter transform of a plain chat request -----------------------------------


def is_plain_json(value: object) -> bool:
    """True for str/int/float/bool/None and dicts (str keys) and lists of them, all the way down."""
    t = type(value)
    if t is str or t is int or t is float or t is bool or value is None:
        return True
    if t is dict:
        return all(type(k) is str and is_plain_json(v) for k, v in value.items())  # type: ignore[attr-defined]
    if t is list:
        return all(is_plain_json(v) for v in value)  # type: ignore[attr-defined]
    return False


def _make_chat_transform(original: Any) -> Any:
    """`async_maybe_transform` as chat.completions.create uses it, short-cut for plain JSON bodies.

    The SDK walks every request's parameters against their TypedDicts (type hints, unions, every
    message) to rename aliased keys, format dates and files, dump pydantic models and turn iterables
    into lists. The chat-completion params declare no alias and no format (the guard test walks the
    types to check), so for a body that is already plain JSON the walk's only effect is dropping
    omitted arguments. Anything else (a pydantic model, a tuple, a date) takes the SDK's path.
    Upstream: skip the recursive transform when the expected type has no `PropertyInfo` anywhere
    (computable once per type) and the data is plain.
    """
    from openai._utils import is_given
    from openai.types.chat import completion_create_params as params

    chat_params = (params.CompletionCreateParamsNonStreaming, params.CompletionCreateParamsStreaming)

    async def async_maybe_transform(data: object, expected_type: object) -> Any:
        if type(data) is dict and expected_type in chat_params:
            body: dict[str, Any] = {}
            for key, value in data.items():
                if not is_given(value):
                    continue
                if not is_plain_json(value):
                    return await original(data, expected_type)
                body[key] = value
            return body
        return await original(data, expected_type)

    return async_maybe_transform


PATCHES: tuple[Patch, ...] = (
    Patch("autogen-trace-block", "autogen-core", "0.7.5", "autogen_core._telemetry._tracing:TraceHelper",
          "trace_block", "4acba9273febd0d88572b8183abcfa19e73cea36fda02c75ecf40cb6154ae491", _make_trace_block),
    Patch("autogen-otel-attributes", "autogen-core", "0.7.5",
          "autogen_core._single_threaded_agent_runtime:SingleThreadedAgentRuntime", "_create_otel_attributes",
          "1763d158669abce5302a0d74e97ccd5a1e2197f4c5fba762702875dad7b75358", _make_create_otel_attributes),
    Patch("autogen-message-event-payload", "autogen-core", "0.7.5",
          "autogen_core._single_threaded_agent_runtime:SingleThreadedAgentRuntime", "_try_serialize",
          "7fbddadea4f8681ea4f24d8ae2d59b2fcadf9919213cfee25d5fd364bcc6851d", _make_try_serialize),
    Patch("autogen-publish-log", "autogen-core", "0.7.5",
          "autogen_core._single_threaded_agent_runtime:SingleThreadedAgentRuntime", "publish_message",
          "0a60d866ab0e0fb3485986ec050c5d89c1e5272538e52b8f31741a4db21df2fd", _make_publish_message),
    Patch("autogen-discover-handlers", "autogen-core", "0.7.5", "autogen_core._routed_agent:RoutedAgent",
          "_discover_handlers", "094ec8e8710db15daf6f1e37a3ae1a3568fff1b53a953c083f69e84fc3ac0201",
          _make_discover_handlers),
    Patch("autogen-component-description", "autogen-core", "0.7.5", "autogen_core._component_config:ComponentToConfig",
          "dump_component", "51b4aa4286abf13c92c6f52cd3d9f632b2d8b1961d75eb2e9044565e99388e0c", _make_dump_component),
    Patch("autogen-genai-create-span", "autogen-core", "0.7.5", "autogen_agentchat.agents._base_chat_agent",
          "trace_create_agent_span", "aca5dfec0081a941e44f56ed134057217acbe1956377d9bf0cd3ecb771126243",
          _make_genai_span),
    Patch("autogen-genai-invoke-span", "autogen-core", "0.7.5", "autogen_agentchat.agents._base_chat_agent",
          "trace_invoke_agent_span", "303214ea4bdf21d075e14a57d25c7254b34ef21b625846df08cd69ee9d7951d1",
          _make_genai_span),
    Patch("autogen-genai-invoke-span-container", "autogen-core", "0.7.5",
          "autogen_agentchat.teams._group_chat._chat_agent_container", "trace_invoke_agent_span",
          "303214ea4bdf21d075e14a57d25c7254b34ef21b625846df08cd69ee9d7951d1", _make_genai_span),
    Patch("httpcore-idle-probe", "httpcore2", "2.16.2", "httpcore2._backends.anyio:AnyIOStream",
          "get_extra_info", "5a1fc78c3b92a83e389120b281d94bcbc5dc6905a0a83a7b15c0637308f79153", _make_get_extra_info),
    Patch("openai-chat-transform", "openai", "3.57.0", "openai.resources.chat.completions.completions",
          "async_maybe_transform", "b9d0fa66ce18357ee502f601fc6fcaa97d50154b69a93a12c6b9ae9dbbc998f8",
          _make_chat_transform),
)


def patches_wanted() -> bool:
    """False when `MUSTMAYBE_DEPENDENCY_PATCHES` turns them off."""
    return os.environ.get(PATCHES_ENV, "on").strip().lower() not in ("off", "0", "false", "no")


_applied: dict[str, tuple[Any, Any]] = {}  # key -> (holder, original attribute as it was stored)


def apply_patches() -> list[str]:
    """Apply every patch that fits the installed dependencies; the keys applied (already applied included).

    A patch that does not fit is left out and logged once; the run is then only slower.
    """
    done: list[str] = []
    for p in PATCHES:
        if p.key in _applied:
            done.append(p.key)
            continue
        problem = p.problem()
        if problem is not None:
            log.warning("dependency patch %s left out: %s", p.key, problem)
            continue
        holder = p.holder()
        stored = holder.__dict__[p.name]
        setattr(holder, p.name, p.make(p.original()))
        _applied[p.key] = (holder, stored)
        done.append(p.key)
    return done


def remove_patches(keys: list[str] | None = None) -> None:
    """Restore the originals that `apply_patches` replaced (all of them, or those in `keys`)."""
    names = {p.key: p.name for p in PATCHES}
    for key in [k for k in _applied if keys is None or k in keys]:
        holder, stored = _applied.pop(key)
        setattr(holder, names[key], stored)


@contextlib.contextmanager
def dependency_patches(enabled: bool | None = None) -> Iterator[list[str]]:
    """Run the block with the patches applied (unless turned off); restore what this call applied.

    Yields the keys in effect. Nested use keeps the outer block's patches.
    """
    if not (patches_wanted() if enabled is None else enabled):
        yield []
        return
    before = set(_applied)
    keys = apply_patches()
    try:
        yield keys
    finally:
        remove_patches([k for k in _applied if k not in before])
