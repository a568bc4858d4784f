"""Carried stages: what each step of a team passes on toward the executor, per topology family.

The sidecar scores every message (a hop), and the record keeps them all. The drift curve does not plot
messages: it plots the artifact as the next reader receives it, and what that is depends on the family.

| family            | stage 0            | then                                                          |
|-------------------|--------------------|---------------------------------------------------------------|
| direct            | reviewer statement | (the statement is the handoff)                                |
| single, chain     | reviewer statement | each handoff message: `hop 1` … `hop N`                       |
| consensus         | reviewer statement | `round 1` … `round R`: the thread so far, then `coordinator`  |
| planner           | reviewer statement | `plan`: the planner's message the executor receives           |
| replay (R-*, V-*) | its base team's stages                      | `repair` when fields were restored      |
| team (a user's)   | reviewer statement | `turn 1` … `turn N`: each message the team emits, the last the handoff |

A user's team (`team:PATH.json`) names its own agents, so its stages never read meaning into a name
(an agent of its called `coordinator` or `peer_1` is one more turn): the family is passed in.

A peer's line is one voice in a discussion, not a handoff: the next peer and the coordinator read the
reviewer's statement and every line so far together, so a round is scored as that one thread. Scoring
each line alone would call a peer who only agrees ("I'd keep the reviewer's stop") a lost blocker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._episode import Hop, Stage, StageKind
from ._score import ArtifactScore
from ._team import TEAM_TOPOLOGY

# Agent names that tell a message's place in its topology family: the teams name their agents so,
# and the stages read them. A peer's line is one voice in a discussion, the coordinator's and the
# planner's a handoff.
REVIEWER = "reviewer"
PEER_PREFIX = "peer_"
COORDINATOR = "coordinator"
PLANNER = "planner"
REPAIR = "repair"  # the sender of the restored artifact a replay arm appends

# Scores the text of a stage that joins several hops (a consensus round); None skips such stages.
StageScorer = Callable[[str], ArtifactScore]


@dataclass(frozen=True)
class StagePlan:
    """A stage before scoring: which hops it joins and the text the next reader receives."""

    index: int
    label: str
    kind: StageKind
    hops: tuple[int, ...]
    senders: tuple[str, ...]
    text: str


def thread_text(hops: Sequence[Hop]) -> str:
    """A discussion as one transcript, each line under its speaker, in the order it was spoken."""
    return "\n\n".join(f"{h.sender}: {h.text}" for h in hops)


def _kind(hop: Hop, family: str | None) -> StageKind:
    if hop.role == "reviewer":
        return "statement"
    if family == TEAM_TOPOLOGY:
        return "handoff"
    if hop.sender.startswith(PEER_PREFIX):
        return "round"
    if hop.sender == COORDINATOR:
        return "summary"
    if hop.sender == PLANNER:
        return "plan"
    if hop.sender == REPAIR:
        return "repair"
    return "handoff"


def plan_stages(hops: Sequence[Hop], family: str | None = None) -> list[StagePlan]:
    """Group an episode's hops into its carried stages (see the module's table); `family` is the
    record's topology name (only `team` changes how hops group)."""
    plans: list[StagePlan] = []
    thread: list[Hop] = []  # what a consensus reader sees: the statement and every peer line so far
    round_hops: list[Hop] = []
    rounds = handoffs = 0

    def close_round() -> None:
        nonlocal rounds
        if round_hops:
            rounds += 1
            plans.append(StagePlan(len(plans), f"round {rounds}", "round", tuple(h.index for h in thread),
                                   tuple(h.sender for h in thread), thread_text(thread)))
            round_hops.clear()

    for hop in hops:
        kind = _kind(hop, family)
        if kind == "round":
            # Peers speak in a fixed order; a peer speaking again opens the next round.
            if any(h.sender == hop.sender for h in round_hops):
                close_round()
            round_hops.append(hop)
            thread.append(hop)
            continue
        close_round()
        if kind == "statement":
            thread.append(hop)
            label = "reviewer"
        elif kind == "handoff":
            handoffs += 1
            label = f"turn {handoffs}" if family == TEAM_TOPOLOGY else f"hop {handoffs}"
        else:
            label = {"summary": COORDINATOR, "plan": "plan", "repair": REPAIR}[kind]
        plans.append(StagePlan(len(plans), label, kind, (hop.index,), (hop.sender,), hop.text))
    close_round()  # a team that stopped mid-discussion still shows the thread it reached
    return plans


def carried_stages(hops: Sequence[Hop], score: StageScorer | None, family: str | None = None) -> list[Stage]:
    """The scored stages. A one-hop stage reuses its hop's score (the checker is a pure function of
    task and text); a round's thread is scored by `score`, or left out when `score` is None (a record
    written before stages existed, read where no checker or task is at hand)."""
    by_index = {h.index: h for h in hops}
    out: list[Stage] = []
    for p in plan_stages(hops, family):
        if p.kind != "round":
            s = by_index[p.hops[0]].score
        elif score is not None:
            s = score(p.text)
        else:
            continue
        out.append(Stage(index=p.index, label=p.label, kind=p.kind, hops=list(p.hops), senders=list(p.senders),
                         text=p.text, score=s))
    return out


def first_break_stage(stages: Sequence[Stage]) -> int | None:
    """Index of the first stage whose state is not preserved (None if every stage is)."""
    return next((s.index for s in stages if s.score.state != "preserved"), None)


def stages_of(hops: Sequence[Hop], stages: Sequence[Stage], family: str | None = None) -> list[Stage]:
    """A record's stages: as recorded, or (older records) the one-hop stages its hops still give."""
    return list(stages) if stages else carried_stages(hops, None, family)
