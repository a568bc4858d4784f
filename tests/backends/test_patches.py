"""Guards for the runtime patches to pinned dependencies (agents/_patches.py).

Each patch is written against one release and one source text of the function it replaces. When a
dependency changes under it, `test_every_patch_fits_its_dependency` fails and names the patch: read
the new source, check that the patch's reasoning still holds (or that upstream fixed it), then update
`version` and `source_sha256`. The other tests check that each patched function returns what the
original does.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from mustmaybe.agents import _patches
from mustmaybe.agents._patches import PATCHES, dependency_patches, is_plain_json


@pytest.fixture
def patched() -> Iterator[None]:
    with dependency_patches(enabled=True) as keys:
        assert keys == [p.key for p in PATCHES]
        yield


@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: p.key)
def test_every_patch_fits_its_dependency(patch: _patches.Patch) -> None:
    problem = patch.problem()
    assert problem is None, (
        f"dependency patch {patch.key} no longer fits: {problem}. Re-read {patch.owner}.{patch.name} in the "
        f"installed {patch.distribution}, check the patch still returns what it returns, then update its "
        "version and source_sha256 in agents/_patches.py (or delete the patch if upstream fixed it)."
    )


def test_patches_are_restored_and_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from autogen_core._routed_agent import RoutedAgent

    before = RoutedAgent.__dict__["_discover_handlers"]
    with dependency_patches(enabled=True):
        assert RoutedAgent.__dict__["_discover_handlers"] is not before
        with dependency_patches(enabled=True):  # nested: the outer block's patches stay
            pass
        assert RoutedAgent.__dict__["_discover_handlers"] is not before
    assert RoutedAgent.__dict__["_discover_handlers"] is before
    monkeypatch.setenv(_patches.PATCHES_ENV, "off")
    with dependency_patches() as keys:
        assert keys == [] and RoutedAgent.__dict__["_discover_handlers"] is before


# --- openai: the chat-completion parameters -------------------------------------------------------


def _property_infos(tp: Any, seen: set[int]) -> Iterator[Any]:
    """Every PropertyInfo with an alias or a format anywhere in the type `tp` (TypedDicts followed)."""
    from typing import get_args, get_origin

    from openai._utils._transform import PropertyInfo
    from typing_extensions import get_type_hints, is_typeddict

    if id(tp) in seen:
        return
    seen.add(id(tp))
    origin = get_origin(tp)
    if origin is typing.Annotated:
        base, *meta = get_args(tp)
        for m in meta:
            if isinstance(m, PropertyInfo) and (m.alias is not None or m.format is not None):
                yield m
        yield from _property_infos(base, seen)
        return
    if is_typeddict(tp):
        for hint in get_type_hints(tp, include_extras=True).values():
            yield from _property_infos(hint, seen)
        return
    for arg in get_args(tp):
        yield from _property_infos(arg, seen)


def test_chat_params_declare_no_alias_and_no_format() -> None:
    """The fast transform relies on it: with neither, the SDK's walk changes nothing in plain JSON."""
    from openai.types.chat import completion_create_params as params

    for tp in (params.CompletionCreateParamsNonStreaming, params.CompletionCreateParamsStreaming):
        found = list(_property_infos(tp, set()))
        assert found == [], f"{tp.__name__} now declares {found}: the openai-chat-transform patch must go"


