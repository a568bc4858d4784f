"""Run one built episode: the team under the sidecar, a replay arm's repair, the executor, the record.

Layer 2 of the runner: `build_team` (teams/_build.py) made the objects; this runs them, scores,
audits and assembles the record. No store, no files. A misbehaving model becomes an entry in
`errors`; the record is always returned.

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
from collections.abc import Awaitable, Callable
from typing import TypeVar

from autogen_core import CancellationToken

from mustmaybe.agents import ModelCallError, describe_failure, prompts
from mustmaybe.records import (
    ArtifactRecord,
    EpisodeError,
    EpisodeRecord,
    EpisodeSpec,
    ExecutorOutcome,
    Hop,
    ModelSpec,
    Role,
    twin_reading,
)

from ._assemble import assemble_record
from ._build import EpisodeTeam
from ._controls import enforce_control
from ._gate import check_action
from ._outcome import apply_receipt, executor_outcome
from ._release import release_runtime
from ._replay import repair_text, replay_base, restored_fields, verify_control
from ._sidecar import safe_score, score_artifact_text

T = TypeVar("T")


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


async def _cancellable(call: Callable[[], Awaitable[T]], token: CancellationToken) -> T:
    """Await `call()`; a cancellation (or an error a team made of one) cancels the episode's calls."""
    try:
        result = await call()
        if _being_cancelled():
            raise asyncio.CancelledError()
        return result
    except asyncio.CancelledError:
        token.cancel()
        raise
    except Exception:
        if _being_cancelled():  # the team turned the cancelled call into an error: still a cancellation
            token.cancel()
            raise asyncio.CancelledError() from None
        raise


async def _run_team(team: EpisodeTeam, spec: EpisodeSpec, token: CancellationToken) -> list[EpisodeError]:
    """Run the team to its handoff; what stopped it (a model call that finally failed) is returned."""
    errors: list[EpisodeError] = []
    stopping = False
    team.runtime.start()
    try:
        task = prompts.reviewer_task(spec.surface, spec.twin)  # the task as the agents read it (its wording)
        plan = team.plan
        await _cancellable(lambda: plan.run(task, token) if plan.run is not None else
                           plan.team.run(task=task, cancellation_token=token), token)
    except asyncio.CancelledError:
        stopping = True
        raise
    except Exception as exc:
        if team.plan.problems:  # every call answered, but what came back cannot be used (a trajectory's parse)
            errors.extend(team.plan.problems)
            return errors
        where = next((name for name, c in team.clients.items() if c.last_error is not None), "team")
        # A team wraps an agent's failure in a RuntimeError carrying the traceback text; report the
        # model call's own failure (which agent, endpoint, and why), so it reads and counts as what it is.
        client = team.clients.get(where)
        cause = client.last_error if client is not None and client.last_error is not None else exc
        role = team.roles.get(where)
        errors.append(_call_error(where, role, cause, spec.models[role] if role is not None else None))
    finally:
        # A failed run can leave the runtime stopped already. When stopping, do not wait for the
        # handlers still in flight: their calls were cancelled above.
        try:
            await (team.runtime.stop() if stopping else team.runtime.stop_when_idle())
        except Exception:  # a failed run can leave it stopped already: nothing more to do with it
            pass
        else:
            if not stopping:  # idle: no handler is left that could still look an agent up
                release_runtime(team.runtime)
    return errors


def not_scored() -> ExecutorOutcome:
    """The executor outcome of a failed episode: nothing scored, neither safe nor unsafe."""
    return ExecutorOutcome(action=None, blocker_recognized=False, rationale="", parse_ok=False, action_rule=None,
                           forbidden=None, raw="")


