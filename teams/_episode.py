"""Run one episode: build the team, run it under the sidecar, run the executor, assemble the record.

Layer 1 (STYLE.md): no store, no files, no clock it is not given. A misbehaving model becomes an
entry in `errors`; the record is always returned.

Honest failure: when a role's model call finally fails (no connection, a timeout, HTTP errors after
the retries, a body that is not a chat completion), or the team hands over nothing, the executor
never acts on a handoff. The record is then `failed`: `errors` says which role, which endpoint and
why, and no action or Y is scored, so a failure is never counted as safe or unsafe. The paper's
fallback rule stays for what it is for: an executor that answered with something that does not parse.

Cancellation (Ctrl-C, SIGTERM): cancelling the task that awaits `run_episode` cancels every model
call of the episode at once (through the team's CancellationToken) and stops the runtime without
waiting for them; the CancelledError propagates and no record is returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_core import CancellationToken, SingleThreadedAgentRuntime
from autogen_core.models import ChatCompletionClient

from mustmaybe.agents import (
    ClientContext,
    EndpointConfig,
    ExecutorDecision,
    ModelCallError,
    ModelSpec,
    RecordingClient,
    RoleParams,
    build_model_client,
    decision_model_for,
    describe_failure,
    parse_decision,
    parse_model_spec,
    prompts,
)
from mustmaybe.checker import CHECKER_VERSION, score_action
from mustmaybe.scenarios import Condition, Scenario, get_condition

from ._context import SourceFilterContext
from ._isolation import audit
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
from ._registry import TopologyContext, get_topology
from ._replay import repair_text, restored_fields, verify_control
from ._sidecar import HopCallback, Sidecar, safe_score, score_artifact_text
from ._spec import episode_spec, parse_topology
from ._stages import carried_stages, first_break_stage

# A hook the sweep uses to add caching and limits around each backend client.
ClientWrapper = Callable[[ModelSpec, ClientContext, ChatCompletionClient], ChatCompletionClient]


@dataclass
class _Build:
    """What the agent factory made, kept for usage, visibility and the team config."""

    clients: dict[str, RecordingClient] = field(default_factory=dict)
    roles: dict[str, Role] = field(default_factory=dict)
    config: list[dict[str, Any]] = field(default_factory=list)


def classify_error(exc: BaseException) -> str:
    """A short, countable category for an exception raised by a model call: rate_limited, timeout,
    connection_error, http_<status>, not_a_completion, bad_response, or the exception's class name."""
    return describe_failure(exc)[0]


def _short(text: str) -> str:
    return text if len(text) <= 500 else text[:500] + "…"


def _call_error(where: str, role: Role | None, cause: BaseException, spec: ModelSpec | None) -> EpisodeError:
    """The `errors` entry for a model call (or team) that finally failed: which agent, endpoint and why."""
    if isinstance(cause, ModelCallError):
        kind, message, endpoint = cause.kind, cause.sentence(), cause.endpoint or None
    else:
        kind, reason = describe_failure(cause)
        endpoint = spec.endpoint if spec is not None and where != "team" else None
        message = f"{where} failed: {reason}"
    model = f" [model {spec}]" if spec is not None else ""
    return EpisodeError(where=where, kind=kind, message=_short(message) + model, role=role, endpoint=endpoint)


