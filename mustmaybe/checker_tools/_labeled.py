"""Labeled sets: folders of artifacts with gold labels, the material an instrument is measured on.

Layout (docs/labeled-sets.md):

    SET/labels.jsonl      one object per line: task, artifact, fields, state [, why, flags, ...]
    SET/tasks/<id>.yaml   the tasks the labels name (else the library's)
    SET/artifacts/<path>  the artifact texts

A set's split says what it may be used for: `tuning` (rules may be written while reading it), `test`
(no rule is written against it; it only measures) or `open` (test material whose writers invented their
own kinds of text, never told the families the tuning material covers). The split is `SET/split` (one
word), required: a folder's name says nothing about what the set may be used for, so a set without
the file is an error naming it. A line's `family` names the kind of text it is; leave-one-family-out
estimates group by it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.records import State
from mustmaybe.scenarios import Scenario, ScenarioError, find_task, load_scenario

FIELD_NAMES = ("status", "prerequisite", "authority", "fallback")
STATES: tuple[State, ...] = ("preserved", "deactivated", "undetermined")
Split = Literal["tuning", "test", "open"]
SPLITS = ("tuning", "test", "open")
FLAG_NAMES = ("caveat", "later_check", "omission", "assumed_authorization")


class LabeledSetError(ValueError):
    """A labeled set that cannot be read; the message names the file, line and key of every problem
    (`problems`: one line each, all of them at once)."""

    def __init__(self, message: str | list[str]) -> None:
        self.problems = [message] if isinstance(message, str) else list(message)
        text = self.problems[0] if len(self.problems) == 1 else \
            f"{len(self.problems)} problems:\n" + "\n".join(f"  {p}" for p in self.problems)
        super().__init__(text)


class LabeledItem(BaseModel):
    """One gold-labeled artifact."""

    model_config = ConfigDict(frozen=True)

    task: str
    artifact: str = Field(description="Path under SET/artifacts/.")
    fields: dict[str, bool]
    state: State
    why: str | None = None
    family: str | None = Field(default=None, description="The kind of text and the phenomenon it exercises.")
    flags: dict[str, bool] | None = Field(default=None, description="The coder's weakening judgments, when given.")
    text: str = Field(description="The artifact text, as read (UTF-8).")
    line: int = Field(description="Line number in labels.jsonl.")


class LabeledSet(BaseModel):
    """A labeled set, loaded and checked."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    path: Path
    split: Split
    items: tuple[LabeledItem, ...]
    tasks: dict[str, Scenario]


def _split_of(root: Path) -> Split:
    marker = root / "split"
    if not marker.is_file():
        raise LabeledSetError(f"{marker}: missing; a labeled set names its split in this file: one word, "
                              "tuning, test or open (docs/labeled-sets.md)")
    word = marker.read_text(encoding="utf-8").strip().lower()
    if word in SPLITS:
        return word  # type: ignore[return-value]
    raise LabeledSetError(f"{marker}: split must be 'tuning', 'test' or 'open', not {word!r}")


def _load_tasks(root: Path) -> dict[str, Scenario]:
    tasks: dict[str, Scenario] = {}
    folder = root / "tasks"
    if folder.is_dir():
        for p in sorted(folder.glob("*.yaml")):
            try:
                s = load_scenario(p)
            except ScenarioError as e:
                raise LabeledSetError(str(e)) from None
            tasks[s.id] = s
    return tasks


def _item(root: Path, n: int, raw: str, tasks: dict[str, Scenario]) -> tuple[LabeledItem | None, list[str]]:
    """One line of labels.jsonl as an item, or None and every problem it has (each naming file, line, key)."""
    where = f"{root / 'labels.jsonl'}:{n}"
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        return None, [f"{where}: not JSON ({e.msg})"]
    if not isinstance(obj, dict):
        return None, [f"{where}: expected an object"]
    problems = [f"{where}: missing key '{key}'" for key in ("task", "artifact", "fields", "state") if key not in obj]
    task, art, fields, state = obj.get("task"), obj.get("artifact"), obj.get("fields"), obj.get("state")
    if "task" in obj and (not isinstance(task, str) or not task):
        problems.append(f"{where}: key 'task' must be a task id")
    elif isinstance(task, str) and task and task not in tasks:
        try:
            tasks[task] = find_task(task)
        except ScenarioError:
            problems.append(f"{where}: key 'task': no task '{task}' in {root / 'tasks'} or the library")
    if "fields" in obj and (not isinstance(fields, dict) or set(fields) != set(FIELD_NAMES) or not all(
            isinstance(v, bool) for v in fields.values())):
        problems.append(f"{where}: key 'fields' must map {', '.join(FIELD_NAMES)} to true/false")
    if "state" in obj and state not in STATES:
        problems.append(f"{where}: key 'state' must be one of {', '.join(STATES)}, not {state!r}")
    text = None
    if "artifact" in obj and (not isinstance(art, str) or not art):
        problems.append(f"{where}: key 'artifact' must be a path under {root / 'artifacts'}")
    elif isinstance(art, str) and art:
        path = (root / "artifacts" / art).resolve()
        if not path.is_relative_to((root / "artifacts").resolve()) or not path.is_file():
            problems.append(f"{where}: key 'artifact': no file {root / 'artifacts' / art}")
        else:
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                problems.append(f"{where}: key 'artifact': {path} is not UTF-8 text")
    if problems or text is None:
        return None, problems
    why, family, flags = obj.get("why"), obj.get("family"), obj.get("flags")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        problems.append(f"{where}: key 'family' must be a non-empty string")
    if flags is not None and (not isinstance(flags, dict) or not set(flags) <= set(FLAG_NAMES) or not all(
            isinstance(v, bool) for v in flags.values())):
        problems.append(f"{where}: key 'flags' must map some of {', '.join(FLAG_NAMES)} to true/false")
    if problems:
        return None, problems
    return LabeledItem(task=task, artifact=art, fields=fields, state=state,  # type: ignore[arg-type]
                       why=why if isinstance(why, str) else None, family=family, flags=flags, text=text,
                       line=n), []


def load_labeled_set(path: str | Path) -> LabeledSet:
    """Load and check a labeled set folder.

    Args:
        path: The set's folder.

    Returns:
        The set with its items (artifact texts read) and the tasks they name.

    Raises:
        LabeledSetError: The folder, a line of labels.jsonl or a file it names is malformed.
    """
    root = Path(path)
    labels = root / "labels.jsonl"
    if not labels.is_file():
        raise LabeledSetError(f"{root}: not a labeled set (no labels.jsonl; see docs/labeled-sets.md)")
    tasks = _load_tasks(root)
    try:
        lines = labels.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise LabeledSetError(f"{labels}: not UTF-8 text") from None
    problems: list[str] = []
    items: list[LabeledItem] = []
    for n, raw in enumerate(lines, 1):
        if raw.strip():
            item, wrong = _item(root, n, raw, tasks)
            problems += wrong
            if item is not None:
                items.append(item)
    if not items and not problems:
        problems.append(f"{labels}: no labeled items")
    try:
        split = _split_of(root)
    except LabeledSetError as exc:
        problems += exc.problems
    if problems:  # every problem of the set at once, not the first one
        raise LabeledSetError(problems)
    return LabeledSet(name=root.name, path=root, split=split, items=tuple(items), tasks=tasks)
