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
    TopologySpec,
)
from ._registry import TeamPlan, TopologyInfo, get_topology, topology, topology_names
from ._sidecar import Sidecar
from ._spec import EpisodeSpec, episode_spec, parse_topology
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
    "TeamPlan",
    "TopologyInfo",
    "TopologySpec",
    "classify_error",
    "episode_spec",
    "get_topology",
    "parse_topology",
    "run_episode",
    "run_episode_sync",
    "topology",
    "topology_names",
]
