"""Team topologies, the sidecar checker and the episode runner."""

from . import _replay as _replay  # registers the replay topology
from . import _topologies as _topologies  # registers the built-in topologies
from ._context import SourceFilterContext
from ._episode import ClientWrapper, classify_error, run_episode, run_episode_sync
from ._plan_board import PlanBoard
from ._record import (
    ROLES,
    ArtifactRecord,
    EpisodeError,
    EpisodeRecord,
    ExecutorOutcome,
    Hop,
    Isolation,
    Role,
    RoleUsage,
    Stage,
    StageKind,
    TopologySpec,
)
from ._registry import TeamPlan, TopologyInfo, get_topology, topology, topology_names
from ._sidecar import Sidecar
from ._spec import EpisodeSpec, check_topology_text, episode_spec, parse_topology
from ._stages import StagePlan, carried_stages, first_break_stage, plan_stages, stages_of, thread_text
from ._topologies import COMPATIBLE

__all__ = [
    "COMPATIBLE",
    "ROLES",
    "ArtifactRecord",
    "ClientWrapper",
    "EpisodeError",
    "EpisodeRecord",
    "EpisodeSpec",
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
    "carried_stages",
    "check_topology_text",
    "classify_error",
    "episode_spec",
    "first_break_stage",
    "get_topology",
    "parse_topology",
    "plan_stages",
    "run_episode",
    "run_episode_sync",
    "stages_of",
    "thread_text",
    "topology",
    "topology_names",
]
