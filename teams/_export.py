"""Export one of our topologies as a user team: its real component config, ready to edit and run back.

`mustmaybe list topologies --export NAME[:k=v,...] -c C --out FILE` writes what `team:FILE` loads:
the team our builder makes for condition C on a task (its agents' system messages are that
condition's prompts for that task), as `team.dump_component()` writes it, without our reviewer.
Run back, our reviewer's statement is its task (a message from `reviewer`, as the built-in team's
first hop receives it), so each agent's context filter still reads what it read before.

Its model clients are the sim's, so the file runs as it is; `--model transformer=…` replaces them.
What a dump cannot hold is said in docs/user-teams.md: a consensus group's scripted speaking order
(its `selector_func`) does not survive, so the export's selector is the sim's (or the model's) choice.
"""

from __future__ import annotations

import copy
from typing import Any

from mustmaybe.records import REVIEWER, ROLES
from mustmaybe.scenarios import Condition, Scenario

from ._build import build_team, team_component
from ._spec import episode_spec


def _without_reviewer(component: dict[str, Any]) -> dict[str, Any]:
    """The team's config with our reviewer taken out (a graph's edges through it joined up)."""
    out = copy.deepcopy(component)
    cfg = out["config"]
    cfg["participants"] = [p for p in cfg["participants"] if p["config"].get("name") != REVIEWER]
    graph = cfg.get("graph")
    if isinstance(graph, dict):
        nodes: dict[str, Any] = graph["nodes"]
        gone = nodes.pop(REVIEWER, None)
        onward = [e for e in (gone or {}).get("edges", [])]
        for node in nodes.values():
            edges = node.get("edges", [])
            if any(e.get("target") == REVIEWER for e in edges):
                kept = [e for e in edges if e.get("target") != REVIEWER]
                node["edges"] = kept + [copy.deepcopy(e) for e in onward if e["target"] not in
                                        {k["target"] for k in kept}]
        if graph.get("default_start_node") == REVIEWER:
            graph["default_start_node"] = None
    return out


def export_topology(scenario: Scenario, condition: Condition, topology: str | None) -> dict[str, Any]:
    """The component config of `topology` (None: the condition's own) for `condition` on `scenario`.

    Raises:
        ValueError / LookupError: an unknown or incompatible topology, or one that builds no team.
    """
    spec = episode_spec(scenario, condition, models=dict.fromkeys(ROLES, "sim"),
                        topology=topology)
    if spec.replay is not None or spec.workflow or spec.team is not None or spec.topology.name == "single-call":
        raise ValueError(f"topology {spec.topology}: only our team topologies export (not replay arms, W, "
                         f"single-call's one-call trajectory or a team:PATH.json team)")
    built = build_team(spec)
    component = team_component(built.plan.team)
    if component is None:
        raise ValueError(f"topology {spec.topology}: its team could not be dumped")
    out = _without_reviewer(component)
    cfg = out["config"]
    if "selector_prompt" in cfg:  # its selector_func is not in the dump; the sim picks speakers instead
        from mustmaybe.sim import SimContext, sim_client

        sim = sim_client("paper", role="selector", agent="selector", seed=spec.seed,
                         context=SimContext(condition=condition.id, transform=condition.transform))
        cfg["model_client"] = sim.dump_component().model_dump(mode="json")
    return out
