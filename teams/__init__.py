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
from mustmaybe.scenarios import wording_problem

from . import _topologies as _topologies  # registers the built-in topologies
from . import _trajectory as _trajectory  # registers single-call
from ._build import EpisodeTeam, build_team
from ._context import SourceFilterContext
from ._episode import classify_error, run_episode
from ._export import export_topology
from ._outcome import executor_outcome
from ._plan_board import PlanBoard
from ._registry import TeamPlan, TopologyInfo, get_topology, topology, topology_names
from ._sidecar import Sidecar
from ._spec import (
    check_substrate,
    check_topology_text,
    check_wording,
    episode_spec,
    material_problem,
    parse_topology,
    wording_names,
    wording_record,
)
from ._topologies import COMPATIBLE
from ._tracing import episode_span, note_outcome, store_span
from ._user_build import ClientSlot, own_client_problem
from ._user_team import load_team_file, team_for

__all__ = [
    "COMPATIBLE",
    "ROLES",
    "ArtifactRecord",
    "ClientSlot",
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
    "check_wording",
    "classify_error",
    "episode_span",
    "episode_spec",
    "executor_outcome",
    "export_topology",
    "first_break_stage",
    "get_topology",
    "load_team_file",
    "material_problem",
    "note_outcome",
    "own_client_problem",
    "parse_topology",
    "plan_stages",
    "run_episode",
    "stages_of",
    "store_span",
    "team_for",
    "thread_text",
    "topology",
    "topology_names",
    "wording_names",
    "wording_problem",
    "wording_record",
]