def _being_cancelled() -> bool:
    """True while the current task is being cancelled (a team may have swallowed the CancelledError)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _failed_agent(build: _Build) -> str:
    for name, client in build.clients.items():
        if client.last_error is not None:
            return name
    return "team"


async def run_episode(
    scenario: Scenario,
    condition: Condition | str,
    *,
    models: Mapping[str, str],
    seed: int = 1,
    topology: str | TopologySpec | None = None,
    params: Mapping[str, RoleParams] | None = None,
    endpoints: Mapping[str, EndpointConfig] | None = None,
    twin: bool = False,
    on_hop: HopCallback | None = None,
    client_wrapper: ClientWrapper | None = None,
) -> EpisodeRecord:
    """Run one episode of `condition` on `scenario` and return its record.

    Args:
        scenario: the task.
        condition: a condition id or Condition from the registry.
        models: model spec per role (`reviewer`, `transformer`, `executor`).
        seed: episode seed; also the models' sampling seed unless a role sets its own.
        topology: None for the condition's own topology, or `NAME[:k=v,...]` / a TopologySpec.
        params: generation parameters per role.
        endpoints: limits and structured-output mode per OpenAI-compatible base URL.
        twin: run the benign twin (the blocker is resolved).
        on_hop: called with each scored hop as it is transmitted (the live console).
        client_wrapper: wraps each backend client (response cache, limits).
    """
    cond = get_condition(condition) if isinstance(condition, str) else condition
    if not cond.runnable:
        raise ValueError(f"condition {cond.id} ({cond.topology}) cannot be run as a live episode yet")
    twin = twin or cond.family == "twin"
    if twin and scenario.resolution is None:
        raise ValueError(f"task {scenario.id} has no resolution, so it has no benign twin")
    topo = topology if isinstance(topology, TopologySpec) else parse_topology(topology, cond)
    specs = {r: parse_model_spec(models[r]) for r in ROLES}
    role_params = {r: (params or {}).get(r, RoleParams()) for r in ROLES}
    endpoints = endpoints or {}

    def endpoint_for(spec: ModelSpec) -> EndpointConfig | None:
        return endpoints.get(spec.endpoint) if spec.backend == "openai" else None

    spec = episode_spec(scenario, cond, models=models, seed=seed, topology=topo, params=params,
                        endpoints=endpoints, twin=twin)
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    build = _Build()
    errors: list[EpisodeError] = []
    # A replay arm (R-*, V-*) runs its base condition's own team, so every arm of one task, seed and
    # model set starts from the same degraded artifact; only the executor acts under the arm.
    replay = topo.name == "replay"
    team_cond = get_condition(str(topo.params["base"])) if replay else cond
    team_topo = parse_topology(None, team_cond) if replay else topo

    def client_for(role: Role, agent: str, hop: int, json_output: type[ExecutorDecision] | None) -> RecordingClient:
        ms = specs[role]
        ctx = ClientContext(
            role=role, agent=agent, condition=(cond if role == "executor" else team_cond).id,
            transform=team_cond.transform if role != "executor" else cond.transform,
            style=team_cond.style if role != "executor" else cond.style, seed=seed,
            params=role_params[role], hop=hop, requested_action=scenario.requested_action.id,
            fallback_action=scenario.blocker.fallback_action, endpoint=endpoint_for(ms),
        )
        inner = build_model_client(ms, ctx)
        if client_wrapper is not None:
            inner = client_wrapper(ms, ctx, inner)
        rec = RecordingClient(inner=inner, agent=agent, json_output=json_output,
                              timeout_s=role_params[role].timeout_s, endpoint=ms.endpoint)
        build.clients[agent] = rec
        return rec

    def make_agent(name: str, role: Role, system_message: str, *, include_sources: list[str] | None = None,
                   exclude_sources: list[str] | None = None, last_n: int | None = None,
                   hop: int = 0) -> AssistantAgent:
        context = SourceFilterContext(include_sources, exclude_sources, last_n)
        build.roles[name] = role
        build.config.append({"name": name, "role": role, "model": str(specs[role]),
                             "params": role_params[role].model_dump(), "system_message": system_message,
                             "context": context.dump_component().model_dump(mode="json")["config"]})
        return AssistantAgent(name, model_client=client_for(role, name, hop, None),
                              system_message=system_message, model_context=context)

    sidecar = Sidecar(scenario, build.roles, on_hop)
    runtime = SingleThreadedAgentRuntime(intervention_handlers=[sidecar], ignore_unhandled_exceptions=False)
    plan = get_topology(team_topo.name).builder(TopologyContext(scenario, team_cond, make_agent, runtime),
                                                dict(team_topo.params))
    team_config = {"team": type(plan.team).__name__, "topology": topo.model_dump(),
                   "base": {"condition": team_cond.id, "topology": team_topo.model_dump()} if replay else None,
                   "order": [p.name for p in plan.participants], "agents": build.config}

    token = CancellationToken()  # cancels the model calls in flight when the episode is cancelled
    stopping = False
    runtime.start()
    try:
        await plan.team.run(task=prompts.reviewer_task(scenario, twin), cancellation_token=token)
        if _being_cancelled():
            raise asyncio.CancelledError()
    except asyncio.CancelledError:
        stopping = True
        token.cancel()
        raise
    except Exception as exc:
        if _being_cancelled():  # the team turned the cancelled call into an error: still a cancellation
            stopping = True
            token.cancel()
            raise asyncio.CancelledError() from None
        where = _failed_agent(build)
        # A team wraps an agent's failure in a RuntimeError carrying the traceback text; report the
        # model call's own failure (which agent, endpoint, and why), so it reads and counts as what it is.
        client = build.clients.get(where)
        cause = client.last_error if client is not None and client.last_error is not None else exc
        role = build.roles.get(where)
        errors.append(_call_error(where, role, cause, specs[role] if role is not None else None))
    finally:
        # A failed run can leave the runtime stopped already. When stopping, do not wait for the
        # handlers still in flight: their calls were cancelled above.
        with contextlib.suppress(Exception):
            await (runtime.stop() if stopping else runtime.stop_when_idle())

    hops = sidecar.hops
    artifact_hops = [h for h in hops if h.sender == plan.artifact_agent]
    artifact_text = artifact_hops[-1].text if artifact_hops else ""
    if not artifact_hops and not errors:
        errors.append(EpisodeError(where=plan.artifact_agent, kind="no_artifact",
                                   message=f"{plan.artifact_agent} produced no handoff, so the executor had "
                                           f"nothing to act on"))
    # Up to here `errors` holds only what stopped the team: then nothing is scored from this episode.
    failed = bool(errors)
    control = None
    if replay and artifact_hops:
        restore = restored_fields(str(topo.params.get("restore", "none")))
        control = verify_control(scenario, str(topo.params.get("verify", "plain")))
        if restore:
            artifact_text = repair_text(scenario, artifact_text, restore)
            hops.append(Hop(index=len(hops), role="transformer", sender="repair", text=artifact_text,
                            score=safe_score(scenario, artifact_text, sidecar.errors)))
            if on_hop is not None:
                on_hop(hops[-1])
    artifact = ArtifactRecord(text=artifact_text,
                              score=score_artifact_text(scenario, artifact_text, hops, sidecar.errors))
    # The drift curve's points: what each step passes on toward the executor (teams/_stages.py).
    stages = carried_stages(hops, lambda text: score_artifact_text(scenario, text, hops, sidecar.errors))

    if failed:
        executor_out = not_scored()
    else:
        executor_out, failed = await _run_executor(scenario, cond, artifact_text, client_for, errors,
                                                   control=control, specs=specs, token=token)

    errors += [EpisodeError(where="checker", kind="checker_error", message=m) for m in sidecar.errors]
    reviewer_hop = next((h for h in hops if h.role == "reviewer"), None)
    identified = reviewer_hop is not None and (
        (not reviewer_hop.score.fields.status) if twin else reviewer_hop.score.state == "preserved"
    )
    first_break = next((h.index for h in hops if h.score.state != "preserved"), None)

    visibility: dict[str, list[str]] = {r: [] for r in ROLES}
    usage: dict[str, RoleUsage] = {r: RoleUsage() for r in ROLES}
    for agent, client in build.clients.items():
        role = build.roles.get(agent, "executor")
        u = usage[role]
        for call in client.calls:
            visibility[role].extend(call.received)
            u.prompt_tokens += call.prompt_tokens
            u.completion_tokens += call.completion_tokens
            u.calls += 1
            u.latency_s += call.latency_s
            u.cached_calls += int(call.cached)
    # The executor may see the artifact; nothing else of the full record.
    isolation = audit(scenario, visibility["executor"], [artifact_text])
    upstream = [h.text for h in hops]
    transformer_iso = audit(scenario, visibility["transformer"], upstream)
    if not transformer_iso.ok:
        errors.append(EpisodeError(where="transformer", kind="isolation_leak",
                                   message="; ".join(transformer_iso.leaks)[:500]))

    sim_truth: list[dict[str, Any]] | None = None
    for client in build.clients.values():
        truth = getattr(client.inner, "truth", None)
        if isinstance(truth, list) and truth:
            sim_truth = (sim_truth or []) + truth

    return EpisodeRecord(
        key=spec.key(), task=scenario.id, task_hash=spec.task_hash, condition=cond.id, topology=topo, seed=seed,
        models=spec.models, simulated=any(s.simulated for s in specs.values()), reviewer_identified=identified,
        hops=hops, stages=stages, first_break_stage=first_break_stage(stages), artifact=artifact,
        first_break_hop=first_break, executor=executor_out, visibility=visibility,
        isolation=isolation, usage=usage, errors=errors, checker_version=CHECKER_VERSION, failed=failed, twin=twin,
        params={r: p.model_dump() for r, p in role_params.items()}, team_config=team_config, sim_truth=sim_truth,
        started_at=started.isoformat(), duration_s=round(time.perf_counter() - t0, 4),
    )


def not_scored() -> ExecutorOutcome:
    """The executor outcome of a failed episode: nothing scored, neither safe nor unsafe."""
    return ExecutorOutcome(action=None, blocker_recognized=False, rationale="", parse_ok=False, action_rule=None,
                           forbidden=None, raw="")


async def _run_executor(scenario: Scenario, cond: Condition, artifact_text: str,
                        client_for: Callable[..., RecordingClient], errors: list[EpisodeError],
                        control: str | None = None, specs: Mapping[Any, ModelSpec] | None = None,
                        token: CancellationToken | None = None) -> tuple[ExecutorOutcome, bool]:
    """The executor's outcome and whether the episode failed (its model call finally failed)."""
    client = client_for("executor", "executor", 0, decision_model_for(scenario))
    executor = AssistantAgent("executor", model_client=client, system_message=prompts.render("executor"),
                              model_context=SourceFilterContext(include_sources=["user"]))
    try:
        result = await executor.run(task=prompts.executor_task(scenario, cond, artifact_text, control),
                                    cancellation_token=token)
        if _being_cancelled():
            raise asyncio.CancelledError()
        raw = result.messages[-1].to_text() if result.messages else ""
    except asyncio.CancelledError:
        if token is not None:
            token.cancel()
        raise
    except Exception as exc:
        if _being_cancelled():
            if token is not None:
                token.cancel()
            raise asyncio.CancelledError() from None
        # No answer at all is not an answer that does not parse: the fallback rule does not apply.
        cause = client.last_error if client.last_error is not None else exc
        errors.append(_call_error("executor", "executor", cause, specs["executor"] if specs else None))
        return not_scored(), True
    decision = parse_decision(scenario, raw, artifact_text)
    if not decision.parse_ok:
        errors.append(EpisodeError(where="executor", kind="parse_error",
                                   message=f"{decision.problem}; action by rule '{decision.action_rule}'"))
    act = score_action(scenario, decision.action)
    return ExecutorOutcome(action=decision.action, blocker_recognized=decision.blocker_recognized,
                           rationale=decision.rationale, parse_ok=decision.parse_ok,
                           action_rule=decision.action_rule, forbidden=act.forbidden, raw=raw), False


def run_episode_sync(scenario: Scenario, condition: str, **kw: Any) -> EpisodeRecord:
    return asyncio.run(run_episode(scenario, condition, **kw))


__all__ = ["ClientWrapper", "Hop", "Isolation", "TopologySpec", "classify_error", "run_episode", "run_episode_sync"]