def _bodies() -> list[dict[str, Any]]:
    from openai import NOT_GIVEN, omit
    from pydantic import BaseModel

    from mustmaybe.agents._openai import json_schema_response_format

    class Decision(BaseModel):
        action: str
        reason: str

    messages = [{"role": "system", "content": "You review."}, {"role": "user", "content": "Hi", "name": "reviewer"},
                {"role": "assistant", "content": "ok", "name": "summarizer"},
                {"role": "user", "content": [{"type": "text", "text": "parts"}]}]
    base = {"model": "m", "stream": False, "messages": messages, "tools": NOT_GIVEN, "temperature": 0.7,
            "max_tokens": 256, "seed": 3, "n": omit, "user": omit}
    return [
        base,
        {**base, "response_format": json_schema_response_format(Decision)},  # json_schema mode
        {**base, "response_format": {"type": "json_object", "schema": Decision.model_json_schema()}},
        {**base, "response_format": {"type": "json_object"}},  # json_output=True
        {**base, "seed": NOT_GIVEN, "stop": ["\n\n"], "top_p": 1.0, "logit_bias": {"50256": -100}},
        {**base, "messages": tuple(messages)},  # not plain: the SDK's path
    ]


def test_chat_transform_returns_what_the_sdk_does(patched: None) -> None:
    from openai._utils import _transform
    from openai.resources.chat.completions import completions
    from openai.types.chat import completion_create_params as params

    fast = completions.async_maybe_transform
    assert fast is not _transform.async_maybe_transform
    for body in _bodies():
        for tp in (params.CompletionCreateParamsNonStreaming, params.CompletionCreateParamsStreaming):
            want = asyncio.run(_transform.async_maybe_transform(body, tp))
            got = asyncio.run(fast(body, tp))
            assert got == want and list(got) == list(want)


def test_plain_json() -> None:
    assert is_plain_json({"a": [1, 2.0, "x", None, True, {"b": []}]})
    assert not is_plain_json({"a": (1,)}) and not is_plain_json({1: "a"}) and not is_plain_json([b"x"])


# --- AutoGen: diagnostics ---------------------------------------------------------------------


def test_trace_block_is_a_null_context_only_for_a_noop_tracer(patched: None) -> None:
    from autogen_core._telemetry import MessageRuntimeTracingConfig, TraceHelper
    from opentelemetry.trace import INVALID_SPAN, NoOpTracerProvider

    helper = TraceHelper(NoOpTracerProvider(), MessageRuntimeTracingConfig("test"))
    with helper.trace_block("create", "x", None) as span:
        assert span is INVALID_SPAN

    class _Tracer:  # anything that is not the no-op tracer gets AutoGen's own path
        def __init__(self) -> None:
            self.names: list[str] = []

        def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Any:
            self.names.append(name)
            return NoOpTracerProvider().get_tracer("t").start_as_current_span(name)

    helper.tracer = _Tracer()  # type: ignore[assignment]
    with helper.trace_block("create", "x", None):
        pass
    assert helper.tracer.names == ["autogen create x"]  # type: ignore[attr-defined]


