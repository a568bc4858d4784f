"""Team topologies, the sidecar checker and the episode runner.

`read_topology` reads a topology's text once; `episode_spec` resolves an episode's inputs once;
`build_team(spec)` builds its clients, agents and team; `run_episode(team, spec)` runs, scores, audits
and returns the record.
"""

from . import _topologies as _topologies  # registers the built-in topologies
from . import _trajectory as _trajectory  # registers single-call
from ._build import EpisodeTeam, build_team
from ._context import SourceFilterContext
from ._episode import classify_error, run_episode
from ._export import export_topology
from ._outcome import executor_outcome
from ._plan_board import PlanBoard
from ._registry import (
    TeamPlan,
    TopologyInfo,
    check_compatible,
    compatible_topologies,
    get_topology,
    topology,
    topology_names,
)
from ._sidecar import Sidecar
from ._spec import (
    check_substrate,
    check_wording,
    episode_spec,
    material_problem,
    wording_names,
    wording_record,
)
from ._topology_text import TopologyRequest, check_topology_text, parse_topology, read_topology
from ._tracing import episode_span, note_outcome, store_span
from ._user_build import ClientSlot, own_client_problem
from ._user_team import load_team_file, team_for

__all__ = [
    "ClientSlot",
    "EpisodeTeam",
    "PlanBoard",
    "Sidecar",
    "SourceFilterContext",
    "TeamPlan",
    "TopologyInfo",
    "TopologyRequest",
    "build_team",
    "check_compatible",
    "check_substrate",
    "check_topology_text",
    "check_wording",
    "classify_error",
    "compatible_topologies",
    "episode_span",
    "episode_spec",
    "executor_outcome",
    "export_topology",
    "get_topology",
    "load_team_file",
    "material_problem",
    "note_outcome",
    "own_client_problem",
    "parse_topology",
    "read_topology",
    "run_episode",
    "store_span",
    "team_for",
    "topology",
    "topology_names",
    "wording_names",
    "wording_record",
]
