"""Episode records → polars frames, built once: one row per episode, per hop, per carried stage.

Every analysis reads these frames only (DESIGN.md: "one polars frame per record level"). Records are
flattened into column lists in a single pass, so 100,000 episodes cost one loop and two frame builds.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from mustmaybe.records import ROLES, plan_stages

if TYPE_CHECKING:
    from mustmaybe.records import ArtifactScore, EpisodeRecord

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
    # One tuple per row, in the frame's column order (a row costs one tuple, not one list append per
    # column); the columns are the rows transposed (`_frame`).
    e: list[tuple[Any, ...]] = []
    h: list[tuple[Any, ...]] = []
    st: list[tuple[Any, ...]] = []
    f: list[tuple[Any, ...]] = []
    ev: list[tuple[Any, ...]] = []
    labels: dict[tuple[tuple[str, str], ...], tuple[dict[str, str], str]] = {}
    plans: dict[_PlanKey, list[_PlanPoint]] = {}
    seen: set[str] = set()
    dup = 0
    ep = 0
    # The loop allocates tuples by the million while every record is alive: the cyclic garbage collector
    # would walk all of them again and again (a third of the time), and none of it is garbage.
    paused = gc.isenabled()
    gc.disable()
    try:
        for run, records in _runs(episodes):
            for r in records:
                if dedupe:
                    if r.key in seen:
                        dup += 1
                        continue
                    seen.add(r.key)
                # The row keys every frame repeats, worked out once per record (each costs a few µs a call).
                configured, label = _configured(r, labels)
                keys = _Keys(*_condition_of(r, info), str(r.topology), configured, label)
                failed = bool(r.failed or r.artifact.score is None)
                ev.append(_evidence_row(r, run, keys, failed))
                if failed:  # nothing scored: counted as failed, in no rate
                    f.append(_failed_row(r, run, keys))
                    continue
                _flatten(r, ep, run, dom, keys, e, h, st, plans)
                ep += 1
        return Frames(
            episodes=_frame(e, _EP_COLS),
            hops=_frame(h, _HOP_COLS),
            duplicates=dup,
            stages=_frame(st, _STAGE_COLS),
            failed=_frame(f, _FAILED_COLS),
            evidence=_frame(ev, EVIDENCE_COLS),
        )
    finally:
        if paused:
            gc.enable()


def _frame(rows: list[tuple[Any, ...]], schema: dict[str, Any]) -> pl.DataFrame:
    """The frame of `rows` (tuples in `schema`'s column order), built column by column."""
    columns: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[] for _ in schema]
    data = {name: _string_lists(col) if schema[name] == pl.List(pl.String) else col
            for name, col in zip(schema, columns, strict=True)}
    return pl.DataFrame(data, schema=schema)


_SEP = "\x1f"  # the unit separator: joins a row's strings of a list column (never in a sentence of a text)


def _string_lists(values: Sequence[list[str]]) -> pl.Series | Sequence[list[str]]:
    """A list-of-strings column, from each row's strings joined and split again by polars: ten times faster
    than polars reading a Python list per row. An empty list is a null until the split, so it stays empty;
    a column with the separator in any string is read row by row."""
    if any(_SEP in x for v in values for x in v):
        return values
    joined = pl.Series([_SEP.join(v) if v else None for v in values], dtype=pl.String)
    empty = pl.lit(pl.Series([[]], dtype=pl.List(pl.String))).first()
    return pl.select(pl.lit(joined).str.split(_SEP).fill_null(empty)).to_series()


def _configured(r: EpisodeRecord, labels: dict[tuple[tuple[str, str], ...], tuple[dict[str, str], str]],
                ) -> tuple[dict[str, str], str]:
    """The record's configuration per role and its label; a record that names no configuration and sets no
    request parameter (the labels are its specs) looks them up by its models, worked out once per set."""
    if r.configs or r.params:
        configured = r.configuration()
        return configured, models_label(configured)
    key = tuple(r.models.items())
    found = labels.get(key)
    if found is None:
        configured = r.configuration()
        found = labels[key] = (configured, models_label(configured))
    return found


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


def _evidence_row(r: EpisodeRecord, run: str, keys: _Keys, failed: bool) -> tuple[Any, ...]:
    """The record's Frames.evidence row (EVIDENCE_COLS' order)."""
    reasons: dict[str, int] = {}
    calls = cached = prompt = completion = 0
    for u in r.usage.values():
        calls += u.calls
        cached += u.cached_calls
        prompt += u.prompt_tokens
        completion += u.completion_tokens
        for reason, n in (u.finish_reasons or {}).items():
            reasons[reason] = reasons.get(reason, 0) + n
    errors = r.errors
    return (
        run, r.key, keys.condition, keys.topology, r.topology.name, keys.label, r.panel, r.simulated, failed,
        not failed and not r.executor.parse_ok, calls, cached, prompt, completion,
        # Model-call failures are the errors that name the endpoint the call went to (teams/_episode.py).
        sum(1 for x in errors if x.endpoint is not None) if errors else 0,
        reasons.get("stop", 0), reasons.get("length", 0),
        sum(n for k, n in reasons.items() if k not in ("stop", "length")),
        max(0, calls - sum(reasons.values())),
        r.isolation.ok, list(r.isolation.leaks), any(x.kind == "isolation_leak" for x in errors),
        bool(r.visibility.get("executor")),
    )