async def _run_executor(team: EpisodeTeam, spec: EpisodeSpec, artifact_text: str, control: str | None,
                        errors: list[EpisodeError], token: CancellationToken) -> tuple[ExecutorOutcome, bool]:
    """The executor's outcome and whether the episode failed (its model call finally failed)."""
    scenario, workflow = spec.scenario, team.workflow
    # Under W the executor gets its topology's own condition's pressure, as that condition's executor does.
    view_cond = spec.team_condition if spec.workflow else spec.condition
    projection = workflow.projection() if workflow is not None else None
    task = prompts.executor_task(spec.surface, view_cond, artifact_text, control, projection)
    try:
        result = await _cancellable(lambda: team.executor.run(task=task, cancellation_token=token), token)
        raw = result.messages[-1].to_text() if result.messages else ""
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        # No answer at all is not an answer that does not parse: the fallback rule does not apply.
        client = team.clients["executor"]
        cause = client.last_error if client.last_error is not None else exc
        errors.append(_call_error("executor", "executor", cause, spec.models["executor"]))
        return not_scored(), True
    outcome, parse_error = executor_outcome(scenario, raw, artifact_text, spec.twin)
    if parse_error is not None:
        errors.append(parse_error)
    return _enforced(spec, team, outcome), False


def _enforced(spec: EpisodeSpec, team: EpisodeTeam, outcome: ExecutorOutcome) -> ExecutorOutcome:
    """The outcome after the episode's enforced control (W's gate check, a V-*-enforced check), if any:
    trusted code decides what takes effect; prompt-only arms leave the model's choice as it is."""
    requested, scenario = outcome.action, spec.scenario
    if requested is None:
        return outcome
    if team.workflow is not None:
        receipt = check_action(scenario, requested, team.workflow.record, team.workflow.ledger)
    elif spec.replay is not None and spec.replay.enforce:
        receipt = enforce_control(spec.replay.verify, scenario, requested, resolved=spec.twin)
    else:
        return outcome
    return apply_receipt(scenario, outcome, receipt, spec.twin)


async def run_episode(team: EpisodeTeam, spec: EpisodeSpec) -> EpisodeRecord:
    """Run the episode `build_team(spec)` built and return its record.

    Args:
        team: what `build_team(spec)` returned (run it once).
        spec: the episode's resolved inputs.

    Returns:
        The `mustmaybe/episode@1` record, failed or not.
    """
    scenario, sidecar = spec.scenario, team.sidecar
    token = CancellationToken()  # cancels the model calls in flight when the episode is cancelled
    errors = await _run_team(team, spec, token)
    hops = sidecar.hops
    artifact_agent = team.plan.artifact_agent
    artifact_hops = [h for h in hops if h.sender == artifact_agent]
    artifact_text = artifact_hops[-1].text if artifact_hops else ""
    if not artifact_hops and not errors:
        errors.append(EpisodeError(where=artifact_agent, kind="no_artifact",
                                   message=f"{artifact_agent} produced no handoff, so the executor had "
                                           f"nothing to act on"))
    # Up to here `errors` holds only what stopped the team: then nothing is scored from this episode.
    failed = bool(errors)
    control, repair, base = None, None, None
    if spec.replay is not None and artifact_hops:
        base = replay_base(spec, artifact_text)
        restore = restored_fields(spec.replay.restore)
        control = verify_control(scenario, spec.replay.verify, spec.twin)
        if restore:
            artifact_text, repair = repair_text(scenario, artifact_text, restore)
            score = safe_score(scenario, artifact_text, sidecar.errors)
            hops.append(Hop(index=len(hops), role="transformer", sender="repair", text=artifact_text,
                            score=twin_reading(score) if spec.twin else score))
            if sidecar.on_hop is not None:
                sidecar.on_hop(hops[-1])
    artifact_score = score_artifact_text(scenario, artifact_text, hops, sidecar.errors)
    artifact = ArtifactRecord(text=artifact_text, score=twin_reading(artifact_score) if spec.twin else artifact_score)
    if failed:
        executor_out = not_scored()
    else:
        executor_out, failed = await _run_executor(team, spec, artifact_text, control, errors, token)
    return assemble_record(team, spec, hops, artifact, executor_out, errors, failed, repair, base)
