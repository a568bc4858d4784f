"""Sweeps: the `mustmaybe/sweep@1` file, the episode planner, the async runner and its live display."""

from ._display import render
from ._file import SCHEMA, SweepError, SweepFile, read_sweep_file
from ._plan import PlannedEpisode, SweepPlan, episode_calls, plan_sweep, resolve_tasks, transformer_calls
from ._ray_pool import connect_ray
from ._runner import SweepRunner
from ._session import RESUME_POLICY, SweepOptions, execute_sweep
from ._tally import ConditionRow, EndpointStats, Tally
from ._watch import watch_run

__all__ = [
    "RESUME_POLICY",
    "SCHEMA",
    "ConditionRow",
    "EndpointStats",
    "PlannedEpisode",
    "SweepError",
    "SweepFile",
    "SweepOptions",
    "SweepPlan",
    "SweepRunner",
    "Tally",
    "connect_ray",
    "episode_calls",
    "execute_sweep",
    "plan_sweep",
    "read_sweep_file",
    "render",
    "resolve_tasks",
    "transformer_calls",
    "watch_run",
]
