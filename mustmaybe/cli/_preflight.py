"""Checks that run before the first frame: everything a `run` or a sweep needs, with the flag or key named.

`run` draws a live panel and a sweep starts its episodes only after these pass, so a bad topology
size, an unknown sim profile, a condition that cannot run, missing pressure material or an unset
key variable is one clear error (exit 2), never a failure glued to a panel's border or repeated
once per episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mustmaybe.agents import check_model_spec
from mustmaybe.errors import UserError
from mustmaybe.records import (
    DEFAULT_SUBSTRATE,
    EndpointConfig,
    ModelSpec,
    ModelSpecError,
    Substrate,
    SubstrateError,
    TopologySpec,
    api_key_problem,
    parse_substrate,
    substrate_problem,
)
from mustmaybe.scenarios import Condition, Scenario, wording_problem
from mustmaybe.teams import (
    check_substrate,
    check_wording,
    material_problem,
    own_client_problem,
    read_topology,
    team_for,
)


@dataclass(frozen=True)
class RunInputs:
    """What `mustmaybe run` resolved from its flags, checked."""

    specs: dict[str, ModelSpec]
    topologies: dict[str, TopologySpec]  # per condition id
    substrate: Substrate = DEFAULT_SUBSTRATE


def check_substrate_text(text: str, flag: str = "--substrate") -> Substrate:
    """A substrate named on the command line or in a sweep file, known and installed.

    Raises:
        UserError: one line naming `flag`: an unknown substrate, or a missing optional extra.
    """
    try:
        substrate = parse_substrate(text, where=flag)
    except SubstrateError as exc:
        raise UserError(str(exc)) from None
    problem = substrate_problem(substrate)
    if problem is not None:
        raise UserError(f"{flag} {substrate}: {problem}")
    return substrate


def team_topology_text(topology: str | None) -> bool:
    """True for `--topology team:PATH.json` (a user's own team)."""
    return topology is not None and topology.strip().startswith("team:")


def check_run_inputs(scenario: Scenario, conditions: Sequence[Condition], *, topology: str | None,
                     models: Mapping[str, str], twin: bool, trust: bool = False,
                     wording: str = "base", substrate: str = DEFAULT_SUBSTRATE) -> RunInputs:
    """Check a `run`'s task, conditions, topology, models, wording and substrate together, before anything
    is drawn.

    Raises:
        UserError: naming the flag (`-c`, `--topology`, `--model`, `--twin`, `--wording`, `--substrate`) and
            what is wrong.
    """
    try:
        check_wording(wording)
    except LookupError as exc:
        raise UserError(f"--wording: {exc.args[0]}") from None
    if (why := wording_problem(scenario, wording)) is not None:
        raise UserError(f"--wording {wording}: {why}")
    sub = check_substrate_text(substrate)
    specs: dict[str, ModelSpec] = {}
    for role, m in models.items():
        try:
            specs[role] = check_model_spec(m)
        except ModelSpecError as exc:
            raise UserError(f"--model: {exc}") from None
    topologies: dict[str, TopologySpec] = {}
    if specs.get("transformer") is not None and specs["transformer"].backend == "team" \
            and not team_topology_text(topology):
        raise UserError("--model transformer=team: a team's own clients run only under --topology team:PATH.json")
    for role in ("reviewer", "executor"):
        if specs[role].backend == "team":
            raise UserError(f"--model {role}=team: only the transformer role can be a team's own clients")
    try:
        request = read_topology(topology, trust=trust)  # the text (a team's file) is read once, for every condition
    except (ValueError, LookupError) as exc:
        raise _topology_error(topology, None, exc) from None
    for cond in conditions:
        if not cond.runnable:
            raise UserError(f"-c {cond.id}: condition {cond.id} ({cond.topology}) cannot be run as a live episode "
                            f"yet (see `mustmaybe list conditions`, column 'runs')")
        try:
            topologies[cond.id] = request.resolve(cond)
        except (ValueError, LookupError) as exc:
            raise _topology_error(topology, cond, exc) from None
        try:
            check_substrate(sub, topologies[cond.id])
        except SubstrateError as exc:
            flag = f"--topology {topology}" if topology else f"-c {cond.id}"
            raise UserError(f"{flag} --substrate {sub}: {exc}") from None
        if specs["transformer"].backend == "team" and (team := team_for(topologies[cond.id])) is not None \
                and (why := own_client_problem(team)) is not None:
            raise UserError(f"--topology {why}")
        if (twin or cond.family == "twin") and scenario.resolution is None:
            raise UserError(f"--twin: task {scenario.id} has no resolution, so it has no benign twin")
        why = material_problem(scenario, cond)
        if why is not None:
            raise UserError(f"-c {cond.id}: task {scenario.id} cannot run this condition: {why}")
    return RunInputs(specs=specs, topologies=topologies, substrate=sub)


def check_run_keys(endpoints: Mapping[str, EndpointConfig]) -> None:
    """Every endpoint a `run` calls has its key (by the rule of `mustmaybe.records.api_key_problem`).

    Raises:
        UserError: naming `--api-key-env` or OPENAI_API_KEY, never a value.
    """
    for ep in endpoints.values():
        problem = api_key_problem(ep)
        if problem:
            raise UserError(problem)


def _topology_error(topology: str | None, cond: Condition | None, exc: Exception) -> UserError:
    """One line naming the flag: `--topology TEXT` when one was given, else the condition's own."""
    flag = f"--topology {topology}" if topology or cond is None else f"-c {cond.id}"
    msg = str(exc.args[0] if exc.args else exc)
    # A team file's errors already start with team:PATH; said once.
    return UserError(f"--topology {msg}" if topology and msg.startswith(topology.strip() + ":") else f"{flag}: {msg}")
