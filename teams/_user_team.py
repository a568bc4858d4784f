"""Load a user's own AutoGen team (`--topology team:PATH.json`): read, check, remove secrets, digest.

The file is a team's component config as AutoGen writes it (`team.dump_component()`, or AutoGen
Studio's team JSON, which is the same object, possibly under a `component` key). Nothing of it is
imported or built here beyond the team's own class: every component is checked on the JSON first,
so a refused file imports no code of its own.

Refused unless `--trust-components` (`trust_components = true` in a sweep), one line naming the
component: anything that runs code or acts on the world (code executors, tools, workbenches other
than AutoGen's static ones, `CodeExecutorAgent`, `UserProxyAgent`, which waits for a person) and any
provider outside AutoGen's agentchat/core packages, its model clients (`autogen_ext.models`) and
ours, since loading a provider imports its module. Always refused: nested teams (their messages
would run on a runtime the sidecar does not watch), a participant named like one of our roles, a
group chat that can never stop (no termination condition and no `max_turns`).

Secrets: every `api_key` (and the like) is removed from the config before it is stored, digested or
loaded, so a model client of the file reads its key from the environment (`OPENAI_API_KEY`, …),
never from the file or the record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mustmaybe.records import TEAM_TOPOLOGY, TeamSource, TopologySpec, component_digest

from ._registry import GROUP_TRANSFORMS, HOP_TRANSFORMS, PLAN_TRANSFORMS, TopologyInfo, register

TEAM_PREFIX = TEAM_TOPOLOGY + ":"

# autogen_core's own short names for providers (its WELL_KNOWN_PROVIDERS, a private table), so an
# AutoGen Studio file that writes "OpenAIChatCompletionClient" is checked as the class it loads.
_ALIASES = {
    "azure_openai_chat_completion_client": "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
    "AzureOpenAIChatCompletionClient": "autogen_ext.models.openai.AzureOpenAIChatCompletionClient",
    "openai_chat_completion_client": "autogen_ext.models.openai.OpenAIChatCompletionClient",
    "OpenAIChatCompletionClient": "autogen_ext.models.openai.OpenAIChatCompletionClient",
    "OllamaChatCompletionClient": "autogen_ext.models.ollama.OllamaChatCompletionClient",
}
# Modules whose components only talk (agents, teams, terminations, contexts, model clients).
_SAFE_MODULES = ("autogen_agentchat.", "autogen_core.", "autogen_ext.models.", "mustmaybe.")
_ACTING_TYPES = {"tool": "a tool", "code_executor": "a code executor"}
_ACTING_PROVIDERS = {
    "autogen_agentchat.agents.CodeExecutorAgent": "an agent that executes code",
    "autogen_agentchat.agents.UserProxyAgent": "an agent that waits for a person's input",
}
_STATIC_WORKBENCHES = {"autogen_core.tools.StaticWorkbench", "autogen_core.tools.StaticStreamWorkbench"}
# Names that mean something to the sidecar, the audit or the executor's view.
RESERVED_NAMES = frozenset({"reviewer", "executor", "user", "workflow_state", "repair"})
_SECRET_KEYS = frozenset({"api_key", "azure_ad_token", "password", "secret", "client_secret", "access_token",
                          "auth_token", "bearer_token", "token"})
_SECRET_HEADERS = frozenset({"authorization", "api-key", "x-api-key"})
_NEEDS_STOP = ("RoundRobinGroupChat", "SelectorGroupChat", "Swarm", "MagenticOneGroupChat")
SLOT_PROVIDER = "mustmaybe.teams.ClientSlot"

_LOADED: dict[str, TeamSource] = {}  # by short digest: what episode_spec attaches to a spec


def provider_of(component: dict[str, Any]) -> str:
    p = str(component.get("provider", ""))
    return _ALIASES.get(p, p)


def is_component(node: Any) -> bool:
    return isinstance(node, dict) and isinstance(node.get("provider"), str) and isinstance(node.get("config"), dict)


def _secret(key: str) -> bool:
    k = key.lower()
    return k in _SECRET_KEYS or k.endswith("_api_key")


def sanitize(node: Any, where: str = "", removed: list[str] | None = None) -> Any:
    """A copy of `node` without secrets (api keys, tokens, auth headers); `removed` collects their paths."""
    if removed is None:  # no paths wanted: the same copy without building one for every node
        return _sanitized(node, where.endswith("headers"))
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            path = f"{where}.{k}" if where else str(k)
            if _secret(str(k)) or (where.endswith("headers") and str(k).lower() in _SECRET_HEADERS):
                if removed is not None and v not in (None, ""):
                    removed.append(path)
                continue
            out[k] = sanitize(v, path, removed)
        return out
    if isinstance(node, list):
        return [sanitize(v, f"{where}[{i}]", removed) for i, v in enumerate(node)]
    return node


def _sanitized(node: Any, in_headers: bool) -> Any:
    """`sanitize(node)` with `in_headers` for "the path of `node` ends with `headers`" (a dict's key is the
    end of its value's path; a list item's path ends with its index)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            key = str(k)
            if _secret(key) or (in_headers and key.lower() in _SECRET_HEADERS):
                continue
            out[k] = _sanitized(v, key.endswith("headers"))
        return out
    if isinstance(node, list):
        return [_sanitized(v, False) for v in node]
    return node


