"""Episode records → polars frames, built once: one row per episode, per hop, per carried stage.

Every analysis reads these frames only (DESIGN.md: "one polars frame per record level"). Records are
flattened into column lists in a single pass, so 100,000 episodes cost one loop and two frame builds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from mustmaybe.records import ROLES

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord

FIELDS: tuple[str, ...] = ("status", "prerequisite", "authority", "fallback")
UNKNOWN_DOMAIN = "unknown"


@dataclass(frozen=True)
class Frames:
    """The analysis frames.

    Attributes:
        episodes: one row per episode (columns documented in `EPISODE_COLUMNS`).
        hops: one row per transmitted message, joined to its episode by `ep`.
        duplicates: episodes dropped because an earlier run already held the same episode key.
        stages: one row per carried stage (what a step passes on toward the executor, records/_stages.py),
            joined to its episode by `ep`; the drift curve reads this frame, not `hops`.
        failed: one row per failed episode (a model call finally failed, so nothing was scored). They
            are in none of the other frames, so no rate counts them as safe or unsafe; tables report
            their number per row beside the rates (`FAILED_COLUMNS`).
        evidence: one row per episode, scored or failed: what the run itself shows about its evidence
            (model calls, tokens, finish reasons, failed calls, the context-isolation audit), `EVIDENCE_COLS`.
    """

    episodes: pl.DataFrame
    hops: pl.DataFrame
    duplicates: int = 0
    stages: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_STAGE_COLS))
    failed: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_FAILED_COLS))
    evidence: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=EVIDENCE_COLS))


EPISODE_COLUMNS: dict[str, str] = {
    "ep": "row number of the episode (join key for hops)",
    "run": "label of the run the episode came from",
    "key": "episode key (digest of its inputs)",
    "task": "task id",
    "domain": "task domain from the scenario library, or 'unknown'",
    "condition": "condition id",
    "family": "condition family from the registry ('unknown' for an unregistered id)",
    "control": "the condition's matched control id (null for a control)",
    "topology": "topology with parameters, e.g. chain:hops=3",
    "topology_name": "topology family (name without parameters)",
    "seed": "episode seed",
    "model_reviewer / model_transformer / model_executor": "model spec per role (null if the role is absent); a "
        "role that ran a named or parameterized configuration: its label (EpisodeRecord.configuration)",
    "models": "the role-model configuration as one label",
    "simulated": "any role ran on the sim backend",
    "reviewer_identified": "D_up: the reviewer's statement preserves the blocker",
    "state": "final artifact state: preserved | deactivated | undetermined",
    "P / D / U": "final artifact state indicators (0/1)",
    "C": "all four fields present in the final artifact (0/1)",
    "unsafe": "Y: executor.forbidden (0/1)",
    "recognized": "executor.blocker_recognized (0/1)",
    "retention": "final artifact retention score (0-1)",
    "reviewer_preserved": "the reviewer hop (index 0) is preserved (0/1)",
    "transition_loss": "reviewer hop preserved but final artifact not (0/1)",
    "lost_status / lost_prerequisite / lost_authority / lost_fallback": "field absent in the final artifact",
    "first_break_hop": "index of the first hop that is not preserved (null if none)",
    "n_hops": "number of transmitted messages",
    "first_break_stage": "index of the first carried stage that is not preserved (null if none)",
    "n_stages": "number of carried stages (records/_stages.py)",
    "parse_ok": "the executor's answer parsed",
    "n_errors": "number of recorded errors",
    "instrument": "the instrument that scored the record (rules@…, judge:…, panel:…, routed:…)",
    "decided_by": "the instrument that decided the final artifact's score (for routed: routed:rules or the judge)",
    "twin": "benign twin episode",
    "arm": "the record's own condition id (twin rows keep it; `condition` adds +twin)",
    "requested_unsafe": "executor.requested_forbidden: what the model asked for was forbidden (0/1)",
    "overblocked": "executor.overblocked: twins only, the correct action was held back (null off twins)",
    "denied": "an enforced control refused the request (executor.denied_by set)",
    "tokens": "prompt + completion tokens of every model call of the episode",
    "route": "replay arms: the executor route (topology parameter `route`; null when none is named)",
    "base_key / base_digest": "replay arms: the fixed base artifact's key and text digest (record.replay_base)",
    "restored": "R-* arms: the fields the repair inserted, comma-separated ('' when none; null off replay)",
    "active_blocker": "R-* arms: the package closed with the active-blocker line (all four fields inserted)",
    "panel": "the evidence panel its model configuration is marked with (main, validation, …; null: none)",
    "wording": "the wording variant of the prompts and task text the agents read (paraphrase panel; base if none)",
    "substrate": "the workflow substrate that ran the episode: autogen | langgraph (docs/substrates.md)",
}


def models_label(models: Mapping[str, str]) -> str:
    """One label for a role-model configuration: the spec if every role uses it, else role=spec pairs."""
    roles = [r for r in ROLES if r in models] + sorted(r for r in models if r not in ROLES)
    specs = {models[r] for r in roles}
    if len(specs) == 1:
        return next(iter(specs))
    return "; ".join(f"{r}={models[r]}" for r in roles)


def library_domains() -> dict[str, str]:
    """Task id → domain for the shipped scenario library (empty if it cannot be loaded)."""
    return dict(_library_domains())


@functools.cache
def _library_domains() -> tuple[tuple[str, str], ...]:
    try:
        from mustmaybe.scenarios import load_library

        return tuple((s.id, s.domain) for s in load_library())
    except Exception:  # the library is optional context for the report, never a reason to fail
        return ()


def _condition_info() -> dict[str, tuple[str, str | None]]:
    try:
        from mustmaybe.scenarios import CONDITIONS
    except Exception:
        return {}
    return {cid: (c.family, c.control) for cid, c in CONDITIONS.items()}


def _runs(
    episodes: Iterable[EpisodeRecord] | Mapping[str, Iterable[EpisodeRecord]],
) -> Sequence[tuple[str, Iterable[EpisodeRecord]]]:
    if isinstance(episodes, Mapping):
        return list(episodes.items())
    return [("run", episodes)]


def build_frames(
    episodes: Iterable[EpisodeRecord] | Mapping[str, Iterable[EpisodeRecord]],
    *,
    domains: Mapping[str, str] | None = None,
    dedupe: bool = True,
) -> Frames:
    """Flatten episode records into the episodes and hops frames.

    Args:
        episodes: records, or a mapping of run label → records (the label fills the `run` column).
        domains: task id → domain; defaults to the shipped scenario library. Unknown tasks get 'unknown'.
        dedupe: skip an episode whose key was already seen (the same episode passed twice, e.g. a run and
            its resumed copy) and count it in `duplicates`. Comparisons of two runs of the same sweep
            turn this off.

    Returns:
        The frames.
    """
    dom = dict(library_domains() if domains is None else domains)
    info = _condition_info()
    e: dict[str, list[Any]] = {k: [] for k in _EP_COLS}
    h: dict[str, list[Any]] = {k: [] for k in _HOP_COLS}
    st: dict[str, list[Any]] = {k: [] for k in _STAGE_COLS}
    f: dict[str, list[Any]] = {k: [] for k in _FAILED_COLS}
    ev: dict[str, list[Any]] = {k: [] for k in EVIDENCE_COLS}
    seen: set[str] = set()
    dup = 0
    ep = 0
    for run, records in _runs(episodes):
        for r in records:
            if dedupe:
                if r.key in seen:
                    dup += 1
                    continue
                seen.add(r.key)
            # The row keys every frame repeats, worked out once per record (each costs a few µs a call).
            configured = r.configuration()
            keys = _Keys(*_condition_of(r, info), str(r.topology), configured, models_label(configured))
            _flatten_evidence(r, run, keys, ev)
            if r.failed or r.artifact.score is None:  # nothing scored: counted as failed, in no rate
                _flatten_failed(r, run, keys, f)
                continue
            _flatten(r, ep, run, dom, keys, e, h, st)
            ep += 1
    return Frames(
        episodes=pl.DataFrame(e, schema=_EP_COLS),
        hops=pl.DataFrame(h, schema=_HOP_COLS),
        duplicates=dup,
        stages=pl.DataFrame(st, schema=_STAGE_COLS),
        failed=pl.DataFrame(f, schema=_FAILED_COLS),
        evidence=pl.DataFrame(ev, schema=EVIDENCE_COLS),
    )


def _condition_of(r: EpisodeRecord, info: Mapping[str, tuple[str, str | None]]) -> tuple[str, str, str | None]:
    """The episode's condition row label, family and control."""
    family, control = info.get(r.condition, ("unknown", None))
    if family == "workflow" and r.control:
        control = r.control  # W's control depends on its topology; the record names it
    if r.twin and family != "twin":
        # A benign twin run under another condition (`mustmaybe run --twin`) measures over-blocking:
        # it gets its own row and family, never pooled with the blocked episodes of that condition.
        return f"{r.condition}+twin", "twin", None
    return r.condition, family, control


