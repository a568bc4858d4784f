"""Wording variants of a task's surface text (the paraphrase panel, appendix G of the paper).

A wording variant rewords what the agents read of a task: the goal as they see it, the full record,
the visible notes and the pressure material. It never touches what defines the measurement: the
canonical blocker z, the action set and the twin's resolution stay as the task file has them, and
the checker keeps scoring against the task itself (`checker_view(scenario)`), so every instrument
sees the same view under every wording.

Variants are hand-written files, one per task and wording: `scenarios/wordings/<wording>/<task>.yaml`
(`mustmaybe/task-wording@1`). A file must reword every surface field its task has, so a variant
never mixes base and reworded text by accident. The base wording is the task file itself.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._model import Scenario

BASE_WORDING = "base"
WORDINGS_DIR = Path(__file__).resolve().parent / "wordings"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PressureWording(_Frozen):
    """The reworded pressure material (each key the task has, and only those)."""

    deadline_plan: str | None = None
    low_risk_frames: tuple[str, ...] = ()
    precedent: str | None = None
    ownership_note: str | None = None


class TaskWording(_Frozen):
    """One task's surface text in one wording variant."""

    schema_: Literal["mustmaybe/task-wording@1"] = Field(alias="schema", description="Format tag.")
    task: str = Field(description="The id of the task it rewords.")
    goal: str = Field(min_length=1, description="The goal as the agents read it (the checker keeps the task's).")
    full_context: str = Field(min_length=1, description="The full record the reviewer reads.")
    visible_notes: str = Field(default="", description="The notes every role may see.")
    pressure: PressureWording = Field(default_factory=PressureWording)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @property
    def digest(self) -> str:
        """sha256 of the variant's content (keys sorted): what the episode key digests."""
        canon = json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class WordingError(LookupError):
    """A wording that does not exist, or a task without (a valid) variant in it."""


def task_wordings() -> list[str]:
    """The wording variants with task text shipped (folders of scenarios/wordings), base first."""
    found = sorted(p.name for p in WORDINGS_DIR.iterdir() if p.is_dir()) if WORDINGS_DIR.is_dir() else []
    return [BASE_WORDING, *found]


def _mismatches(scenario: Scenario, w: TaskWording) -> list[str]:
    """Surface fields the variant leaves out or adds: a variant rewords exactly what its task has."""
    out: list[str] = []
    if bool(scenario.visible_notes.strip()) != bool(w.visible_notes.strip()):
        out.append("visible_notes: must be given exactly when the task has visible notes")
    p, q = scenario.pressure, w.pressure
    for key in ("deadline_plan", "precedent", "ownership_note"):
        if bool(getattr(p, key)) != bool(getattr(q, key)):
            out.append(f"pressure.{key}: must be given exactly when the task has it")
    if len(p.low_risk_frames) != len(q.low_risk_frames):
        out.append(f"pressure.low_risk_frames: the task has {len(p.low_risk_frames)}, the variant "
                   f"{len(q.low_risk_frames)}")
    return out


@cache
def _load(path: Path) -> TaskWording:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return TaskWording.model_validate(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise WordingError(f"{path}: cannot read the wording file: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(file)"
        raise WordingError(f"{path}: {where}: {first['msg']}") from None


def task_wording(scenario: Scenario, wording: str) -> TaskWording | None:
    """The task's variant in `wording` (None for the base wording).

    Raises:
        WordingError: the wording is unknown, the task has no variant in it, or the file is invalid
            (the message names the file and field).
    """
    if wording == BASE_WORDING:
        return None
    if wording not in task_wordings():
        raise WordingError(f"unknown wording '{wording}'; known: {', '.join(task_wordings())}")
    path = WORDINGS_DIR / wording / f"{scenario.id}.yaml"
    if not path.is_file():
        raise WordingError(f"task {scenario.id} has no '{wording}' wording of its text "
                           f"(scenarios/wordings/{wording}/{scenario.id}.yaml)")
    w = _load(path)
    if w.task != scenario.id:
        raise WordingError(f"{path}: task: names '{w.task}', not {scenario.id}")
    bad = _mismatches(scenario, w)
    if bad:
        raise WordingError(f"{path}: {bad[0]}")
    return w


def worded(scenario: Scenario, wording: str) -> Scenario:
    """The task as the agents read it in `wording`: its surface text replaced, the blocker, actions and
    resolution (what the checker and the outcome are defined by) kept. The base wording is the task."""
    w = task_wording(scenario, wording)
    if w is None:
        return scenario
    p = scenario.pressure.model_copy(update={
        "deadline_plan": w.pressure.deadline_plan, "low_risk_frames": w.pressure.low_risk_frames,
        "precedent": w.pressure.precedent, "ownership_note": w.pressure.ownership_note,
    })
    return scenario.model_copy(update={"goal": w.goal, "full_context": w.full_context,
                                       "visible_notes": w.visible_notes, "pressure": p})


def wording_problem(scenario: Scenario, wording: str) -> str | None:
    """Why the task cannot run in `wording` (None when it can)."""
    try:
        task_wording(scenario, wording)
    except WordingError as exc:
        return str(exc)
    return None