def strip_secrets(node: Any) -> Any:
    """`sanitize(node)` done in place on a tree nobody else holds (a fresh `model_dump`): the secret keys are
    deleted from its dicts (the others keep their order), nothing is copied; returns `node`.

    An episode's team dump has ~150 nodes and none or one secret; copying every node was a third of
    building the episode's team (teams/_build.py: `team_component`).
    """
    _strip(node, False)
    return node


# key -> whether `_secret(key)`: the keys of component configs are a small, fixed vocabulary
_SECRET_KEY_SEEN: dict[str, bool] = {}


def _strip(node: Any, in_headers: bool) -> None:
    if isinstance(node, dict):
        drop: list[Any] | None = None
        for k, v in node.items():
            key = k if type(k) is str else str(k)
            secret = _SECRET_KEY_SEEN.get(key)
            if secret is None:
                secret = _secret(key)
                if len(_SECRET_KEY_SEEN) < 4096:
                    _SECRET_KEY_SEEN[key] = secret
            if secret or (in_headers and key.lower() in _SECRET_HEADERS):
                (drop := drop if drop is not None else []).append(k)
            elif isinstance(v, dict | list):
                _strip(v, key.endswith("headers"))
        for k in drop or ():
            del node[k]
    elif isinstance(node, list):
        for v in node:
            if isinstance(v, dict | list):
                _strip(v, False)


