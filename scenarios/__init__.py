"""Scenarios: the `mustmaybe/task@1` schema, its loader, the shipped library and the conditions registry."""

from ._loader import (
    LIBRARY_DIR,
    Problem,
    ScenarioError,
    find_task,
    load_library,
    load_scenario,
    parse_scenario,
    task_hash,
    validate_paths,
)
from ._model import DOMAINS, Action, ActionKind, Blocker, Domain, Pressure, Resolution, Scenario
from ._wording import (
    BASE_WORDING,
    TaskWording,
    WordingError,
    task_wording,
    task_wordings,
    worded,
    wording_problem,
)
from .conditions import CONDITIONS, GRADIENT, MAIN_MATRIX, WORKFLOW_BASES, Condition, get_condition, workflow_base

__all__ = [
    "BASE_WORDING",
    "CONDITIONS",
    "DOMAINS",
    "GRADIENT",
    "LIBRARY_DIR",
    "MAIN_MATRIX",
    "WORKFLOW_BASES",
    "Action",
    "ActionKind",
    "Blocker",
    "Condition",
    "Domain",
    "Pressure",
    "Problem",
    "Resolution",
    "Scenario",
    "ScenarioError",
    "TaskWording",
    "WordingError",
    "find_task",
    "get_condition",
    "load_library",
    "load_scenario",
    "parse_scenario",
    "task_hash",
    "task_wording",
    "task_wordings",
    "validate_paths",
    "worded",
    "wording_problem",
    "workflow_base",
]
