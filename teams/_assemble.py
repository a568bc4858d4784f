"""Assemble an episode's record from what its run left: hops, stages, usage, visibility and the audit."""

from __future__ import annotations

import time
from typing import Any

from mustmaybe.checker import CHECKER_NAME, CHECKER_VERSION
from mustmaybe.records import (
    ROLES,
    ArtifactRecord,
    EpisodeError,
    EpisodeRecord,
    EpisodeSpec,
    ExecutorOutcome,
    Hop,
    RepairRecord,
    ReplayBase,
    RoleUsage,
    scored_facts,
)

from ._build import EpisodeTeam
from ._isolation import audit
from ._sidecar import score_artifact_text


def _usage_and_visibility(team: EpisodeTeam) -> tuple[dict[str, RoleUsage], dict[str, list[str]]]:
    """Per role: the summed usage of its model calls, and the exact texts those calls received."""
    visibility: dict[str, list[str]] = {r: [] for r in ROLES}
    usage: dict[str, RoleUsage] = {r: RoleUsage() for r in ROLES}
    for agent, client in team.clients.items():
        role = team.roles.get(agent, "executor")
        u = usage[role]
        for call in client.calls:
            visibility[role].extend(call.received)
            u.prompt_tokens += call.prompt_tokens
            u.completion_tokens += call.completion_tokens
            u.calls += 1
            u.latency_s += call.latency_s
            u.cached_calls += int(call.cached)
            if call.finish_reason is not None:
                reasons = u.finish_reasons if u.finish_reasons is not None else {}
                reasons[call.finish_reason] = reasons.get(call.finish_reason, 0) + 1
                u.finish_reasons = reasons
    return usage, visibility


def _sim_truth(team: EpisodeTeam) -> list[dict[str, Any]] | None:
    """The ground truth the sim backend exposed per transformer hop (None when no sim client made any)."""
    truth_all: list[dict[str, Any]] | None = None
    for client in team.clients.values():
        truth = getattr(client.inner, "truth", None)
        if isinstance(truth, list) and truth:
            truth_all = (truth_all or []) + truth
    return truth_all


def assemble_record(team: EpisodeTeam, spec: EpisodeSpec, hops: list[Hop], artifact: ArtifactRecord,
                    executor: ExecutorOutcome, errors: list[EpisodeError], failed: bool,
                    repair: RepairRecord | None = None, base: ReplayBase | None = None) -> EpisodeRecord:
    """The `mustmaybe/episode@1` record of a finished run (failed or not)."""
    scenario, sidecar = spec.scenario, team.sidecar
    # Every scored fact (D_up, first breaks, the drift curve's stages, Y) as `rescore` derives it too.
    facts = scored_facts(scenario, hops, artifact.score, executor, twin=spec.twin, failed=failed,
                         stage_score=lambda text: score_artifact_text(scenario, text, hops, sidecar.errors),
                         family=spec.topology.name)
    errors += [EpisodeError(where="checker", kind="checker_error", message=m) for m in sidecar.errors]
    usage, visibility = _usage_and_visibility(team)
    # The executor may see the artifact; nothing else of the full record. Under W every hop after the
    # reviewer may also see the gate's projection (trusted state, built from the canonical blocker).
    workflow = team.workflow
    projected = [p] if workflow is not None and (p := workflow.projection()) else []
    # The audit reads the record the reviewer actually saw: the task's text in the episode's wording.
    isolation = audit(spec.surface, visibility["executor"], [artifact.text, *projected])
    transformer_iso = audit(spec.surface, visibility["transformer"], [h.text for h in hops] + projected)
    if workflow is not None and workflow.note:
        errors.append(EpisodeError(where="workflow", kind="no_gate", message=workflow.note))
    if not transformer_iso.ok:
        errors.append(EpisodeError(where="transformer", kind="isolation_leak",
                                   message="; ".join(transformer_iso.leaks)[:500]))
    cond = spec.condition
    return EpisodeRecord(
        key=spec.key, task=spec.task, task_hash=spec.task_hash, condition=cond.id, topology=spec.topology,
        seed=spec.seed, models=spec.model_names, simulated=spec.simulated, hops=hops,
        artifact=artifact.model_copy(update={"score": facts.artifact_score}), **facts.update(),
        visibility=visibility, isolation=isolation, usage=usage,
        errors=errors, checker_version=CHECKER_VERSION, checker=CHECKER_NAME, failed=failed, twin=spec.twin,
        params={r: p.model_dump() for r, p in spec.params.items()}, team_config=team.config,
        sim_truth=_sim_truth(team), started_at=team.started.isoformat(),
        duration_s=round(time.perf_counter() - team.t0, 4),
        family=cond.family, control=_control(spec), endpoints={r: spec.models[r].endpoint for r in ROLES},
        gate=workflow.record if workflow is not None else None, repair=repair,
        replay_base=base,
        configs=dict(spec.configs) or None, panel=spec.panel, wording=spec.wording_record,
        substrate=spec.substrate,
    )


def _control(spec: EpisodeSpec) -> str | None:
    """The condition's matched control; W's is its topology's own condition (the prose team it ran)."""
    return spec.team_condition.id if spec.workflow else spec.condition.control