def _failed_row(r: EpisodeRecord, run: str, keys: _Keys) -> tuple[Any, ...]:
    """The record's Frames.failed row (_FAILED_COLS' order): its row keys and the first error."""
    first = next((x for x in r.errors if x.role is not None), r.errors[0] if r.errors else None)
    return (
        run, r.key, r.task, keys.condition, keys.family, keys.control, keys.topology, keys.label, r.simulated,
        r.seed, r.twin, first.where if first else None, first.kind if first else "failed",
        first.message if first else "", r.panel, r.wording.id if r.wording is not None else "base", r.substrate,
    )


# A stage point read off the plan: (index, label, kind, messages, position of the hop whose score it takes).
_PlanPoint = tuple[int, str, str, int, int]
_PlanKey = tuple[str, tuple[tuple[int, str, str], ...]]


def _stage_points(r: EpisodeRecord, plans: dict[_PlanKey, list[_PlanPoint]],
                  ) -> list[tuple[int, str, str, int, ArtifactScore]]:
    """(index, label, kind, messages, score) per carried stage: as recorded, or for a record written before
    stages existed its one-hop stages (records.stages_of's). Those depend on the hops' indices, roles and
    senders only, so their plan is worked out once per topology family and hop layout (`plans`)."""
    if r.stages:
        return [(s.index, s.label, s.kind, len(s.hops), s.score) for s in r.stages]
    hops = r.hops
    key = (r.topology.name, tuple((h.index, h.role, h.sender) for h in hops))
    points = plans.get(key)
    if points is None:
        # As carried_stages(hops, None, family): a one-hop stage takes the score of the hop with that index
        # (the last such hop, as a dict by index would), a round (several hops) is left out.
        position = {h.index: i for i, h in enumerate(hops)}
        points = plans[key] = [(p.index, p.label, p.kind, len(p.hops), position[p.hops[0]])
                               for p in plan_stages(hops, r.topology.name) if p.kind != "round"]
    return [(index, label, kind, n, hops[at].score) for index, label, kind, n, at in points]


def _flatten(
    r: EpisodeRecord,
    ep: int,
    run: str,
    dom: Mapping[str, str],
    keys: _Keys,
    e: list[tuple[Any, ...]],
    h: list[tuple[Any, ...]],
    st: list[tuple[Any, ...]],
    plans: dict[_PlanKey, list[_PlanPoint]],
) -> None:
    score = r.artifact.score
    assert score is not None  # failed episodes (no score) go to _failed_row
    fields = score.fields
    state = score.state
    condition, family, control, topo = keys.condition, keys.family, keys.control, keys.topology
    configured = keys.configured  # the spec per role, or its configuration's label (a variant of one spec)
    label = keys.label
    simulated = r.simulated
    topology_name = r.topology.name
    reviewer_preserved: bool | None = None
    for hop in r.hops:
        hs = hop.score
        hf = hs.fields
        hop_preserved = hs.state == "preserved"
        if hop.index == 0 and hop.role == "reviewer":
            reviewer_preserved = hop_preserved
        h.append((ep, condition, topo, label, simulated, hop.index, hop.role, hs.state, hop_preserved,
                  hs.retention_score, hf.status, hf.prerequisite, hf.authority, hf.fallback))
    if reviewer_preserved is None:
        reviewer_preserved = r.reviewer_identified
    points = _stage_points(r, plans)
    for index, stage_label, kind, n_messages, ss in points:
        sf = ss.fields
        st.append((ep, condition, topo, topology_name, label, simulated, index, stage_label, kind, n_messages,
                   ss.state, ss.state == "preserved", ss.retention_score, sf.status, sf.prerequisite,
                   sf.authority, sf.fallback))
    preserved = state == "preserved"
    ex = r.executor
    base = r.replay_base
    checker = r.checker or f"rules@{r.checker_version}"
    e.append((
        ep, run, r.key, r.task, dom.get(r.task, UNKNOWN_DOMAIN), condition, family, control, topo, topology_name,
        r.seed, configured.get("reviewer"), configured.get("transformer"), configured.get("executor"), label,
        simulated, r.reviewer_identified, state, preserved, state == "deactivated", state == "undetermined",
        score.complete, ex.forbidden, ex.blocker_recognized, score.retention_score, reviewer_preserved,
        reviewer_preserved and not preserved, not fields.status, not fields.prerequisite, not fields.authority,
        not fields.fallback, r.first_break_hop, len(r.hops),
        r.first_break_stage if r.stages else next((i for i, _, _, _, s in points if s.state != "preserved"), None),
        len(r.stages) if r.stages else len(points), ex.parse_ok, len(r.errors), r.twin, r.condition,
        ex.requested_forbidden, ex.overblocked, ex.denied_by is not None,
        sum(u.prompt_tokens + u.completion_tokens for u in r.usage.values()) if r.usage else 0, checker,
        score.checker or checker,
        r.topology.params.get("route") if base is not None else None,
        base.key if base is not None else None, base.digest if base is not None else None,
        None if base is None else ",".join(r.repair.restored) if r.repair else "",
        None if base is None else bool(r.repair and r.repair.active_blocker),
        r.panel, r.wording.id if r.wording is not None else "base", r.substrate,
    ))


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
