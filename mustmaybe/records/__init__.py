"""The records that cross parts: model and topology specs, the resolved episode spec, the episode
record with its hops and carried stages, a judge's judgment of an artifact, and (re-exported from
the checker, which owns them) the checker's scores.

Imports only the stdlib, pydantic, the scenario models and the checker: never AutoGen, never
polars, so the store, analysis, `check`, `export` and `report` read runs without loading them.
"""

from mustmaybe.checker import ActionRule, ActionScore, ArtifactScore, FieldProfile, Flags, Span, State
from mustmaybe.scenarios import Condition, Scenario

from ._episode import (
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
    WordingRecord,
)
from ._facts import ScoredFacts, forbidden_on, overblocked_on, reviewer_identifies, scored_facts
from ._gate import GateRecord, GateStatus, Receipt, RepairRecord, ReplayBase, gate_digest
from ._judgment import Judgment
from ._models import (
    DEFAULT_OPENAI_BASE_URL,
    DEFAULT_SIM_PROFILE,
    REQUEST_PARAM_KEYS,
    Backend,
    EndpointConfig,
    ModelSpec,
    ModelSpecError,
    RoleParams,
    StructuredMode,
    api_key_problem,
    base_url_problem,
    parse_model_spec,
)
from ._spec import EpisodeSpec, ReplayArm
from ._stages import (
    COORDINATOR,
    PEER_PREFIX,
    PLANNER,
    REPAIR,
    REVIEWER,
    StagePlan,
    StageScorer,
    carried_stages,
    first_break_stage,
    plan_stages,
    stages_of,
    thread_text,
)
from ._substrate import DEFAULT_SUBSTRATE, SUBSTRATES, Substrate, SubstrateError, parse_substrate, substrate_problem
from ._team import TEAM_TOPOLOGY, TeamSource, component_digest
from ._twin import twin_reading

__all__ = [
    "COORDINATOR",
    "DEFAULT_OPENAI_BASE_URL",
    "DEFAULT_SIM_PROFILE",
    "DEFAULT_SUBSTRATE",
    "PEER_PREFIX",
    "PLANNER",
    "REPAIR",
    "REQUEST_PARAM_KEYS",
    "REVIEWER",
    "ROLES",
    "SUBSTRATES",
    "TEAM_TOPOLOGY",
    "ActionRule",
    "ActionScore",
    "ArtifactRecord",
    "ArtifactScore",
    "Backend",
    "Condition",
    "EndpointConfig",
    "EpisodeError",
    "EpisodeRecord",
    "EpisodeSpec",
    "ExecutorOutcome",
    "FieldProfile",
    "Flags",
    "GateRecord",
    "GateStatus",
    "Hop",
    "Isolation",
    "Judgment",
    "ModelSpec",
    "ModelSpecError",
    "Receipt",
    "RepairRecord",
    "ReplayArm",
    "ReplayBase",
    "Role",
    "RoleParams",
    "RoleUsage",
    "Scenario",
    "ScoredFacts",
    "Span",
    "Stage",
    "StageKind",
    "StagePlan",
    "StageScorer",
    "State",
    "StructuredMode",
    "Substrate",
    "SubstrateError",
    "TeamSource",
    "TopologySpec",
    "WordingRecord",
    "api_key_problem",
    "base_url_problem",
    "carried_stages",
    "component_digest",
    "first_break_stage",
    "forbidden_on",
    "gate_digest",
    "overblocked_on",
    "parse_model_spec",
    "parse_substrate",
    "plan_stages",
    "reviewer_identifies",
    "scored_facts",
    "stages_of",
    "substrate_problem",
    "thread_text",
    "twin_reading",
]
