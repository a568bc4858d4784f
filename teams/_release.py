"""Let go of an episode's AutoGen runtime once its team has finished, so reference counting frees it.

A `SingleThreadedAgentRuntime` keeps the factories its team registered (closures that hold the team,
which holds the runtime) and the agents it instantiated (each holding the runtime): one reference
cycle per episode through the team, its manager, its agent containers and everything they hold, a few
hundred objects that only Python's cyclic collector can free. Under a sweep those pile up in the
oldest generation until a full collection, or until the interpreter's own collection at exit (about
0.7 s of CPU after 640 episodes on the peer benchmark), and every young-generation pass walks them
on the way. Emptying the two registries once the runtime is idle breaks the cycle, so the episode is
freed the moment its last reference goes. A finished runtime is never used again (`run_episode` runs
a built team once); AutoGen has no public call that unregisters agents, hence the two private dicts,
checked to be there (tests/teams/test_release.py fails when AutoGen changes them).
"""

from __future__ import annotations

from typing import Any

from autogen_core import SingleThreadedAgentRuntime

# The runtime's registries of agent factories (by type) and instantiated agents (by id), in autogen-core 0.7.5.
_REGISTRIES = ("_agent_factories", "_instantiated_agents")


def release_runtime(runtime: Any) -> bool:
    """Empty a stopped AutoGen runtime's agent registries; True if it was one and they were emptied.

    Anything else (LangGraph's stand-in, a runtime without those registries) is left as it is.
    """
    if not isinstance(runtime, SingleThreadedAgentRuntime):
        return False
    registries = [r for name in _REGISTRIES if isinstance(r := getattr(runtime, name, None), dict)]
    if len(registries) != len(_REGISTRIES):
        return False
    for r in registries:
        r.clear()
    return True
