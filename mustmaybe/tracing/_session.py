"""The trace session: the OpenTelemetry SDK, loaded only when a command asks for traces.

One SDK `TracerProvider` per process, made on the first session and kept: OpenTelemetry's global
provider can be set only once, and AutoGen's agent spans use the global one. It records only while
a session is open (its sampler drops every span otherwise) and sends each span to the open
session's processor, so sessions can follow one another in one process (tests, notebooks) and a
closed one records nothing. A global provider someone else installed first is left alone: our
spans and the runtime's still go to ours; AutoGen's agent spans then go to theirs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import SpanKind

from ._jsonl import JsonLinesSpanExporter, RedactingExporter


class _Router(SpanProcessor):
    """Hands each span to the open session's processor; with none open, spans are not even sampled."""

    def __init__(self) -> None:
        self.target: SpanProcessor | None = None

    def on_start(self, span: Span, parent_context: otel_context.Context | None = None) -> None:
        target = self.target
        if target is not None:
            target.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        target = self.target
        if target is not None:
            target.on_end(span)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        target = self.target
        return target.force_flush(timeout_millis) if target is not None else True


class _WhileOpen(Sampler):
    """Records every span while a session is open, none otherwise."""

    def __init__(self, router: _Router) -> None:
        self.router = router

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None, attributes: Any = None,
                      links: Any = None, trace_state: Any = None) -> SamplingResult:
        decision = Decision.RECORD_AND_SAMPLE if self.router.target is not None else Decision.DROP
        return SamplingResult(decision, attributes if decision is Decision.RECORD_AND_SAMPLE else None)

    def get_description(self) -> str:
        return "mustmaybe: record while a trace session is open"


_ROUTER = _Router()
_PROVIDER: TracerProvider | None = None


def _provider() -> TracerProvider:
    global _PROVIDER
    if _PROVIDER is None:
        from mustmaybe import __version__

        # Resource.create also reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
        resource = Resource.create({"service.name": "mustmaybe", "service.version": __version__})
        _PROVIDER = TracerProvider(sampler=_WhileOpen(_ROUTER), resource=resource)
        _PROVIDER.add_span_processor(_ROUTER)
        if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):  # nobody configured one
            trace.set_tracer_provider(_PROVIDER)
    return _PROVIDER


def _exporter(run_dir: Path, secrets: Sequence[str]) -> tuple[SpanExporter, str]:
    from . import TRACES_FILE, otlp_endpoint

    endpoint = otlp_endpoint()
    if endpoint is not None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # It reads the endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables.
        inner: SpanExporter = OTLPSpanExporter()
        where = f"otlp:{endpoint}"
    else:
        inner = JsonLinesSpanExporter(run_dir / TRACES_FILE)
        where = str(run_dir / TRACES_FILE)
    return (RedactingExporter(inner, secrets) if any(secrets) else inner), where


class TraceSession:
    """This process's open trace session (`mustmaybe.tracing.start_tracing`)."""

    def __init__(self, run_dir: Path, exporter: SpanExporter | None, secrets: Sequence[str] = ()) -> None:
        self.run_dir = run_dir
        self.secrets = list(secrets)
        self.fixed = exporter is not None  # given by the caller: kept across a fork
        self.provider = _provider()
        from mustmaybe import __version__

        self.tracer = self.provider.get_tracer("mustmaybe", __version__)
        self.destination = "exporter given by the caller"
        self._processor = self._new_processor(exporter)
        _ROUTER.target = self._processor

    def _new_processor(self, exporter: SpanExporter | None) -> BatchSpanProcessor:
        if exporter is None:
            exporter, self.destination = _exporter(self.run_dir, self.secrets)
        return BatchSpanProcessor(exporter)

    def span(self, name: str, attributes: Any, kind: str | None) -> Any:
        return self.tracer.start_as_current_span(name, kind=SpanKind[kind] if kind else SpanKind.INTERNAL,
                                                 attributes=attributes)

    def after_fork(self) -> None:
        # The inherited processor's queue was emptied by the SDK's fork hook; its exporter (an open
        # file, or an HTTP connection pool) belongs to the parent. The child gets its own.
        if not self.fixed:
            self._processor = self._new_processor(None)
            _ROUTER.target = self._processor

    def flush(self) -> None:
        self._processor.force_flush()

    def close(self) -> None:
        _ROUTER.target = None
        self._processor.force_flush()
        self._processor.shutdown()


def open_session(run_dir: Path, exporter: SpanExporter | None, secrets: Sequence[str] = ()) -> TraceSession:
    return TraceSession(run_dir, exporter, secrets)
