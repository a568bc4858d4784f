"""`RUN/traces.jsonl`: one finished span per line (docs/traces.md), and the secret redaction every
destination shares.

Several processes of one sweep (`workers = N`) append to the same file: it is opened with
O_APPEND and each exported batch is one `write()`, so lines from different workers never interleave.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


def _value(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def span_dict(span: ReadableSpan) -> dict[str, Any]:
    """One span as its JSON line: ids as lowercase hex, times as Unix nanoseconds."""
    ctx = span.get_span_context()
    parent = span.parent
    scope = span.instrumentation_scope
    start, end = span.start_time or 0, span.end_time or 0
    return {
        "name": span.name,
        "trace_id": format(ctx.trace_id, "032x") if ctx else None,
        "span_id": format(ctx.span_id, "016x") if ctx else None,
        "parent_span_id": format(parent.span_id, "016x") if parent is not None else None,
        "kind": span.kind.name,
        "start_time_unix_nano": start,
        "end_time_unix_nano": end,
        "duration_ms": round((end - start) / 1e6, 3),
        "status": {"code": span.status.status_code.name, "description": span.status.description},
        "attributes": {k: _value(v) for k, v in (span.attributes or {}).items()},
        "events": [{"name": e.name, "time_unix_nano": e.timestamp,
                    "attributes": {k: _value(v) for k, v in (e.attributes or {}).items()}} for e in span.events],
        "links": [{"trace_id": format(lk.context.trace_id, "032x"), "span_id": format(lk.context.span_id, "016x"),
                   "attributes": {k: _value(v) for k, v in (lk.attributes or {}).items()}} for lk in span.links],
        "scope": {"name": scope.name, "version": scope.version} if scope is not None else None,
    }


class JsonLinesSpanExporter(SpanExporter):
    """Appends each span as one JSON line to `path` (created on the first export)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        data = "".join(json.dumps(span_dict(s), separators=(",", ":"), ensure_ascii=False, default=str) + "\n"
                       for s in spans).encode("utf-8")
        try:
            with self._lock:
                if self._fd is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view):]
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def _scrub(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        for s in secrets:
            value = value.replace(s, "***")
        return value
    if isinstance(value, tuple | list):
        return tuple(_scrub(v, secrets) for v in value)
    return value


class RedactingExporter(SpanExporter):
    """Replaces every key value in span attributes and event attributes with `***` before `inner`
    exports them, as the store does for what it writes (AutoGen's runtime spans carry message texts)."""

    def __init__(self, inner: SpanExporter, secrets: Sequence[str]) -> None:
        self.inner = inner
        self.secrets = [s for s in secrets if s]

    def _clean(self, span: ReadableSpan) -> ReadableSpan:
        from opentelemetry.sdk.trace import Event

        attrs = {k: _scrub(v, self.secrets) for k, v in (span.attributes or {}).items()}
        events = [Event(e.name, {k: _scrub(v, self.secrets) for k, v in (e.attributes or {}).items()}, e.timestamp)
                  for e in span.events]
        return ReadableSpan(name=span.name, context=span.get_span_context(), parent=span.parent,
                            resource=span.resource, attributes=attrs, events=events, links=span.links,
                            kind=span.kind, status=span.status, start_time=span.start_time, end_time=span.end_time,
                            instrumentation_scope=span.instrumentation_scope)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.inner.export([self._clean(s) for s in spans] if self.secrets else spans)

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis)
