"""Labeled sets: folders of artifacts with gold labels, the material an instrument is measured on.

Layout (docs/labeled-sets.md):

    SET/labels.jsonl      one object per line: task, artifact, fields, state [, why, flags, ...]
    SET/tasks/<id>.yaml   the tasks the labels name (else the library's)
    SET/artifacts/<path>  the artifact texts

A set's split says what it may be used for: `tuning` (rules may be written while reading it), `test`
(no rule is written against it; it only measures) or `open` (test material whose writers invented their
own kinds of text, never told the families the tuning material covers). The split comes from `SET/split`
(one word) or, failing that, the folder name's prefix (`tune-…`, `test-…`, `open-…`); otherwise it is
`unspecified`. A line's `family` names the kind of text it is; leave-one-family-out estimates group by it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mustmaybe.scenarios import Scenario, ScenarioError, find_task, load_scenario

from ._model import State

FIELD_NAMES = ("status", "prerequisite", "authority", "fallback")
STATES: tuple[State, ...] = ("preserved", "deactivated", "undetermined")
Split = Literal["tuning", "test", "open", "unspecified"]
SPLITS = ("tuning", "test", "open")
FLAG_NAMES = ("caveat", "later_check", "omission", "assumed_authorization")


class LabeledSetError(ValueError):
    """A labeled set that cannot be read; the message names the file, line and key."""


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
    if marker.is_file():
        word = marker.read_text(encoding="utf-8").strip().lower()
        if word in SPLITS:
            return word  # type: ignore[return-value]
        raise LabeledSetError(f"{marker}: split must be 'tuning', 'test' or 'open', not {word!r}")
    if root.name.startswith(("tune-", "tuning-", "legacy-")):
        return "tuning"
    if root.name.startswith("test-"):
        return "test"
    if root.name.startswith("open-"):
        return "open"
    return "unspecified"


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


def _item(root: Path, n: int, raw: str, tasks: dict[str, Scenario]) -> LabeledItem:
    where = f"{root / 'labels.jsonl'}:{n}"
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as e:
        raise LabeledSetError(f"{where}: not JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise LabeledSetError(f"{where}: expected an object")
    for key in ("task", "artifact", "fields", "state"):
        if key not in obj:
            raise LabeledSetError(f"{where}: missing key '{key}'")
    task, art, fields, state = obj["task"], obj["artifact"], obj["fields"], obj["state"]
    if not isinstance(task, str) or not task:
        raise LabeledSetError(f"{where}: key 'task' must be a task id")
    if task not in tasks:
        try:
            tasks[task] = find_task(task)
        except ScenarioError:
            raise LabeledSetError(f"{where}: key 'task': no task '{task}' in {root / 'tasks'} or the library") from None
    if not isinstance(fields, dict) or set(fields) != set(FIELD_NAMES) or not all(
            isinstance(v, bool) for v in fields.values()):
        raise LabeledSetError(f"{where}: key 'fields' must map {', '.join(FIELD_NAMES)} to true/false")
    if state not in STATES:
        raise LabeledSetError(f"{where}: key 'state' must be one of {', '.join(STATES)}, not {state!r}")
    if not isinstance(art, str) or not art:
        raise LabeledSetError(f"{where}: key 'artifact' must be a path under {root / 'artifacts'}")
    path = (root / "artifacts" / art).resolve()
    if not path.is_relative_to((root / "artifacts").resolve()) or not path.is_file():
        raise LabeledSetError(f"{where}: key 'artifact': no file {root / 'artifacts' / art}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise LabeledSetError(f"{where}: key 'artifact': {path} is not UTF-8 text") from None
    why, family, flags = obj.get("why"), obj.get("family"), obj.get("flags")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        raise LabeledSetError(f"{where}: key 'family' must be a non-empty string")
    if flags is not None and (not isinstance(flags, dict) or not set(flags) <= set(FLAG_NAMES) or not all(
            isinstance(v, bool) for v in flags.values())):
        raise LabeledSetError(f"{where}: key 'flags' must map some of {', '.join(FLAG_NAMES)} to true/false")
    return LabeledItem(task=task, artifact=art, fields=fields, state=state,
                       why=why if isinstance(why, str) else None, family=family, flags=flags, text=text, line=n)


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
    items = tuple(_item(root, n, raw, tasks) for n, raw in enumerate(lines, 1) if raw.strip())
    if not items:
        raise LabeledSetError(f"{labels}: no labeled items")
    return LabeledSet(name=root.name, path=root, split=_split_of(root), items=items, tasks=tasks)