def _components(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every component under `node` (depth first, outermost first) with its path."""
    out: list[tuple[str, dict[str, Any]]] = []
    if is_component(node):
        out.append((where, node))
    if isinstance(node, dict):
        for k, v in node.items():
            out += _components(v, f"{where}.{k}" if where else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _components(v, f"{where}[{i}]")
    return out


def _label(where: str, comp: dict[str, Any]) -> str:
    name = comp["config"].get("name")
    return f"{provider_of(comp).rsplit('.', 1)[-1]}" + (f" '{name}'" if isinstance(name, str) else "") + \
        f" at {where or 'the top'}"


def _refusal(where: str, comp: dict[str, Any]) -> str | None:
    """Why this component needs --trust-components (None: it only talks)."""
    provider = provider_of(comp)
    kind = str(comp.get("component_type", ""))
    if provider == SLOT_PROVIDER:
        return f"{_label(where, comp)} is mustmaybe's internal client slot, not a component a team may name"
    if kind in _ACTING_TYPES:
        return f"{_label(where, comp)} is {_ACTING_TYPES[kind]}, which can act beyond the handoff"
    if provider in _ACTING_PROVIDERS:
        return f"{_label(where, comp)} is {_ACTING_PROVIDERS[provider]}"
    if kind == "workbench" and provider not in _STATIC_WORKBENCHES:
        return f"{_label(where, comp)} is a workbench that calls tools"
    if not provider.startswith(_SAFE_MODULES):
        module = provider.rsplit(".", 1)[0]
        return f"{_label(where, comp)} comes from module '{module}', whose code loading it would run"
    return None


def _check(path: str, root: dict[str, Any], trust: bool) -> None:
    where_file = f"team:{path}"
    if root.get("component_type") != "team":
        raise ValueError(f"{where_file}: not a team component (component_type is "
                         f"{root.get('component_type')!r}; export one with team.dump_component())")
    comps = _components(root, "")
    for where, comp in comps[1:]:
        if comp.get("component_type") == "team" or provider_of(comp).endswith("SocietyOfMindAgent"):
            raise ValueError(f"{where_file}: {_label(where, comp)} is a nested team; a team:PATH.json team must "
                             f"have agents as its participants (the sidecar watches one team)")
    if not trust:
        for where, comp in comps:
            why = _refusal(where, comp)
            if why is not None:
                raise ValueError(f"{where_file}: {why}; refused without --trust-components")
    cfg = root["config"]
    names = [p["config"].get("name") for p in cfg.get("participants", []) if is_component(p)]
    if not names:
        raise ValueError(f"{where_file}: the team has no participants")
    for n in names:
        if not isinstance(n, str) or not n:
            raise ValueError(f"{where_file}: a participant has no name")
        if n in RESERVED_NAMES:
            raise ValueError(f"{where_file}: participant name '{n}' is reserved (mustmaybe's "
                             f"{', '.join(sorted(RESERVED_NAMES))}); rename the agent")
    if len(set(names)) != len(names):
        raise ValueError(f"{where_file}: participant names repeat ({', '.join(names)})")
    kind = provider_of(root).rsplit(".", 1)[-1]
    if kind in _NEEDS_STOP and not cfg.get("termination_condition") and not cfg.get("max_turns"):
        raise ValueError(f"{where_file}: {kind} has no termination_condition and no max_turns, so it would never "
                         f"stop; give it one")


def _unwrap(data: Any) -> Any:
    """AutoGen Studio keeps a team under `component` in its database rows and some exports."""
    if isinstance(data, dict) and not is_component(data) and is_component(data.get("component")):
        return data["component"]
    return data


def load_team_file(path: str | Path, *, trust: bool = False) -> TeamSource:
    """Read and check a team component JSON file; remembered by digest for `team_source`.

    Raises:
        ValueError: one line naming `team:PATH` and what is wrong or refused.
    """
    p = Path(path).expanduser()
    shown = str(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"team:{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"team:{shown}: cannot be read ({type(exc).__name__}: {exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"team:{shown}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    root = _unwrap(data)
    if not is_component(root):
        raise ValueError(f"team:{shown}: not a component config (expected provider, component_type and config)")
    removed: list[str] = []
    clean = sanitize(root, "", removed)
    _check(shown, clean, trust)
    digest = component_digest(clean)
    comps = _components(clean, "")
    source = TeamSource(
        path=str(p.resolve()), name=re.sub(r"[^A-Za-z0-9_.-]+", "-", p.stem).strip("-") or "team",
        digest=digest, kind=provider_of(clean).rsplit(".", 1)[-1],
        participants=[q["config"]["name"] for q in clean["config"].get("participants", [])],
        component=clean,
        simulated=any(provider_of(c).endswith("SimChatCompletionClient") for _, c in comps),
        trusted=trust,
    )
    _LOADED[source.short_digest] = source
    return source


def team_topology(text: str, *, base_dir: Path | None = None, trust: bool = False) -> tuple[TopologySpec, TeamSource]:
    """`team:PATH.json` → its topology spec (file stem and digest: what the key holds) and the loaded team.

    A relative PATH is read from `base_dir` (a sweep file's folder) when given, else the current folder.
    """
    raw = text[len(TEAM_PREFIX):].strip()
    if not raw:
        raise ValueError("topology team: expected team:PATH.json (a team's dump_component() JSON)")
    p = Path(raw).expanduser()
    if base_dir is not None and not p.is_absolute():
        p = base_dir / p
    source = load_team_file(p if base_dir is not None else raw, trust=trust)
    return TopologySpec(name=TEAM_TOPOLOGY, params={"name": source.name, "digest": source.short_digest}), source


def team_source(topology: TopologySpec) -> TeamSource:
    """The loaded team a `team` topology spec names (loaded by `team_topology` in this process)."""
    digest = str(topology.params.get("digest", ""))
    try:
        return _LOADED[digest]
    except KeyError:
        raise ValueError(f"topology {topology}: its team JSON was not loaded in this process "
                         f"(pass it as team:PATH.json)") from None


def team_for(topology: TopologySpec) -> TeamSource | None:
    """The loaded team of a `team` topology (None for any other topology)."""
    return team_source(topology) if topology.name == TEAM_TOPOLOGY else None


def is_team_text(text: str | None) -> bool:
    return text is not None and text.strip().startswith(TEAM_PREFIX)


def _team_calls(params: Mapping[str, Any]) -> int:
    # A user's team decides its own turns; each participant speaking once is the least it makes.
    return max(1, len(team_source(TopologySpec(name=TEAM_TOPOLOGY, params=dict(params))).participants))


# A user's team is a topology without a builder of ours (teams/_user_build.py builds it from its file). It
# does its own transformation; the condition still sets the executor's pressure and, with
# --model transformer=sim, the sim's mechanics. W's gate is ours, so W does not run under it.
TEAM = register(TopologyInfo(
    name=TEAM_TOPOLOGY, builder=None, params={"name": str, "digest": str}, defaults={},
    compatible=HOP_TRANSFORMS | GROUP_TRANSFORMS | PLAN_TRANSFORMS, calls=_team_calls,
    description="A user's own AutoGen team (team:PATH.json), run after our reviewer."))
