"""Team topologies, the sidecar and the episode runner."""

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

__all__ = [
    "ROLES",
    "ArtifactRecord",
    "EpisodeError",
    "EpisodeRecord",
    "ExecutorOutcome",
    "Hop",
    "Isolation",
    "Role",
    "RoleUsage",
    "TopologySpec",
]