def test_genai_agent_spans_are_skipped_only_without_a_tracer_provider(patched: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import autogen_agentchat.agents._base_chat_agent as chat_agent
    import autogen_agentchat.teams._group_chat._chat_agent_container as container
    from opentelemetry import trace
    from opentelemetry.trace import INVALID_SPAN, ProxyTracerProvider

    spans = (chat_agent.trace_create_agent_span, chat_agent.trace_invoke_agent_span,
             container.trace_invoke_agent_span)
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: ProxyTracerProvider())  # none configured
    for span in spans:
        with span("reviewer", agent_description="d") as s:
            assert s is INVALID_SPAN
        with pytest.raises(ValueError), span("reviewer"):  # the block's own errors pass through as before
            raise ValueError("x")

    class _Tracer:  # a tracer the caller names, or a configured provider: AutoGen's own path
        def __init__(self) -> None:
            self.names: list[str] = []

        def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Any:
            self.names.append(name)
            return trace.NoOpTracerProvider().get_tracer("t").start_as_current_span(name)

    tracer = _Tracer()
    for span in spans:
        with span("reviewer", tracer=tracer):
            pass
    assert tracer.names == ["create_agent reviewer", "invoke_agent reviewer", "invoke_agent reviewer"]

    class _Provider(trace.TracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
            return tracer

    monkeypatch.setattr(trace, "get_tracer_provider", lambda: _Provider())
    with chat_agent.trace_create_agent_span("executor"):
        pass
    assert tracer.names[-1] == "create_agent executor"


def test_message_payload_is_serialized_when_someone_reads_it(patched: None, monkeypatch: pytest.MonkeyPatch,
                                                            ) -> None:
    from autogen_agentchat.messages import TextMessage
    from autogen_agentchat.teams._group_chat._events import GroupChatMessage
    from autogen_core import SingleThreadedAgentRuntime, try_get_known_serializers_for_type
    from autogen_core._single_threaded_agent_runtime import event_logger

    monkeypatch.setenv("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")
    runtime = SingleThreadedAgentRuntime()
    runtime.add_message_serializer(try_get_known_serializers_for_type(GroupChatMessage))
    message = GroupChatMessage(message=TextMessage(source="a", content="hello"))
    monkeypatch.setattr(event_logger, "level", logging.WARNING)
    event_logger.manager._clear_cache()
    assert runtime._try_serialize(message) == ""
    assert asyncio.run(runtime._create_otel_attributes(message=message)) == {}
    monkeypatch.setattr(event_logger, "level", logging.INFO)  # a handler's level: the events are read
    event_logger.manager._clear_cache()
    try:
        assert '"hello"' in runtime._try_serialize(message)
    finally:
        event_logger.manager._clear_cache()


def test_publish_queues_what_the_original_queues(patched: None, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Loggers off: the same envelope, without the log line; a logger on for INFO: the original, line and all."""
    from autogen_agentchat.messages import TextMessage
    from autogen_agentchat.teams._group_chat._events import GroupChatMessage
    from autogen_core import AgentId, CancellationToken, SingleThreadedAgentRuntime, TopicId
    from autogen_core._single_threaded_agent_runtime import logger as runtime_logger

    original = _patches._applied["autogen-publish-log"][1]
    message = GroupChatMessage(message=TextMessage(source="a", content="hello"))
    topic, sender, token = TopicId("group_topic_x", "default"), AgentId("a", "default"), CancellationToken()

    def envelope(publish: Any) -> Any:
        runtime = SingleThreadedAgentRuntime()
        asyncio.run(publish(runtime, message, topic, sender=sender, cancellation_token=token, message_id="m1"))
        return runtime._message_queue.get_nowait()

    monkeypatch.setattr(runtime_logger, "level", logging.CRITICAL)
    runtime_logger.manager._clear_cache()
    try:
        got, want = envelope(SingleThreadedAgentRuntime.publish_message), envelope(original)
        assert (got.message, got.topic_id, got.sender, got.cancellation_token, got.metadata, got.message_id) == (
            want.message, want.topic_id, want.sender, want.cancellation_token, want.metadata, want.message_id)
        monkeypatch.setattr(runtime_logger, "level", logging.INFO)
        runtime_logger.manager._clear_cache()
        with caplog.at_level(logging.INFO, logger="autogen_core"):
            envelope(SingleThreadedAgentRuntime.publish_message)
        assert "Publishing message of type GroupChatMessage" in caplog.text
    finally:
        runtime_logger.manager._clear_cache()


def test_handler_discovery_is_unchanged(patched: None) -> None:
    from autogen_agentchat.teams._group_chat._chat_agent_container import ChatAgentContainer
    from autogen_agentchat.teams._group_chat._graph._digraph_group_chat import GraphFlowManager

    original = _patches._applied["autogen-discover-handlers"][1].__func__
    for cls in (ChatAgentContainer, GraphFlowManager):
        want = original(cls)
        assert cls._discover_handlers() == want and cls._discover_handlers() == want
        assert cls._discover_handlers() is not cls._discover_handlers()  # callers get their own list


def test_component_dumps_are_unchanged(patched: None) -> None:
    """Every component of a built episode team, and classes described by their own docstring, a parent's,
    none or an explicit description, dump as the original dumps them, whichever class is dumped first."""
    from autogen_core import Component, ComponentBase
    from pydantic import BaseModel

    from mustmaybe.scenarios import find_task
    from mustmaybe.teams import build_team, episode_spec

    original = _patches._applied["autogen-component-description"][1]

    class _Cfg(BaseModel):
        x: int = 1

    class Parent(ComponentBase[_Cfg], Component[_Cfg]):
        """Parent's summary.

        Args:
            x: a number."""

        component_type = "test"
        component_config_schema = _Cfg
        component_provider_override = "tests.Parent"

        def _to_config(self) -> _Cfg:
            return _Cfg()

        @classmethod
        def _from_config(cls, config: _Cfg) -> Parent:
            return cls()

    class Child(Parent):
        """Child's own summary.\n\nMore."""

    class Quiet(Parent):
        pass

    Quiet.__doc__ = None

    class Described(Parent):
        component_description = "set explicitly"

    async def team_parts() -> list[Any]:
        models = dict.fromkeys(("reviewer", "transformer", "executor"), "openai:m@http://127.0.0.1:9/v1")
        team = build_team(episode_spec(find_task("vendor-summary-q3"), "G2", models=models, seed=2))
        return [team.plan.team, *team.plan.participants, team.executor]

    for obj in [*asyncio.run(team_parts()), Parent(), Child(), Quiet(), Described(), Child()]:
        want = original(obj).model_dump(mode="json")
        assert obj.dump_component().model_dump(mode="json") == want
        assert obj.dump_component().model_dump(mode="json") == want  # the second time, from the cache
    assert Child().dump_component().description == "Child's own summary."
    assert Quiet().dump_component().description is None


# --- httpcore2: the idle-connection probe ------------------------------------------------------


def test_idle_probe_answers_as_before(patched: None) -> None:
    import anyio
    from httpcore2._backends.anyio import AnyIOStream

    original = _patches._applied["httpcore-idle-probe"][1]

    async def run() -> list[tuple[bool, bool]]:
        server_side: list[socket.socket] = []
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        stream = AnyIOStream(await anyio.connect_tcp("127.0.0.1", port))
        conn, _ = listener.accept()
        server_side.append(conn)
        seen = [(stream.get_extra_info("is_readable"), original(stream, "is_readable"))]
        conn.close()  # the server hangs up: an idle connection turns readable (EOF)
        await asyncio.sleep(0.05)
        seen.append((stream.get_extra_info("is_readable"), original(stream, "is_readable")))
        assert stream.get_extra_info("socket") is stream._mustmaybe_raw_socket  # type: ignore[attr-defined]
        await stream.aclose()
        listener.close()
        return seen

    assert asyncio.run(run()) == [(False, False), (True, True)]


# A tool whose schema has references: AutoGen resolves them with jsonref (agents/_deferred.py defers it).
_TOOL_PROBE = """
import json, sys
import mustmaybe.agents
before = "requests" in sys.modules
from autogen_core.tools import FunctionTool
from pydantic import BaseModel
class Inner(BaseModel):
    x: int
class Outer(BaseModel):
    a: Inner
    b: list[Inner]
def f(o: Outer) -> str:
    return "ok"
print(json.dumps({"requests_before_use": before, "schema": FunctionTool(f, description="d").schema}))
"""


def test_jsonref_runs_on_first_use_and_resolves_a_tool_schema_as_before() -> None:
    import json
    import os
    import subprocess
    import sys

    def probe(patches: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-c", _TOOL_PROBE], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "MUSTMAYBE_DEPENDENCY_PATCHES": patches}, check=True)
        out: dict[str, Any] = json.loads(proc.stdout)
        return out

    deferred, plain = probe("on"), probe("off")
    assert deferred["requests_before_use"] is False  # nothing ran jsonref's body (and its requests import)
    assert plain["requests_before_use"] is True
    assert deferred["schema"] == plain["schema"]
    assert "$ref" not in json.dumps(deferred["schema"])  # the references were resolved
