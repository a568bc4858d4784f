"""OpenTelemetry traces of runs and sweeps (`--trace`, `trace = true`; docs/traces.md).

Off by default, and off costs nothing: this module imports no OpenTelemetry code, `span()` hands
back one shared no-op object, and the AutoGen runtime gets no tracer provider (as before). Only
`start_tracing()` loads the SDK (tracing/_session.py), when a command asks for traces.

On, one process-wide SDK tracer provider records: our spans (`mustmaybe.run` or `mustmaybe.sweep`,
`mustmaybe.episode`, `mustmaybe.hop`, `mustmaybe.checker.score`, `chat <model>` for every model call
with the GenAI semantic-convention attributes, `mustmaybe.store.write`) and AutoGen's own (the
runtime's publish/process spans, through the provider the runtime is given, and its agent spans,
through the global provider this installs when none is set). They go to OTLP/HTTP when
`OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, else to
`RUN/traces.jsonl`, one span per line.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from ._session import TraceSession

TRACES_FILE = "traces.jsonl"
OTLP_ENV = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")

Attributes = Mapping[str, Any]


class _NoSpan:
    """What `span()` yields while tracing is off: accepts every call and records nothing."""

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def set_attribute(self, key: str, value: Any) -> None:
        return None

    def set_attributes(self, attributes: Attributes) -> None:
        return None

    def is_recording(self) -> bool:
        return False


NO_SPAN = _NoSpan()
_session: TraceSession | None = None
_exporter_override: list[Any] = []


def enabled() -> bool:
    """Whether a trace session is open in this process (the hot path's only check)."""
    return _session is not None


def span(name: str, attributes: Attributes | None = None, *, kind: str | None = None) -> Any:
    """A context manager opening a span named `name` under the current one; a no-op while off.

    It yields the span (or `NO_SPAN`), so `set_attribute` works either way. `kind` is an
    OpenTelemetry SpanKind name (`CLIENT`, …; default INTERNAL).
    """
    session = _session
    if session is None:
        return NO_SPAN
    return session.span(name, attributes, kind)


def tracer_provider() -> Any:
    """The tracer provider for AutoGen's runtime while a session is open, else None (AutoGen's default)."""
    session = _session
    return session.provider if session is not None else None


def idle_provider(provider: object) -> bool:
    """Whether `provider` is mustmaybe's own tracer provider with no session open (it records nothing)."""
    if _session is not None:
        return False
    made = sys.modules.get(f"{__name__}._session")
    return made is not None and getattr(made, "_PROVIDER", None) is provider


def otlp_endpoint() -> str | None:
    """The OTLP endpoint the environment names (the traces-specific variable first), or None."""
    for name in OTLP_ENV:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def check_tracing() -> None:
    """Before any model call: the packages `--trace` needs here are installed.

    Raises:
        UserError: one line naming the missing extra (`trace`, or `otlp` when an OTLP endpoint is set).
    """
    try:
        import opentelemetry.sdk.trace
    except ModuleNotFoundError:
        raise UserError("--trace needs the optional extra 'trace' (the OpenTelemetry SDK), which is not installed; "
                        "install it with: pip install 'mustmaybe[trace]'") from None
    if _exporter_override:
        return
    endpoint = otlp_endpoint()
    if endpoint is None:
        return
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if protocol and protocol.strip() != "http/protobuf":
        raise UserError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: --trace exports OTLP over http/protobuf only; "
                        f"set it to http/protobuf or unset it")
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
    except ModuleNotFoundError:
        raise UserError(f"OTEL_EXPORTER_OTLP_ENDPOINT is set ({endpoint}), so --trace exports OTLP, which needs the "
                        f"optional extra 'otlp', not installed; install it with: pip install 'mustmaybe[otlp]' "
                        f"(or unset the variable to write {TRACES_FILE} in the run folder)") from None