class _Keys(NamedTuple):
    """A record's row keys, shared by the episodes, hops, stages, failed and evidence frames."""

    condition: str
    family: str
    control: str | None
    topology: str
    configured: dict[str, str]
    label: str


def _flatten_evidence(r: EpisodeRecord, run: str, keys: _Keys, ev: dict[str, list[Any]]) -> None:
    condition = keys.condition
    usage = r.usage.values()
    reasons: dict[str, int] = {}
    for u in usage:
        for reason, n in (u.finish_reasons or {}).items():
            reasons[reason] = reasons.get(reason, 0) + n
    calls = sum(u.calls for u in usage)
    for col, val in (
        ("run", run), ("key", r.key), ("condition", condition), ("topology", keys.topology),
        ("topology_name", r.topology.name), ("models", keys.label), ("panel", r.panel),
        ("simulated", r.simulated), ("failed", bool(r.failed or r.artifact.score is None)),
        ("parse_error", not r.failed and r.artifact.score is not None and not r.executor.parse_ok),
        ("calls", calls), ("cached_calls", sum(u.cached_calls for u in usage)),
        ("prompt_tokens", sum(u.prompt_tokens for u in usage)),
        ("completion_tokens", sum(u.completion_tokens for u in usage)),
        # Model-call failures are the errors that name the endpoint the call went to (teams/_episode.py).
        ("failed_calls", sum(1 for x in r.errors if x.endpoint is not None)),
        ("finish_stop", reasons.get("stop", 0)), ("finish_length", reasons.get("length", 0)),
        ("finish_other", sum(n for k, n in reasons.items() if k not in ("stop", "length"))),
        ("finish_unrecorded", max(0, calls - sum(reasons.values()))),
        ("isolation_ok", r.isolation.ok), ("executor_leaks", list(r.isolation.leaks)),
        ("transformer_leak", any(x.kind == "isolation_leak" for x in r.errors)),
        ("executor_view", bool(r.visibility.get("executor"))),
    ):
        ev[col].append(val)


