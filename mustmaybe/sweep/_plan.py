"""Plan a sweep: resolve tasks, conditions, topologies and models into keyed episodes.

Planning runs no model. Each planned episode carries its resolved `EpisodeSpec`
(`mustmaybe.teams.episode_spec`), which the runner passes down as it is, and so the key its record
will have: a resumed sweep knows what is already done. It also carries the model calls it will
make per endpoint, so `--dry-run` can say what a sweep costs.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.records import (
    ROLES,
    TEAM_TOPOLOGY,
    EndpointConfig,
    EpisodeSpec,
    ModelSpec,
    RoleParams,
    SubstrateError,
    TopologySpec,
    api_key_problem,
)
from mustmaybe.scenarios import (
    DOMAINS,
    Condition,
    Scenario,
    ScenarioError,
    find_task,
    get_condition,
    load_library,
    task_hash,
    validate_paths,
    workflow_base,
)
from mustmaybe.teams import (
    TopologyRequest,
    check_wording,
    episode_spec,
    get_topology,
    material_problem,
    own_client_problem,
    read_topology,
    team_for,
)

from ._configs import RoleChoice, choice_panel, layered_params, role_choices
from ._file import SweepError, SweepFile, check_sweep_file

if TYPE_CHECKING:
    from mustmaybe.judges import InstrumentSpec


@dataclass(frozen=True)
class PlannedEpisode:
    """One task × condition × topology × role-models × seed: its resolved spec and its model calls."""

    spec: EpisodeSpec
    calls: tuple[tuple[str, int], ...] = ()

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def scenario(self) -> Scenario:
        return self.spec.scenario

    @property
    def condition(self) -> Condition:
        return self.spec.condition

    @property
    def topology(self) -> TopologySpec:
        return self.spec.topology

    @property
    def seed(self) -> int:
        return self.spec.seed

    @property
    def twin(self) -> bool:
        return self.spec.twin

    @cached_property
    def models(self) -> Mapping[str, str]:
        """Canonical model spec string per role."""
        return self.spec.model_names


@dataclass
class SweepPlan:
    """A resolved sweep: its episodes in run order and everything the runner and manifest need."""

    path: Path
    file: SweepFile
    text: str
    episodes: list[PlannedEpisode]
    params: dict[str, RoleParams]
    endpoints: dict[str, EndpointConfig]
    scenarios: dict[str, Scenario]
    calls_by_endpoint: dict[str, int]
    max_in_flight: int
    cache_path: Path | None
    instrument: InstrumentSpec  # the file's `checker`, parsed once by the planner
    workers: int = 1
    roles: dict[str, list[ModelSpec]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def checker_name(self) -> str:
        """The name of the instrument that scores this sweep's records (`rules@…`, `judge:…`, …)."""
        return self.instrument.name

    @property
    def simulated(self) -> bool:
        return any(e.spec.simulated for e in self.episodes)

    @property
    def digest(self) -> str:
        """What makes two sweep files 'the same sweep': the name and the set of episode keys.

        Execution settings (concurrency, rate, timeout, key variable, cache) are not part of it,
        so a resumed sweep may change them; a changed task file, model or seed is a new sweep.
        """
        body = json.dumps({"name": self.name, "keys": sorted(e.key for e in self.episodes)}, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()

    def key_problems(self) -> list[str]:
        """Endpoints whose API key variable is not set, each naming the sweep file's key (never a value)."""
        index = {e.base_url.rstrip("/"): i for i, e in enumerate(self.file.endpoints)}
        out = []
        for url, ep in sorted(self.endpoints.items()):
            problem = api_key_problem(ep)
            if problem:
                where = f"endpoints[{index[url]}].api_key_env" if url in index and ep.api_key_env else "roles"
                out.append(f"{where}: {problem}")
        return out

    def task_hashes(self) -> dict[str, str]:
        return {tid: task_hash(s) for tid, s in self.scenarios.items()}

    def resolved(self) -> dict[str, Any]:
        """The resolved sweep for the manifest (no secrets: key variables are names only)."""
        f = self.file
        return {
            "schema": f.schema_,
            "name": f.name,
            "sweep_file": str(self.path),
            "digest": self.digest,
            "task_entries": list(f.tasks),
            "tasks": sorted(self.scenarios),
            "conditions": list(f.conditions),
            "topologies": list(f.topologies),
            "seeds": list(f.seeds),
            "seeds_by_condition": {k: list(v) for k, v in f.seeds_by_condition.items()},
            # Only a paraphrase sweep names its wordings, so other manifests keep their shape.
            **({"wordings": list(f.wordings)} if list(f.wordings) != ["base"] else {}),
            "combine": f.combine,
            "roles": {r: [str(m) for m in self.roles[r]] for r in ROLES},
            "params": {r: p.model_dump(mode="json") for r, p in self.params.items()},
            "endpoints": [e.model_dump(mode="json") for e in self.endpoints.values()],
            **({"endpoint_settings": [e.model_dump(mode="json", include={"base_url", "panel", "params"})
                                      for e in f.endpoints]} if any(e.panel or e.params for e in f.endpoints) else {}),
            "max_in_flight": self.max_in_flight,
            "workers": self.workers,
            "trace": f.trace,
            "episodes": len(self.episodes),
            "calls_by_endpoint": dict(self.calls_by_endpoint),
            "skipped": list(self.skipped),
            # Only when the file sets them, so the manifest of a sweep that does not is what it was.
            **({"models": {k: v.model_dump(mode="json") for k, v in f.models.items()}} if f.models else {}),
            **({"panel": f.panel} if f.panel is not None else {}),
            # Only a sweep that names another substrate says so: an AutoGen sweep's manifest is as it was.
            **({"substrates": list(f.substrates)} if list(f.substrates) != ["autogen"] else {}),
        }


def transformer_calls(topology: TopologySpec) -> int:
    """Model calls the transformer roles make under the team `topology` (one per transformer turn), as its
    registry entry counts them (teams/_registry.py).

    Raises:
        LookupError: a topology that is not registered (never silently counted as one call).
    """
    info = get_topology(topology.name)
    return info.calls({**info.defaults, **topology.params})


def episode_calls(spec: EpisodeSpec) -> dict[str, int]:
    """Model calls per endpoint of one episode: reviewer 1, the transformers of the team that runs
    (a replay arm's base team makes its degraded artifact), executor 1."""
    per_role = {"reviewer": 1, "transformer": transformer_calls(spec.team_topology), "executor": 1}
    out: dict[str, int] = {}
    for role, n in per_role.items():
        if n:
            ep = spec.models[role].endpoint  # type: ignore[index]
            out[ep] = out.get(ep, 0) + n
    return out


# ------------------------------------------------------------------------------------- tasks
def resolve_tasks(entries: list[str], base_dir: Path) -> tuple[list[Scenario], list[str]]:
    """Task entries → scenarios (deduplicated by id, in first-seen order) and problems."""
    problems: list[str] = []
    out: dict[str, Scenario] = {}
    library: list[Scenario] | None = None

    def lib() -> list[Scenario]:
        nonlocal library
        if library is None:
            library = load_library()
        return library

    for i, entry in enumerate(entries):
        key = f"tasks[{i}]"
        found: list[Scenario] = []
        try:
            if entry.startswith("library:"):
                ref = entry[len("library:"):]
                if ref == "*":
                    found = lib()
                elif ref.endswith("/*"):
                    domain = ref[:-2]
                    if domain not in DOMAINS:
                        problems.append(f"{key}: unknown domain '{domain}'; domains: {', '.join(DOMAINS)}")
                        continue
                    found = [s for s in lib() if s.domain == domain]
                else:
                    found = [find_task(ref)]
            elif any(ch in entry for ch in "*?["):
                pattern = entry if Path(entry).is_absolute() else str(base_dir / entry)
                files = sorted(glob.glob(pattern, recursive=True))
                if not files:
                    problems.append(f"{key}: '{entry}' matches no task file")
                    continue
                scen, probs = validate_paths(files)
                problems += [f"{key}: {p}" for p in probs]
                found = scen
            elif "/" in entry or entry.endswith((".yaml", ".yml")):
                path = Path(entry) if Path(entry).is_absolute() else base_dir / entry
                if not path.exists():
                    problems.append(f"{key}: no such task file or folder: {path}")
                    continue
                scen, probs = validate_paths([path])
                problems += [f"{key}: {p}" for p in probs]
                found = scen
            else:
                found = [find_task(entry)]
        except ScenarioError as exc:
            problems += [f"{key}: {p}" for p in exc.problems]
            continue
        for s in found:
            prev = out.get(s.id)
            if prev is not None and task_hash(prev) != task_hash(s):
                problems.append(f"{key}: task id '{s.id}' is given twice with different content")
                continue
            out.setdefault(s.id, s)
    return list(out.values()), problems


# ------------------------------------------------------------------------------------- plan
def _role_choices(sf: SweepFile, specs: Mapping[str, ModelSpec]) -> dict[str, list[RoleChoice]]:
    """The sweep file's entries per role as specs with their configuration names (the file was checked)."""
    return role_choices({r: sf.roles[r] for r in ROLES}, sf.models, specs)


def _model_combos(sf: SweepFile, lists: dict[str, list[RoleChoice]]) -> list[dict[str, RoleChoice]]:
    ordered = [lists[r] for r in ROLES]
    if sf.combine == "product":
        return [dict(zip(ROLES, combo, strict=True)) for combo in itertools.product(*ordered)]
    n = max(len(v) for v in ordered)
    return [{r: (lists[r][i] if len(lists[r]) > 1 else lists[r][0]) for r in ROLES} for i in range(n)]


@dataclass(frozen=True)
class _Combo:
    """One model configuration of the sweep: spec, layered parameters and configuration name per role, panel."""

    models: dict[str, ModelSpec]
    params: dict[str, RoleParams]
    configs: dict[str, str]
    panel: str | None


def _combos(sf: SweepFile, choices: list[dict[str, RoleChoice]]) -> tuple[list[_Combo], list[str]]:
    """Each role-model combination with its layered parameters and panel; problems for mixed panels."""
    raw = dict(sf.params)
    defaults = {k: v for k, v in raw.items() if k not in ROLES}
    per_role: dict[str, Any] = {r: v for r, v in raw.items() if r in ROLES and isinstance(v, dict)}
    endpoints = {e.base_url.rstrip("/"): e for e in sf.endpoints}
    out: list[_Combo] = []
    problems: list[str] = []
    for combo in choices:
        panels = {r: choice_panel(c, endpoints=endpoints, models=sf.models) for r, c in combo.items()}
        marked = sorted({v for v in panels.values() if v is not None})
        if len(marked) > 1:
            roles = ", ".join(f"{r}={c.name or c.spec} ({panels[r]})" for r, c in combo.items() if panels[r])
            problems.append(f"panel: one model configuration would be in {' and '.join(marked)} at once ({roles}); "
                            "mark the configurations of one episode with one panel")
        out.append(_Combo(
            models={r: c.spec for r, c in combo.items()},
            params={r: layered_params(r, c, defaults=defaults, per_role=per_role, endpoints=endpoints,
                                      models=sf.models) for r, c in combo.items()},
            configs={r: c.name for r, c in combo.items() if c.name is not None},
            panel=marked[0] if marked else sf.panel))  # the file's panel: for episodes none of whose roles marks one
    return out, list(dict.fromkeys(problems))


def _endpoints(sf: SweepFile, combos: list[_Combo]) -> tuple[dict[str, EndpointConfig], list[str]]:
    configured = {e.base_url.rstrip("/"): e.config().model_copy(update={"base_url": e.base_url.rstrip("/")})
                  for e in sf.endpoints}
    used = {m.endpoint for c in combos for m in c.models.values() if m.backend == "openai"}
    warnings = []
    out: dict[str, EndpointConfig] = {}
    for url in sorted(used):
        if url in configured:
            out[url] = configured[url]
        else:
            out[url] = EndpointConfig(base_url=url)
            warnings.append(f"no [[endpoints]] entry for {url}; using the defaults "
                            f"(concurrency {out[url].concurrency}, timeout {out[url].timeout_s:g} s)")
    for url in configured:
        if url not in used:
            warnings.append(f"[[endpoints]] {url} is not used by any role")
    return out, warnings


def plan_sweep(path: str | Path) -> SweepPlan:
    """Load a sweep file and plan its episodes.

    Raises:
        SweepError: every problem of the file, each naming its key.
    """
    p = Path(path)
    checked = check_sweep_file(p)
    # The file's own problems and the planner's are listed together: one pass, every problem.
    problems: list[str] = list(checked.problems)
    scenarios, task_problems = resolve_tasks(checked.raw_list("tasks", []), p.resolve().parent)
    problems += task_problems
    # The --checker value is parsed here, once; the plan carries the parsed instrument to the runner.
    instrument: InstrumentSpec | None = None
    for checker in checked.raw_list("checker", ["rules"]):
        instrument, checker_problems = _parse_checker(checker)
        problems += checker_problems
    conditions: list[Condition] = []
    for i, cid in enumerate(checked.raw_list("conditions", [])):
        try:
            cond = get_condition(cid)
        except LookupError as exc:
            problems.append(f"conditions[{i}]: {exc.args[0]}")
            continue
        if not cond.runnable:
            problems.append(f"conditions[{i}]: condition {cid} ({cond.topology}) cannot be run as a live episode yet")
            continue
        if cond in conditions:
            problems.append(f"conditions[{i}]: condition {cid} is listed twice")
            continue
        conditions.append(cond)
    base_dir = p.resolve().parent  # a team:PATH.json is read relative to the sweep file
    # Read from the raw file too, so a team is checked under its trust even while other keys are wrong.
    trust = checked.file.trust_components if checked.file is not None else checked.raw.get("trust_components") is True
    # Each topology text is read here, once; the pairs below resolve the requests without reading it again.
    requests: list[TopologyRequest] = []
    for i, t in enumerate(checked.raw_list("topologies", ["default"])):
        try:
            # name, parameters and bounds (a team's file, read and checked), whichever conditions it pairs with
            request = read_topology(t, base_dir=base_dir, trust=trust)
            request.check_alone()
        except (LookupError, ValueError) as exc:
            problems.append(f"topologies[{i}]: {exc.args[0]}")
            continue
        requests.append(request)
    wordings = checked.raw_list("wordings", ["base"])
    for i, w in enumerate(wordings):
        try:
            check_wording(w)
        except LookupError as exc:
            problems.append(f"wordings[{i}]: {exc.args[0]}")
        if wordings.count(w) > 1 and wordings.index(w) == i:
            problems.append(f"wordings[{i}]: wording {w} is listed twice")
    if problems or checked.file is None or instrument is None:
        raise SweepError(str(p), sorted(set(problems), key=problems.index))
    sf, params, text = checked.file, checked.params, checked.text

    choices = _role_choices(sf, checked.specs)
    roles: dict[str, list[ModelSpec]] = {r: [c.spec for c in choices[r]] for r in ROLES}
    combos, combo_problems = _combos(sf, _model_combos(sf, choices))
    if combo_problems:
        raise SweepError(str(p), combo_problems)
    endpoints, warnings = _endpoints(sf, combos)
    skipped: list[str] = []
    pairs: list[tuple[Condition, TopologySpec]] = []
    for cond in conditions:
        for i, request in enumerate(requests):
            if not request.compatible_with(cond):
                skipped.append(f"{cond.id} × {request.text}: condition's transform '{cond.transform}' cannot run "
                               f"under '{request.name_for(cond)}'")
                continue
            try:
                topo = request.resolve(cond)
            except ValueError as exc:
                problems.append(f"topologies[{i}]: {exc}")
                continue
            if (cond, topo) not in pairs:
                pairs.append((cond, topo))
    if any(c.models["transformer"].backend == "team" for c in combos):
        # The teams' own clients must build here (their key variable set, …), checked once per team.
        teams = {str(topo): team_for(topo) for _, topo in pairs}
        for team in filter(None, teams.values()):
            if (why := own_client_problem(team)) is not None:
                problems.append(f"topologies: {why}")
    if problems:
        raise SweepError(str(p), sorted(set(problems), key=problems.index))
    if not pairs:
        raise SweepError(str(p), ["conditions × topologies: no condition can run under any listed topology"])

    usable: dict[tuple[str, str, str, str], bool] = {}
    for s in scenarios:
        for cond, topo in pairs:
            for wording in sf.wordings:
                # W runs its topology's own condition's team, so it needs that condition's material.
                why = material_problem(s, workflow_base(topo.name) if cond.family == "workflow" else cond, wording)
                if cond.family == "twin" and s.resolution is None:
                    why = f"task {s.id} has no resolution, so it has no benign twin"
                if (s.id, cond.id, topo.name, wording) not in usable and why is not None:
                    skipped.append(f"{s.id} × {cond.id}" + (f" × {topo}" if cond.family == "workflow" else "")
                                   + (f" × {wording}" if wording != "base" else "") + f": {why}")
                usable[(s.id, cond.id, topo.name, wording)] = why is None

    seeds_all = sorted(set(sf.seeds).union(*sf.seeds_by_condition.values()))
    episodes: list[PlannedEpisode] = []
    seen: set[str] = set()
    unrunnable: set[tuple[str, str, str]] = set()
    calls_total: dict[str, int] = {}
    for seed in seeds_all:
        for s in scenarios:
            for combo in combos:
                for cond, topo in pairs:
                    if combo.models["transformer"].backend == "team" and topo.name != TEAM_TOPOLOGY:
                        # "team" (a team's own clients) pairs with team:PATH.json only; under one, any
                        # other transformer model replaces its clients.
                        note = f"transformer 'team' × {topo}: a team's own clients run only under team:PATH.json"
                        if note not in skipped:
                            skipped.append(note)
                        continue
                    for wording in sf.wordings:
                        if (seed not in sf.seeds_by_condition.get(cond.id, sf.seeds)
                                or not usable[(s.id, cond.id, topo.name, wording)]):
                            continue
                        # `twins = true`: the same cell again as the benign twin (never pooled with the rest).
                        twin_runs = (False, True) if sf.twins and s.resolution is not None else (False,)
                        for twin, substrate in itertools.product(twin_runs, sf.substrates):
                            if (cond.id, str(topo), substrate) in unrunnable:
                                continue
                            try:
                                spec = episode_spec(s, cond, models=combo.models, seed=seed, topology=topo,
                                                    params=combo.params, endpoints=endpoints, twin=twin,
                                                    configs=combo.configs, panel=combo.panel, wording=wording,
                                                    substrate=substrate)
                            except SubstrateError as exc:  # a topology this substrate has no layout for
                                unrunnable.add((cond.id, str(topo), substrate))
                                skipped.append(f"{cond.id} × {topo} × {substrate}: {exc}")
                                continue
                            if spec.key in seen:
                                continue
                            seen.add(spec.key)
                            calls = episode_calls(spec)
                            for ep, n in calls.items():
                                calls_total[ep] = calls_total.get(ep, 0) + n
                            episodes.append(PlannedEpisode(spec=spec, calls=tuple(sorted(calls.items()))))
    if not episodes:
        raise SweepError(str(p), ["the sweep plans no episode (see the skipped combinations with --dry-run)"])

    workers = sf.workers
    narrowest = min((e for e in endpoints.values()), key=lambda e: e.concurrency, default=None)
    if narrowest is not None and workers > narrowest.concurrency:
        # Each worker process holds a share of every endpoint's concurrency, and a share is at least
        # one slot: more workers than slots would exceed the configured limit.
        warnings.append(f"workers = {workers} is more than the concurrency of {narrowest.base_url} "
                        f"({narrowest.concurrency}); running {narrowest.concurrency} worker processes so the "
                        f"limit holds")
        workers = narrowest.concurrency
    http = sum(e.concurrency for e in endpoints.values())
    max_in_flight = sf.max_in_flight or min(1024, max(8, 2 * http))
    cache_path = None
    if sf.cache:
        cache_path = Path(sf.cache) if Path(sf.cache).is_absolute() else p.resolve().parent / sf.cache
    return SweepPlan(path=p, file=sf, text=text, episodes=episodes, params=params, endpoints=endpoints,
                     scenarios={s.id: s for s in scenarios}, calls_by_endpoint=calls_total,
                     max_in_flight=max_in_flight, cache_path=cache_path, workers=workers, roles=roles,
                     instrument=instrument, skipped=skipped, warnings=warnings)


def _parse_checker(spec: str) -> tuple[InstrumentSpec | None, list[str]]:
    from mustmaybe.checker import CheckerSpecError
    from mustmaybe.judges import parse_instrument

    try:
        return parse_instrument(spec), []
    except CheckerSpecError as exc:
        return None, [f"checker: {exc}".replace("--checker ", "")]
