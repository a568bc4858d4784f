"""Load and validate scenario files; every problem names the file, the field and what is wrong."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ._model import DOMAINS, Scenario

LIBRARY_DIR = Path(__file__).resolve().parent / "library"
_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one scenario file."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        return f"{where}: {self.message}"


class ScenarioError(ValueError):
    """A scenario file failed to load; `problems` lists every error found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def _field_path(loc: tuple[Any, ...], raw: Any) -> str:
    parts: list[str] = []
    node = raw
    for item in loc:
        if isinstance(item, int):
            label = None
            if isinstance(node, list) and 0 <= item < len(node) and isinstance(node[item], dict):
                label = node[item].get("id")
            parts[-1:] = [f"{parts[-1] if parts else ''}[{item}]" + (f"({label})" if label else "")]
            node = node[item] if isinstance(node, list) and 0 <= item < len(node) else None
        else:
            name = "schema" if item == "schema_" else str(item)
            parts.append(name)
            node = node.get(name) if isinstance(node, dict) else None
    return ".".join(parts)


def _problems_from(path: str, err: ValidationError, raw: Any) -> list[Problem]:
    out = []
    for e in err.errors():
        loc = tuple(x for x in e["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        field = _field_path(loc, raw) if loc else "(task)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling against docs/task-format.md)"
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        elif e["type"] in ("tuple_type", "list_type"):
            # The model holds tuples, which YAML users write as lists: say it in YAML's words.
            got = type(e.get("input")).__name__
            got = {"str": "a string", "dict": "a mapping", "int": "a number", "float": "a number",
                   "NoneType": "nothing"}.get(got, got)
            msg = f"expected a YAML list ([a, b] or one '- item' per line), got {got}"
        elif e["type"] == "literal_error" and field == "domain":
            msg = f"unknown domain {e.get('input')!r}; expected one of: {', '.join(DOMAINS)}"
        out.append(Problem(path, field, msg))
    return out


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError([Problem(str(path), "", f"cannot read file: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError([Problem(str(path), "", f"not UTF-8 text (byte {exc.start}); save the task file as UTF-8")]
                            ) from None
    try:
        # libyaml's parser when installed (~10x faster: the library loads at every start-up); any error is
        # reported by the pure-Python parser below, so messages do not depend on which is present.
        return yaml.load(text, Loader=_FAST_LOADER)  # a safe loader (CSafeLoader or SafeLoader)
    except yaml.YAMLError:
        pass
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError([Problem(str(path), "", f"not valid YAML{where}: {problem}")]) from None


def _cross_problems(path: str, raw: dict[str, Any]) -> list[Problem]:
    """The action-set rules, checked on the raw mapping so they are reported even when other
    fields fail (the model's own validator only runs once every field is valid)."""
    actions = raw.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        return []
    ids = [a.get("id") for a in actions]
    known = ", ".join(map(str, ids))
    out: list[Problem] = []
    dupes = sorted({str(i) for i in ids if i is not None and ids.count(i) > 1})
    if dupes:
        out.append(Problem(path, "actions", f"duplicate action id(s): {', '.join(dupes)}"))
    blocker = raw.get("blocker")
    fb = blocker.get("fallback_action") if isinstance(blocker, dict) else None
    if isinstance(fb, str) and fb not in ids:
        out.append(Problem(path, "blocker.fallback_action", f"'{fb}' names no action (known: {known})"))
    res = raw.get("resolution")
    ca = res.get("correct_action") if isinstance(res, dict) else None
    if isinstance(ca, str) and ca not in ids:
        out.append(Problem(path, "resolution.correct_action", f"'{ca}' names no action (known: {known})"))
    return out


def parse_scenario(raw: Any, path: str = "<memory>") -> Scenario:
    """Validate an already-parsed mapping as a scenario."""
    if not isinstance(raw, dict):
        kind = type(raw).__name__ if raw is not None else "an empty document"
        raise ScenarioError([Problem(path, "", f"not a scenario: expected a YAML mapping, got {kind}")])
    try:
        return Scenario.model_validate(raw)
    except ValidationError as err:
        problems = _problems_from(path, err, raw)
        if not any(p.field == "(task)" for p in problems):
            problems += _cross_problems(path, raw)
        raise ScenarioError(problems) from None


def load_scenario(path: str | Path) -> Scenario:
    """Load one task file. Raises ScenarioError listing every problem with its field path."""
    p = Path(path)
    scenario = parse_scenario(_read_yaml(p), str(p))
    if p.parent.name in DOMAINS and p.parent.name != scenario.domain:
        raise ScenarioError(
            [Problem(str(p), "domain", f"'{scenario.domain}' does not match its folder '{p.parent.name}'")]
        )
    return scenario


# Scenarios are frozen, so a hash is computed once per object: every episode, hop score and store
# row asks for it again. Keyed by id() with the object kept alive, so an id is never reused.
_HASHES: dict[int, tuple[Scenario, str]] = {}
_HASHES_MAX = 4096


def task_hash(scenario: Scenario) -> str:
    """sha256 of the task's normalized content: formatting and key order do not change it."""
    hit = _HASHES.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    canon = json.dumps(scenario.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canon.encode("utf-8")).hexdigest()
    if len(_HASHES) >= _HASHES_MAX:
        _HASHES.clear()
    _HASHES[id(scenario)] = (scenario, digest)
    return digest


def _yaml_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())
        else:
            yield p


def validate_paths(paths: Iterable[str | Path],
                   warnings: list[Problem] | None = None) -> tuple[list[Scenario], list[Problem]]:
    """Load every task file under `paths`; collect every problem, including duplicate ids across files.

    When `warnings` is given it receives what makes a valid task hard to measure (`view_warnings`)."""
    from ._lint import view_warnings

    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    files = list(_yaml_files(paths))
    for f in files:
        if not f.exists():
            problems.append(Problem(str(f), "", "no such file or directory"))
            continue
        try:
            s = load_scenario(f)
        except ScenarioError as exc:
            problems.extend(exc.problems)
            continue
        if s.id in seen:
            problems.append(Problem(str(f), "id", f"duplicate task id '{s.id}' (also in {seen[s.id]})"))
            continue
        seen[s.id] = str(f)
        scenarios.append(s)
        if warnings is not None:
            warnings.extend(view_warnings(s, str(f)))
    if not files:
        problems.extend(Problem(str(p), "", "no task files found") for p in paths)
    return scenarios, problems


def load_library(root: str | Path | None = None) -> list[Scenario]:
    """Every task of the shipped library (or of `root`), sorted by domain and id."""
    scenarios, problems = validate_paths([root or LIBRARY_DIR])
    if problems:
        raise ScenarioError(problems)
    return sorted(scenarios, key=lambda s: (s.domain, s.id))


def find_task(ref: str | Path, root: str | Path | None = None) -> Scenario:
    """A task by library id, or by path to a task file."""
    p = Path(ref)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return load_scenario(p)
    base = Path(root or LIBRARY_DIR)
    matches = list(base.glob(f"*/{ref}.yaml"))
    if not matches:
        known = sorted(q.stem for q in base.glob("*/*.yaml"))
        hint = ", ".join(known[:8]) + (" …" if len(known) > 8 else "")
        raise ScenarioError([Problem(str(ref), "", f"no such task in the library (known ids: {hint})")])
    return load_scenario(matches[0])
