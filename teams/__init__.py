"""Team topologies, the sidecar checker and the episode runner.

`episode_spec` resolves an episode's inputs once; `build_team(spec)` builds its clients, agents and
team; `run_episode(team, spec)` runs, scores, audits and returns the record.
"""

from mustmaybe.records import (
    ROLES,
    ArtifactRecord,
    EpisodeError,
    EpisodeRecord,
    EpisodeSpec,
    ExecutorOutcome,
    Hop,
    Isolation,
    Role,
    RoleUsage,
    Stage,
    StageKind,
    StagePlan,
    TopologySpec,
    carried_stages,
    first_break_stage,
    plan_stages,
    stages_of,
    thread_text,
)

from . import _topologies as _topologies  # registers the built-in topologies
from ._build import EpisodeTeam, build_team
from ._context import SourceFilterContext
from ._episode import classify_error, run_episode
from ._outcome import executor_outcome
from ._plan_board import PlanBoard
from ._registry import TeamPlan, TopologyInfo, get_topology, topology, topology_names
from ._sidecar import Sidecar
from ._spec import check_substrate, check_topology_text, episode_spec, material_problem, parse_topology
from ._topologies import COMPATIBLE

__all__ = [
    "COMPATIBLE",
    "ROLES",
    "ArtifactRecord",
    "EpisodeError",
    "EpisodeRecord",
    "EpisodeSpec",
    "EpisodeTeam",
    "ExecutorOutcome",
    "Hop",
    "Isolation",
    "PlanBoard",
    "Role",
    "RoleUsage",
    "Sidecar",
    "SourceFilterContext",
    "Stage",
    "StageKind",
    "StagePlan",
    "TeamPlan",
    "TopologyInfo",
    "TopologySpec",
    "build_team",
    "carried_stages",
    "check_substrate",
    "check_topology_text",
    "classify_error",
    "episode_spec",
    "executor_outcome",
    "first_break_stage",
    "get_topology",
    "material_problem",
    "parse_topology",
    "plan_stages",
    "run_episode",
    "stages_of",
    "thread_text",
    "topology",
    "topology_names",
]
