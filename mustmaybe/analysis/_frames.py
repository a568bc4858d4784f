"""Episode records → two polars frames, built once: one row per episode, one row per hop.

Every analysis reads these frames only (DESIGN.md: "one polars frame per record level"). Records are
flattened into column lists in a single pass, so 100,000 episodes cost one loop and two frame builds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from mustmaybe.teams import EpisodeRecord

ROLE_ORDER: tuple[str, ...] = ("reviewer", "transformer", "executor")
FIELDS: tuple[str, ...] = ("status", "prerequisite", "authority", "fallback")
UNKNOWN_DOMAIN = "unknown"


@dataclass(frozen=True)
class Frames:
    """The two analysis frames.

    Attributes:
        episodes: one row per episode (columns documented in `EPISODE_COLUMNS`).
        hops: one row per transmitted message, joined to its episode by `ep`.
        duplicates: episodes dropped because an earlier run already held the same episode key.
    """

    episodes: pl.DataFrame
    hops: pl.DataFrame
    duplicates: int = 0


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
    "model_reviewer / model_transformer / model_executor": "model spec per role (null if the role is absent)",
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
    "parse_ok": "the executor's answer parsed",
    "n_errors": "number of recorded errors",
    "twin": "benign twin episode",
}


def models_label(models: Mapping[str, str]) -> str:
    """One label for a role-model configuration: the spec if every role uses it, else role=spec pairs."""
    roles = [r for r in ROLE_ORDER if r in models] + sorted(r for r in models if r not in ROLE_ORDER)
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
            _flatten(r, ep, run, dom, info, e, h)
            ep += 1
    return Frames(
        episodes=pl.DataFrame(e, schema=_EP_COLS),
        hops=pl.DataFrame(h, schema=_HOP_COLS),
        duplicates=dup,
    )


def _flatten(
    r: EpisodeRecord,
    ep: int,
    run: str,
    dom: Mapping[str, str],
    info: Mapping[str, tuple[str, str | None]],
    e: dict[str, list[Any]],
    h: dict[str, list[Any]],
) -> None:
    score = r.artifact.score
    fields = score.fields
    state = score.state
    family, control = info.get(r.condition, ("unknown", None))
    condition = r.condition
    if r.twin and family != "twin":
        # A benign twin run under another condition (`mustmaybe run --twin`) measures over-blocking:
        # it gets its own row and family, never pooled with the blocked episodes of that condition.
        condition, family, control = f"{r.condition}+twin", "twin", None
    topo = str(r.topology)
    label = models_label(r.models)
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
    preserved = state == "preserved"
    models = r.models
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
        ("first_break_hop", r.first_break_hop), ("n_hops", len(r.hops)), ("parse_ok", r.executor.parse_ok),
        ("n_errors", len(r.errors)), ("twin", r.twin),
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
    "n_hops": pl.Int64, "parse_ok": pl.Boolean, "n_errors": pl.Int64, "twin": pl.Boolean,
}
_HOP_COLS: dict[str, Any] = {
    "ep": pl.Int64, "condition": pl.String, "topology": pl.String, "models": pl.String,
    "simulated": pl.Boolean, "index": pl.Int64, "role": pl.String, "state": pl.String,
    "preserved": pl.Boolean, "retention": pl.Float64, "status": pl.Boolean, "prerequisite": pl.Boolean,
    "authority": pl.Boolean, "fallback": pl.Boolean,
}


def empty_frames() -> Frames:
    """Frames with the full schema and no rows."""
    return Frames(episodes=pl.DataFrame(schema=_EP_COLS), hops=pl.DataFrame(schema=_HOP_COLS))