def _flatten_failed(r: EpisodeRecord, run: str, keys: _Keys, f: dict[str, list[Any]]) -> None:
    condition, family, control = keys.condition, keys.family, keys.control
    first = next((x for x in r.errors if x.role is not None), r.errors[0] if r.errors else None)
    for col, val in (
        ("run", run), ("key", r.key), ("task", r.task), ("condition", condition), ("family", family),
        ("control", control), ("topology", keys.topology), ("models", keys.label),
        ("simulated", r.simulated), ("seed", r.seed), ("twin", r.twin), ("panel", r.panel),
        ("wording", r.wording.id if r.wording is not None else "base"),
        ("where", first.where if first else None), ("kind", first.kind if first else "failed"),
        ("message", first.message if first else ""), ("substrate", r.substrate),
    ):
        f[col].append(val)


def _flatten(
    r: EpisodeRecord,
    ep: int,
    run: str,
    dom: Mapping[str, str],
    keys: _Keys,
    e: dict[str, list[Any]],
    h: dict[str, list[Any]],
    st: dict[str, list[Any]],
) -> None:
    from mustmaybe.records import first_break_stage, stages_of

    score = r.artifact.score
    assert score is not None  # failed episodes (no score) go to _flatten_failed
    fields = score.fields
    state = score.state
    condition, family, control, topo = keys.condition, keys.family, keys.control, keys.topology
    configured = keys.configured  # the spec per role, or its configuration's label (a variant of one spec)
    label = keys.label
    reviewer_preserved: bool | None = None
    for hop in r.hops:
        hs = hop.score
        hf = hs.fields
        if hop.index == 0 and hop.role == "reviewer":
            reviewer_preserved = hs.state == "preserved"
        h["ep"].append(ep)
        h["condition"].append(condition)
        h["topology"].append(topo)
        h["models"].append(label)
        h["simulated"].append(r.simulated)
        h["index"].append(hop.index)
        h["role"].append(hop.role)
        h["state"].append(hs.state)
        h["preserved"].append(hs.state == "preserved")
        h["retention"].append(hs.retention_score)
        h["status"].append(hf.status)
        h["prerequisite"].append(hf.prerequisite)
        h["authority"].append(hf.authority)
        h["fallback"].append(hf.fallback)
    if reviewer_preserved is None:
        reviewer_preserved = r.reviewer_identified
    stages = stages_of(r.hops, r.stages, r.topology.name)
    for stage in stages:
        ss = stage.score
        sf = ss.fields
        for name, value in (
            ("ep", ep), ("condition", condition), ("topology", topo), ("topology_name", r.topology.name),
            ("models", label), ("simulated", r.simulated), ("index", stage.index), ("label", stage.label),
            ("kind", stage.kind), ("n_messages", len(stage.hops)), ("state", ss.state),
            ("preserved", ss.state == "preserved"), ("retention", ss.retention_score), ("status", sf.status),
            ("prerequisite", sf.prerequisite), ("authority", sf.authority), ("fallback", sf.fallback),
        ):
            st[name].append(value)
    preserved = state == "preserved"
    models = configured
    for col, val in (
        ("ep", ep), ("run", run), ("key", r.key), ("task", r.task),
        ("domain", dom.get(r.task, UNKNOWN_DOMAIN)), ("condition", condition), ("family", family),
        ("control", control), ("topology", topo), ("topology_name", r.topology.name), ("seed", r.seed),
        ("model_reviewer", models.get("reviewer")), ("model_transformer", models.get("transformer")),
        ("model_executor", models.get("executor")), ("models", label), ("simulated", r.simulated),
        ("reviewer_identified", r.reviewer_identified), ("state", state), ("P", preserved),
        ("D", state == "deactivated"), ("U", state == "undetermined"), ("C", score.complete),
        ("unsafe", r.executor.forbidden), ("recognized", r.executor.blocker_recognized),
        ("retention", score.retention_score), ("reviewer_preserved", reviewer_preserved),
        ("transition_loss", reviewer_preserved and not preserved),
        ("lost_status", not fields.status), ("lost_prerequisite", not fields.prerequisite),
        ("lost_authority", not fields.authority), ("lost_fallback", not fields.fallback),
        ("first_break_hop", r.first_break_hop), ("n_hops", len(r.hops)),
        ("first_break_stage", r.first_break_stage if r.stages else first_break_stage(stages)),
        ("n_stages", len(r.stages) if r.stages else len(stages)), ("parse_ok", r.executor.parse_ok),
        ("n_errors", len(r.errors)), ("twin", r.twin), ("arm", r.condition),
        ("requested_unsafe", r.executor.requested_forbidden), ("overblocked", r.executor.overblocked),
        ("denied", r.executor.denied_by is not None),
        ("tokens", sum(u.prompt_tokens + u.completion_tokens for u in r.usage.values())),
        ("instrument", r.checker or f"rules@{r.checker_version}"),
        ("decided_by", score.checker or r.checker or f"rules@{r.checker_version}"),
        ("route", r.topology.params.get("route") if r.replay_base is not None else None),
        ("base_key", r.replay_base.key if r.replay_base is not None else None),
        ("base_digest", r.replay_base.digest if r.replay_base is not None else None),
        ("restored", None if r.replay_base is None else ",".join(r.repair.restored) if r.repair else ""),
        ("active_blocker", None if r.replay_base is None else bool(r.repair and r.repair.active_blocker)),
        ("panel", r.panel),
        ("wording", r.wording.id if r.wording is not None else "base"),
        ("substrate", r.substrate),
    ):
        e[col].append(val)


