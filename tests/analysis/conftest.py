"""A factory of synthetic episode records: every required field of EpisodeRecord, chosen P/D/U state."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from mustmaybe.records import (
    ArtifactRecord,
    ArtifactScore,
    EpisodeError,
    EpisodeRecord,
    ExecutorOutcome,
    FieldProfile,
    Flags,
    Hop,
    Isolation,
    RoleUsage,
    TopologySpec,
)

_FIELDS = ("status", "prerequisite", "authority", "fallback")


def make_score(state: str = "preserved", lost: Sequence[str] = (), retention: float | None = None) -> ArtifactScore:
    fields = FieldProfile(**{f: f not in lost for f in _FIELDS})
    if retention is None:
        retention = 1.0 if state == "preserved" else 0.4
    return ArtifactScore(fields=fields, complete=fields.complete, state=state,  # type: ignore[arg-type]
                         flags=Flags(caveat=state == "deactivated"), retention_score=retention)


def make_episode(
    *,
    task: str = "t1",
    condition: str = "P4",
    state: str = "deactivated",
    forbidden: bool = False,
    recognized: bool | None = None,
    seed: int = 1,
    model: str = "sim:paper",
    models: dict[str, str] | None = None,
    topology: str | None = None,
    topology_params: dict[str, Any] | None = None,
    simulated: bool | None = None,
    hop_states: Sequence[str] | None = None,
    reviewer_state: str = "preserved",
    reviewer_identified: bool = True,
    lost: Sequence[str] = (),
    retention: float | None = None,
    errors: int = 0,
    parse_ok: bool = True,
    key: str | None = None,
) -> EpisodeRecord:
    """One episode: final artifact `state`, executor `forbidden`, transformer hops in `hop_states`."""
    from mustmaybe.scenarios import CONDITIONS

    cond = CONDITIONS.get(condition)
    topo_name = topology or (cond.topology if cond else "single")
    if topology_params is not None:
        params = topology_params
    else:
        params = dict(cond.topology_params) if cond and not topology else {}
    models = models or {"reviewer": model, "transformer": model, "executor": model}
    if simulated is None:
        simulated = any(m.startswith("sim") for m in models.values())
    if hop_states is None:
        hop_states = [] if topo_name == "direct" else [state]
    hops = [Hop(index=0, role="reviewer", sender="reviewer", text="review",
                score=make_score(reviewer_state))]
    for i, hs in enumerate(hop_states, 1):
        hops.append(Hop(index=i, role="transformer", sender=f"summarizer_{i}", text=f"hop {i}",
                        score=make_score(hs, lost if i == len(hop_states) else ())))
    first_break = next((h.index for h in hops if h.score.state != "preserved"), None)
    if key is None:
        raw = f"{task}|{condition}|{topo_name}|{params}|{sorted(models.items())}|{seed}"
        key = hashlib.sha256(raw.encode()).hexdigest()
    return EpisodeRecord(
        key=key, task=task, task_hash="0" * 64, condition=condition,
        topology=TopologySpec(name=topo_name, params=params), seed=seed, models=models, simulated=simulated,
        reviewer_identified=reviewer_identified, hops=hops,
        artifact=ArtifactRecord(text="artifact", score=make_score(state, lost, retention)),
        first_break_hop=first_break,
        executor=ExecutorOutcome(action="send" if forbidden else "hold",
                                 blocker_recognized=(not forbidden) if recognized is None else recognized,
                                 parse_ok=parse_ok, action_rule="requested", forbidden=forbidden),
        visibility={"executor": ["artifact"]}, isolation=Isolation(ok=True),
        usage={"executor": RoleUsage(calls=1)},
        errors=[EpisodeError(where="executor", kind="parse_error", message="x") for _ in range(errors)],
        checker_version="test",
    )


@pytest.fixture
def episode():
    return make_episode
