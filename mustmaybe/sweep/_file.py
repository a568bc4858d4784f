"""The sweep file (`mustmaybe/sweep@1`, TOML; docs/sweep-files.md) and its loader.

Every problem names the key it is about (`endpoints[0].concurrency`, `roles.executor[1]`) and
what is wrong; all problems of a file are reported at once.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from mustmaybe.agents import check_model_spec
from mustmaybe.errors import UserError
from mustmaybe.records import (
    ROLES,
    ModelSpec,
    ModelSpecError,
    RoleParams,
    Substrate,
    base_url_problem,
    substrate_problem,
)

from ._configs import PANEL_PATTERN, ModelConfig, SweepEndpoint, config_problems

SCHEMA = "mustmaybe/sweep@1"


class SweepError(UserError):
    """A sweep file that cannot be used; `problems` lists `key: problem` lines."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{path}: {len(problems)} problem(s) in the sweep file:\n{lines}"
                         if len(problems) > 1 else f"{path}: {problems[0]}")


class SweepFile(BaseModel):
    """The sweep file as written (before tasks, conditions and models are resolved)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["mustmaybe/sweep@1"] = Field(alias="schema", description="Always mustmaybe/sweep@1.")
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                      description="Run name; the run folder is runs/<name>-<timestamp>/.")
    tasks: list[str] = Field(min_length=1,
                             description="Library ids, library:<domain>/*, library:*, or task paths/globs.")
    conditions: list[str] = Field(min_length=1, description="Condition ids (mustmaybe list conditions).")
    topologies: list[str] = Field(
        default=["default"], min_length=1,
        description="'default' (each condition's own) or NAME[:k=v,...], crossed with conditions.")
    substrates: list[Substrate] = Field(
        default=["autogen"], min_length=1,
        description="Workflow substrates, crossed with conditions and topologies: autogen (default), langgraph "
                    "(the optional extra mustmaybe[langgraph]; docs/substrates.md).")
    seeds: list[StrictInt] = Field(min_length=1, description="Episode seeds.")
    seeds_by_condition: dict[str, list[StrictInt]] = Field(
        default_factory=dict, description="Per-condition seeds replacing `seeds` for that condition (extension).")
    combine: Literal["product", "zip"] = Field(default="product", description="How the per-role model lists combine.")
    roles: dict[str, list[str]] = Field(description="Model specs per role: reviewer, transformer, executor.")
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="Defaults for every role, [params.<role>] overrides.")
    endpoints: list[SweepEndpoint] = Field(
        default_factory=list, description="Limits per OpenAI-compatible base URL, its panel and request parameters.")
    models: dict[str, ModelConfig] = Field(
        default_factory=dict, description="Named model configurations ([models.<name>]: spec, panel, params) that "
                                          "role lists may name instead of a spec (extension).")
    panel: str | None = Field(default=None, pattern=PANEL_PATTERN,
                              description="The evidence panel (main, validation, …) of every configuration that "
                                          "marks none of its own (extension).")
    max_in_flight: StrictInt | None = Field(default=None, ge=1, description="Episodes in flight at once (extension).")
    cache: str | None = Field(default=None, description="A shared response cache file instead of RUN/cache.sqlite.")
    checker: str = Field(default="rules", description="The instrument that scores every stored message: rules, "
                         "judge:<model spec>, panel:<spec>;<spec>;…, routed:<judge or panel spec>.")
    twins: StrictBool = Field(
        default=False, description="Also run the benign twin of every selected task that has a `resolution`, "
                                   "under every selected condition and topology.")
    wordings: list[str] = Field(
        default=["base"], min_length=1,
        description="Wording variants of the role prompts and task text (paraphrase panel), crossed with the rest.")
    workers: StrictInt = Field(default=1, ge=1, le=64,
                               description="Processes running episodes (extension); limits are split between them.")
    trust_components: StrictBool = Field(
        default=False, description="Let team:PATH.json teams load components that run code, call tools or come "
                                   "from other modules (refused otherwise); like run --trust-components.")
    trace: StrictBool = Field(
        default=False, description="Export OpenTelemetry spans (as `--trace`): OTLP when OTEL_EXPORTER_OTLP_ENDPOINT "
                                   "is set, else RUN/traces.jsonl. An execution setting: not part of the digest.")


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            name = "schema" if item == "schema_" else str(item)
            out += ("." if out else "") + name
    return out or "(file)"


def pydantic_problems(err: ValidationError, prefix: str = "") -> list[str]:
    problems = []
    for e in err.errors():
        key = _loc(tuple(e["loc"]))
        if prefix:
            key = prefix if key == "(file)" else f"{prefix}.{key}"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key (see docs/sweep-files.md)"
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif e["type"] == "literal_error" and key == "schema":
            msg = f"must be \"{SCHEMA}\", got {e.get('input')!r}"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        problems.append(f"{key}: {msg}")
    return problems


def parse_role_params(raw: dict[str, Any]) -> tuple[dict[str, RoleParams], list[str]]:
    """`[params]` defaults plus `[params.<role>]` overrides → RoleParams per role, and problems."""
    problems: list[str] = []
    # A table under [params] is a role's overrides, unless it is a parameter that is a table (extra_body).
    defaults = {k: v for k, v in raw.items() if not isinstance(v, dict) or k in RoleParams.model_fields}
    for k, v in raw.items():
        if isinstance(v, dict) and k not in ROLES and k not in RoleParams.model_fields:
            problems.append(f"params.{k}: unknown role; per-role tables are {', '.join(ROLES)}")
    out: dict[str, RoleParams] = {}
    try:
        base = RoleParams.model_validate(defaults)
    except ValidationError as err:
        problems += pydantic_problems(err, "params")
        base = RoleParams()
    for role in ROLES:
        override = raw.get(role)
        if not isinstance(override, dict):
            out[role] = base
            continue
        try:
            out[role] = RoleParams.model_validate({**defaults, **override})
        except ValidationError as err:
            # Report only the role's own keys; a bad default is reported once, under params.
            problems += [p for p in pydantic_problems(err, f"params.{role}")
                         if p.split(":")[0].rsplit(".", 1)[-1] in override]
            out[role] = base
    return out, problems


def _model_specs(roles: Any, combine: Any, models: Any = None) -> tuple[dict[str, ModelSpec], list[str]]:
    """Every role list entry parsed once (a spec, or a [models.<name>] configuration's spec), by the entry as
    written, and the problems of those that do not parse or cannot be used here."""
    parsed: dict[str, ModelSpec] = {}
    if not isinstance(roles, dict):
        return parsed, []  # pydantic reports a `roles` that is not a table
    configs = models if isinstance(models, dict) else {}
    problems = []
    for role in roles:
        if role not in ROLES:
            problems.append(f"roles.{role}: unknown role; roles are reviewer, transformer, executor "
                            "(transformer covers summarizers, planners, peers and coordinators)")
    for role in ROLES:
        specs = roles.get(role)
        if specs is None:
            problems.append(f"roles.{role}: required key is missing (a list of model specs)")
            continue
        if not isinstance(specs, list):
            continue
        if not specs:
            problems.append(f"roles.{role}: needs at least one model spec")
        for i, entry in enumerate(specs):
            if not isinstance(entry, str) or entry in parsed:
                continue
            spec: Any = entry
            where, hint = f"roles.{role}[{i}]", ""
            if entry in configs:  # the name of a [models.<name>] configuration: its spec is checked there
                where, cfg = f"models.{entry}.spec", configs[entry]
                spec = cfg.get("spec") if isinstance(cfg, dict) else None
                if not isinstance(spec, str):
                    continue
            elif ":" not in entry:
                hint = " (nor the name of a [models.<name>] configuration of this file)"
            try:
                parsed[entry] = check_model_spec(spec)  # parses, and a sim:<profile> must name a usable profile
            except ModelSpecError as exc:
                problems.append(f"{where}: {exc}{hint}")
    if combine == "zip":
        lengths = {r: len(roles.get(r) or []) for r in ROLES}
        longest = max(lengths.values())
        if any(n not in (1, longest) for n in lengths.values()):
            got = ", ".join(f"{r} {n}" for r, n in lengths.items())
            problems.append(f"roles: combine = \"zip\" needs lists of one length, or of length 1 ({got})")
    return parsed, list(dict.fromkeys(problems))  # a configuration named by several roles: its problems once


def _raw_roles(raw: dict[str, Any]) -> None:
    # A single spec string is accepted as a one-element list.
    roles = raw.get("roles")
    if isinstance(roles, dict):
        for k, v in list(roles.items()):
            if isinstance(v, str):
                roles[k] = [v]


@dataclass(frozen=True)
class SweepFileCheck:
    """A sweep file read and checked, problems and all: `file` is None when its keys do not validate,
    and `raw_list` still gives the planner what it can check of the rest (so one pass lists all)."""

    path: Path
    file: SweepFile | None
    params: dict[str, RoleParams]
    specs: dict[str, ModelSpec]  # each role list entry as written → its model spec, parsed once
    text: str
    raw: dict[str, Any]
    problems: list[str]

    def raw_list(self, key: str, default: list[str]) -> list[str]:
        """The file's list of strings under `key` (the model's value when it validated; else the raw
        value if it is one, else `default`), for checks that do not need the whole file valid."""
        if self.file is not None:
            value = getattr(self.file, key)
            return list(value) if isinstance(value, list) else [value]
        got = self.raw.get(key, default)
        if isinstance(got, str):
            return [got]
        return [x for x in got if isinstance(x, str)] if isinstance(got, list) else default


def check_sweep_file(path: str | Path) -> SweepFileCheck:
    """Parse the file and check its own keys, collecting every problem (tasks and conditions are
    resolved by the planner, which adds its problems to these).

    Raises:
        SweepError: the file cannot be read at all (unreadable, not UTF-8, not TOML, no schema).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepError(str(p), [f"cannot read the sweep file: {exc.strerror or exc}"]) from None
    except UnicodeDecodeError as exc:
        raise SweepError(str(p), [f"not UTF-8 text (byte {exc.start}); save the sweep file as UTF-8"]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(str(p), [f"not valid TOML: {exc}"]) from None
    if "schema" not in raw:
        raise SweepError(str(p), [f"schema: required key is missing (expected schema = \"{SCHEMA}\")"])
    _raw_roles(raw)
    problems: list[str] = []
    sf: SweepFile | None = None
    try:
        sf = SweepFile.model_validate(raw)
    except ValidationError as err:
        problems += pydantic_problems(err)
    # The checks below read the raw file too, so one run reports every problem.
    specs, spec_problems = _model_specs(raw.get("roles"), raw.get("combine"), raw.get("models"))
    problems += [x for x in spec_problems if x not in problems]
    problems += [x for x in config_problems(raw.get("models"), raw.get("endpoints"), raw.get("roles"))
                 if x not in problems]
    raw_params = raw.get("params")
    params, param_problems = parse_role_params(raw_params if isinstance(raw_params, dict) else {})
    problems += [x for x in param_problems if x not in problems]
    problems += [x for x in _endpoint_problems(raw.get("endpoints")) if x not in problems]
    problems += [x for x in _seed_problems(raw) if x not in problems]
    problems += [x for x in _substrate_problems(raw.get("substrates")) if x not in problems]
    return SweepFileCheck(p, sf, params, specs, text, raw, problems)


def _endpoint_problems(endpoints: Any) -> list[str]:
    """Base URLs and key variable names of `[[endpoints]]`, read from the raw tables (their other keys
    are the model's to check)."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for i, ep in enumerate(endpoints if isinstance(endpoints, list) else []):
        if not isinstance(ep, dict):
            continue
        if isinstance(ep.get("base_url"), str):
            url = ep["base_url"].rstrip("/")
            url_problem = base_url_problem(url)
            if url_problem:
                problems.append(f"endpoints[{i}].base_url: {url_problem}")
            if url in seen:
                problems.append(f"endpoints[{i}].base_url: {url} is already configured by endpoints[{seen[url]}]")
            seen[url] = i
        key_env = ep.get("api_key_env")
        if isinstance(key_env, str) and (not key_env or not key_env.replace("_", "").isalnum()):
            problems.append(f"endpoints[{i}].api_key_env: must be the NAME of an environment variable "
                            f"(letters, digits, _), never the key itself")
    return problems


def _substrate_problems(substrates: Any) -> list[str]:
    """A substrate listed twice, or one whose optional extra is not installed (pydantic names unknown ones)."""
    problems: list[str] = []
    for i, sub in enumerate(substrates if isinstance(substrates, list) else []):
        if not isinstance(sub, str):
            continue
        if substrates.index(sub) != i:
            problems.append(f"substrates[{i}]: {sub} is listed twice")
        elif (why := substrate_problem(sub)) is not None:
            problems.append(f"substrates[{i}]: {why}")
    return problems


def _seed_problems(raw: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    seeds = raw.get("seeds")
    if isinstance(seeds, list):
        dup = sorted({s for s in seeds if isinstance(s, int) and seeds.count(s) > 1})
        if dup:
            problems.append(f"seeds: duplicate seed(s) {', '.join(map(str, dup))}")
    by_condition = raw.get("seeds_by_condition")
    conditions = raw.get("conditions")
    for cid, cseeds in (by_condition.items() if isinstance(by_condition, dict) else ()):
        if isinstance(conditions, list) and cid not in conditions:
            problems.append(f"seeds_by_condition.{cid}: '{cid}' is not in conditions")
        if isinstance(cseeds, list) and not cseeds:
            problems.append(f"seeds_by_condition.{cid}: needs at least one seed")
    return problems


def read_sweep_file(path: str | Path) -> tuple[SweepFile, dict[str, RoleParams], str]:
    """Parse and check the file's own keys (tasks and conditions are resolved by the planner).

    Returns the file model, the resolved parameters per role and the file's text.

    Raises:
        SweepError: naming every key with a problem.
    """
    checked = check_sweep_file(path)
    if checked.problems or checked.file is None:
        raise SweepError(str(checked.path), checked.problems)
    return checked.file, checked.params, checked.text
