"""The episode's span (`mustmaybe.episode`): opened by whoever runs the episode and stores it (the
`run` command, the sweep runner), so the store write is under it too; a no-op while tracing is off."""

from __future__ import annotations

from typing import Any

from mustmaybe import tracing
from mustmaybe.records import EpisodeRecord, EpisodeSpec


def episode_span(spec: EpisodeSpec) -> Any:
    """A context manager for the episode's span, with its inputs as attributes (`NO_SPAN` while off)."""
    if not tracing.enabled():
        return tracing.NO_SPAN
    attrs: dict[str, Any] = {"mustmaybe.episode.key": spec.key, "mustmaybe.task": spec.scenario.id,
                             "mustmaybe.condition": spec.condition.id, "mustmaybe.topology": str(spec.topology),
                             "mustmaybe.seed": spec.seed, "mustmaybe.twin": spec.twin,
                             "mustmaybe.simulated": spec.simulated}
    attrs.update({f"mustmaybe.model.{role}": str(m) for role, m in spec.models.items()})
    # Labels of the sweep's model configurations, its evidence panel and a paraphrase wording, where set.
    attrs.update({f"mustmaybe.config.{role}": name for role, name in spec.configs.items()})
    if spec.panel is not None:
        attrs["mustmaybe.panel"] = spec.panel
    if spec.wording != "base":
        attrs["mustmaybe.wording"] = spec.wording
    if spec.substrate != "autogen":
        attrs["mustmaybe.substrate"] = spec.substrate
    return tracing.span("mustmaybe.episode", attrs)


def note_outcome(span: Any, record: EpisodeRecord) -> None:
    """What the episode came to, on its span: failed (an error status), or the state and Y."""
    if not span.is_recording():
        return
    attrs: dict[str, Any] = {"mustmaybe.failed": record.failed, "mustmaybe.hops": len(record.hops),
                             "mustmaybe.errors": len(record.errors)}
    if record.artifact.score is not None:
        attrs["mustmaybe.state"] = record.artifact.score.state
    if record.executor.action is not None:
        attrs["mustmaybe.action"] = record.executor.action
    if record.executor.forbidden is not None:
        attrs["mustmaybe.forbidden"] = record.executor.forbidden
    if record.first_break_hop is not None:
        attrs["mustmaybe.first_break_hop"] = record.first_break_hop
    span.set_attributes(attrs)
    if record.failed:
        from opentelemetry.trace import Status, StatusCode

        first = record.errors[0] if record.errors else None
        span.set_attribute("error.type", first.kind if first is not None else "failed")
        span.set_status(Status(StatusCode.ERROR, first.message[:200] if first is not None else "failed episode"))


def store_span(key: str | None = None, episodes: int = 1) -> Any:
    """The span of one store write (`mustmaybe.store.write`); a no-op while off."""
    if not tracing.enabled():
        return tracing.NO_SPAN
    attrs: dict[str, Any] = {"mustmaybe.episodes": episodes}
    if key is not None:
        attrs["mustmaybe.episode.key"] = key
    return tracing.span("mustmaybe.store.write", attrs)