def start_tracing(run_dir: str | Path, *, exporter: Any = None, secrets: Sequence[str] = ()) -> TraceSession:
    """Open this process's trace session: spans go to `exporter`, else OTLP or `run_dir/traces.jsonl`.

    Args:
        run_dir: the run folder (where `traces.jsonl` goes when no OTLP endpoint is set).
        exporter: an OpenTelemetry `SpanExporter` to use instead (also set by `exporting_to`).
        secrets: key values to replace with `***` in every span (as the store does).

    Raises:
        UserError: the extra the destination needs is not installed (as `check_tracing`).
        RuntimeError: a session is already open.
    """
    global _session
    if _session is not None:
        raise RuntimeError("a trace session is already open in this process")
    check_tracing()
    from ._session import open_session

    chosen = exporter if exporter is not None else (_exporter_override[-1] if _exporter_override else None)
    _session = open_session(Path(run_dir), chosen, secrets)
    return _session


def stop_tracing() -> None:
    """Flush every span to its destination and close the session (a no-op when none is open)."""
    global _session
    session, _session = _session, None
    if session is not None:
        session.close()


def after_fork() -> None:
    """In a forked worker: give the inherited session its own exporter (same destination)."""
    if _session is not None:
        _session.after_fork()


def flush() -> None:
    """Export every span ended so far (a forked worker calls it before it exits)."""
    if _session is not None:
        _session.flush()


def carrier() -> dict[str, str] | None:
    """The open session's current span as W3C trace-context headers, for a process that is not forked
    from this one (a Ray worker): None while tracing is off, or when spans go to an exporter given by
    the caller (another process cannot reach it)."""
    if _session is None or _session.fixed:
        return None
    from opentelemetry import propagate

    out: dict[str, str] = {}
    propagate.inject(out)
    return out


@contextlib.contextmanager
def continued(run_dir: str | Path, headers: dict[str, str] | None, *, secrets: Sequence[str] = ()) -> Iterator[None]:
    """In another process: open a session for `run_dir` whose spans are children of the span `headers`
    carries (`carrier()`), to the same destination (OTLP as this process's environment says, else
    `run_dir/traces.jsonl`, appended); flushed and closed at the end. None: tracing off, nothing happens."""
    if headers is None:
        yield
        return
    from opentelemetry import context as otel_context
    from opentelemetry import propagate

    start_tracing(run_dir, secrets=secrets)
    token = otel_context.attach(propagate.extract(headers))
    try:
        yield
    finally:
        otel_context.detach(token)
        stop_tracing()


def destination() -> str | None:
    """Where the open session's spans go, in words (`RUN/traces.jsonl`, `otlp:<endpoint>`), else None."""
    return _session.destination if _session is not None else None


@contextlib.contextmanager
def exporting_to(exporter: Any) -> Iterator[Any]:
    """Sessions opened inside the block (by `--trace`, say) export to `exporter`: an in-memory
    exporter in a test or a notebook, or any other OpenTelemetry `SpanExporter`."""
    _exporter_override.append(exporter)
    try:
        yield exporter
    finally:
        _exporter_override.remove(exporter)


@contextlib.contextmanager
def traced(run_dir: str | Path | None, root: str, attributes: Attributes | None = None, *,
           secrets: Sequence[str] = ()) -> Iterator[Any]:
    """Open a session for `run_dir` (None: tracing off) with a root span `root` around the block."""
    if run_dir is None:
        yield NO_SPAN
        return
    start_tracing(run_dir, secrets=secrets)
    try:
        with span(root, attributes) as sp:
            yield sp
    finally:
        stop_tracing()


__all__ = [
    "NO_SPAN",
    "OTLP_ENV",
    "TRACES_FILE",
    "after_fork",
    "carrier",
    "check_tracing",
    "continued",
    "destination",
    "enabled",
    "exporting_to",
    "flush",
    "idle_provider",
    "otlp_endpoint",
    "span",
    "start_tracing",
    "stop_tracing",
    "traced",
    "tracer_provider",
]