_EP_COLS: dict[str, Any] = {
    "ep": pl.Int64, "run": pl.String, "key": pl.String, "task": pl.String, "domain": pl.String,
    "condition": pl.String, "family": pl.String, "control": pl.String, "topology": pl.String,
    "topology_name": pl.String, "seed": pl.Int64, "model_reviewer": pl.String,
    "model_transformer": pl.String, "model_executor": pl.String, "models": pl.String,
    "simulated": pl.Boolean, "reviewer_identified": pl.Boolean, "state": pl.String,
    "P": pl.Boolean, "D": pl.Boolean, "U": pl.Boolean, "C": pl.Boolean, "unsafe": pl.Boolean,
    "recognized": pl.Boolean, "retention": pl.Float64, "reviewer_preserved": pl.Boolean,
    "transition_loss": pl.Boolean, "lost_status": pl.Boolean, "lost_prerequisite": pl.Boolean,
    "lost_authority": pl.Boolean, "lost_fallback": pl.Boolean, "first_break_hop": pl.Int64,
    "n_hops": pl.Int64, "first_break_stage": pl.Int64, "n_stages": pl.Int64, "parse_ok": pl.Boolean,
    "n_errors": pl.Int64, "twin": pl.Boolean, "arm": pl.String, "requested_unsafe": pl.Boolean,
    "overblocked": pl.Boolean, "denied": pl.Boolean, "tokens": pl.Int64, "instrument": pl.String,
    "decided_by": pl.String, "route": pl.Int64, "base_key": pl.String, "base_digest": pl.String,
    "restored": pl.String, "active_blocker": pl.Boolean, "panel": pl.String, "wording": pl.String,
    "substrate": pl.String,
}
# What a failed episode contributes: its row keys and the first error (what stopped it).
_FAILED_COLS: dict[str, Any] = {
    "run": pl.String, "key": pl.String, "task": pl.String, "condition": pl.String, "family": pl.String,
    "control": pl.String, "topology": pl.String, "models": pl.String, "simulated": pl.Boolean, "seed": pl.Int64,
    "twin": pl.Boolean, "where": pl.String, "kind": pl.String, "message": pl.String, "panel": pl.String,
    "wording": pl.String, "substrate": pl.String,
}
FAILED_COLUMNS: tuple[str, ...] = tuple(_FAILED_COLS)
# One row per episode, scored or failed (Frames.evidence): the evidence-quality and isolation tables read it.
# finish_unrecorded counts calls of records written before finish reasons were recorded.
EVIDENCE_COLS: dict[str, Any] = {
    "run": pl.String, "key": pl.String, "condition": pl.String, "topology": pl.String, "topology_name": pl.String,
    "models": pl.String, "panel": pl.String, "simulated": pl.Boolean, "failed": pl.Boolean,
    "parse_error": pl.Boolean, "calls": pl.Int64, "cached_calls": pl.Int64, "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64, "failed_calls": pl.Int64, "finish_stop": pl.Int64, "finish_length": pl.Int64,
    "finish_other": pl.Int64, "finish_unrecorded": pl.Int64, "isolation_ok": pl.Boolean,
    "executor_leaks": pl.List(pl.String), "transformer_leak": pl.Boolean, "executor_view": pl.Boolean,
}
_HOP_COLS: dict[str, Any] = {
    "ep": pl.Int64, "condition": pl.String, "topology": pl.String, "models": pl.String,
    "simulated": pl.Boolean, "index": pl.Int64, "role": pl.String, "state": pl.String,
    "preserved": pl.Boolean, "retention": pl.Float64, "status": pl.Boolean, "prerequisite": pl.Boolean,
    "authority": pl.Boolean, "fallback": pl.Boolean,
}
# `index` is the stage's position on its topology family's drift axis (0 = the reviewer's statement).
_STAGE_COLS: dict[str, Any] = {
    "ep": pl.Int64, "condition": pl.String, "topology": pl.String, "topology_name": pl.String,
    "models": pl.String, "simulated": pl.Boolean, "index": pl.Int64, "label": pl.String, "kind": pl.String,
    "n_messages": pl.Int64, "state": pl.String, "preserved": pl.Boolean, "retention": pl.Float64,
    "status": pl.Boolean, "prerequisite": pl.Boolean, "authority": pl.Boolean, "fallback": pl.Boolean,
}
