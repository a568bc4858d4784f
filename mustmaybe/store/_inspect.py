"""`mustmaybe export RUN --format inspect`: the run as Inspect AI eval logs, so `inspect view` opens it.

One `.eval` log per condition × topology × role models × wording × substrate (what Inspect calls one
eval: one task on one model); in it one sample per episode. The role models are the model
configurations (a sweep file's `[models.<name>]` name, or a spec with its request parameters:
`EpisodeRecord.configuration()`), so two variants of one spec never share a log; a paraphrase wording
(p1, p2) and a substrate other than AutoGen (LangGraph) are logs of their own: within a log a task and
seed is one episode. A sample's id is its task (`<task>-twin` for a benign twin) and its epoch the
position of its seed among the log's seeds, so the seeds of one task read as Inspect's
repeated epochs; the seed itself is in the metadata. Its messages are the hops (the reviewer's task,
every transmitted message, what the executor received and its answer); its scores are `state`
(P/D/U of the handoff), `fields` (the field profile R) and `Y` (the forbidden action). A failed
episode (a model call finally failed: nothing was scored) is an errored sample with no scores, as
Inspect records a sample that raised. Every number comes from the stored records; a run with the
`sim` backend is tagged SIMULATED.

inspect_ai is an optional extra (`pip install 'mustmaybe[inspect]'`), imported only here, only when
this format is asked for.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.scenarios import Scenario

    from ._store import RunStore

STATE_LETTER = {"preserved": "P", "deactivated": "D", "undetermined": "U"}
SCORERS = ("state", "fields", "Y")
SIMULATED = "SIMULATED"


@dataclass
class _Raised:
    """A planned episode that raised instead of returning a record (the store's `failures` table)."""

    key: str
    task: str
    condition: str
    topology: str
    seed: int
    models: dict[str, str]
    kind: str
    message: str


@dataclass
class _Group:
    """The episodes of one Inspect log: one condition, topology, set of role model configurations and wording."""

    condition: str
    topology: str
    models: dict[str, str]  # per role, its model configuration's label (the spec itself when it has no name)
    wording: str = "base"
    substrate: str = "autogen"
    records: list[EpisodeRecord] = field(default_factory=list)
    raised: list[_Raised] = field(default_factory=list)

    @property
    def digest(self) -> str:
        # The base wording and AutoGen add nothing, so the logs of a run without them keep their names.
        parts: list[Any] = [self.condition, self.topology, self.models]
        if self.wording != "base":
            parts.append(self.wording)
        if self.substrate != "autogen":
            parts.append({"substrate": self.substrate})
        body = json.dumps(parts, sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()

    @property
    def specs(self) -> dict[str, str]:
        """Per role, the model spec its calls used (a configuration's label is not a model name)."""
        first = self.records[0].models if self.records else self.raised[0].models if self.raised else {}
        return dict(first) or dict(self.models)


def _import_inspect() -> Any:
    try:
        import inspect_ai.log as log
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("inspect_ai"):
            raise
        raise UserError("--format inspect needs the optional extra 'inspect', which is not installed; install it "
                        "with: pip install 'mustmaybe[inspect]' (or pip install inspect_ai)") from None
    return log


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:60] or "run"


def _groups(store: RunStore) -> list[_Group]:
    groups: dict[tuple[str, str, str, str, str], _Group] = {}

    def group(condition: str, topology: str, models: dict[str, str], wording: str, substrate: str) -> _Group:
        k = (condition, topology, json.dumps(models, sort_keys=True), wording, substrate)
        if k not in groups:
            groups[k] = _Group(condition, topology, dict(models), wording, substrate)
        return groups[k]

    keys: set[str] = set()
    for rec in store.records():
        keys.add(rec.key)
        wording = rec.wording.id if rec.wording is not None else "base"
        group(rec.condition, str(rec.topology), rec.configuration(), wording, rec.substrate).records.append(rec)
    rows = store.query("SELECT key, task, condition, topology, seed, models, kind, message FROM failures "
                       "ORDER BY rowid")
    for key, task, condition, topology, seed, models, kind, message in rows:
        if key in keys:
            continue
        # The failures table holds no wording, configuration name or substrate: the log of its specs in the
        # base wording on AutoGen.
        raised = _Raised(key, task, condition, topology, int(seed), json.loads(models), kind, message)
        group(condition, topology, raised.models, "base", "autogen").raised.append(raised)
    return list(groups.values())


def _sample_id(task: str, twin: bool) -> str:
    return f"{task}-twin" if twin else task


def _usage(prompt: int, completion: int) -> Any:
    from inspect_ai.model import ModelUsage

    return ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)


def _completed(started: str | None, duration: float | None) -> str | None:
    if started is None or duration is None:
        return None
    try:
        return (datetime.fromisoformat(started) + timedelta(seconds=duration)).isoformat()
    except ValueError:
        return None


def _messages(rec: EpisodeRecord) -> tuple[str, list[Any]]:
    """The sample's input (the reviewer's task as its model received it) and the transcript per hop."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

    reviewer_saw = rec.visibility.get("reviewer") or []
    task_text = reviewer_saw[-1] if reviewer_saw else rec.task
    msgs: list[Any] = [ChatMessageUser(content=task_text, source="input", metadata={"to": "reviewer"})]
    for hop in rec.hops:
        s = hop.score
        msgs.append(ChatMessageAssistant(
            content=hop.text, model=rec.models.get(hop.role), source="generate",
            metadata={"hop": hop.index, "role": hop.role, "sender": hop.sender, "state": s.state,
                      "complete": s.complete, "fields": s.fields.model_dump(), "retention_score": s.retention_score,
                      "flags": [k for k, v in s.flags.model_dump().items() if v is True]}))
    executor_saw = rec.visibility.get("executor") or []
    if executor_saw:
        msgs.append(ChatMessageUser(content=executor_saw[-1], metadata={"to": "executor"}))
    if rec.executor.raw:
        ex = rec.executor
        msgs.append(ChatMessageAssistant(
            content=ex.raw, model=rec.models.get("executor"), source="generate",
            metadata={"role": "executor", "sender": "executor", "action": ex.action,
                      "requested_action": ex.requested_action, "denied_by": ex.denied_by,
                      "parse_ok": ex.parse_ok, "action_rule": ex.action_rule}))
    return task_text, msgs


def _scores(rec: EpisodeRecord) -> dict[str, Any]:
    """`state`, `fields` and `Y` of a scored episode, as the record holds them."""
    from inspect_ai.scorer import Score

    art = rec.artifact.score
    assert art is not None and rec.executor.forbidden is not None  # a scored episode
    fields = art.fields.model_dump()
    ex = rec.executor
    return {
        "state": Score(value=art.state, answer=rec.artifact.text,
                       explanation=f"handoff {STATE_LETTER.get(art.state, art.state)} by {rec.checker or 'rules'}; "
                                   f"first break at hop {rec.first_break_hop}",
                       metadata={"complete": art.complete, "retention_score": art.retention_score,
                                 "first_break_hop": rec.first_break_hop, "first_break_stage": rec.first_break_stage,
                                 "reviewer_identified": rec.reviewer_identified,
                                 "flags": [k for k, v in art.flags.model_dump().items() if v is True]}),
        "fields": Score(value=fields, answer=rec.artifact.text,
                        explanation="complete (C)" if art.complete else
                        "missing: " + ", ".join(k for k, v in fields.items() if not v)),
        "Y": Score(value=ex.forbidden, answer=ex.action, explanation=ex.rationale or None,
                   metadata={"requested_action": ex.requested_action, "requested_forbidden": ex.requested_forbidden,
                             "denied_by": ex.denied_by, "action_rule": ex.action_rule, "parse_ok": ex.parse_ok,
                             "blocker_recognized": ex.blocker_recognized, "overblocked": ex.overblocked}),
    }


def _error(message: str) -> Any:
    from inspect_ai.log import EvalError

    return EvalError(message=message, traceback=message, traceback_ansi=message)


def _failure_message(rec: EpisodeRecord) -> str:
    lines = [e.message for e in rec.errors] or ["a model call failed"]
    return "failed episode (nothing was scored, neither safe nor unsafe): " + "; ".join(lines)


def _target(scenario: Scenario | None, twin: bool) -> str:
    """The action the executor should take: the blocker's fallback, or on a twin the correct action."""
    if scenario is None:
        return ""
    if twin and scenario.resolution is not None:
        return scenario.resolution.correct_action
    return scenario.blocker.fallback_action


def _record_sample(rec: EpisodeRecord, epoch: int, scenario: Scenario | None) -> Any:
    from inspect_ai.log import EvalSample

    task_text, msgs = _messages(rec)
    role_usage = {role: _usage(u.prompt_tokens, u.completion_tokens) for role, u in rec.usage.items()}
    by_model: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for role, u in rec.usage.items():
        spec = rec.models.get(role, role)
        by_model[spec][0] += u.prompt_tokens
        by_model[spec][1] += u.completion_tokens
    metadata = {
        "key": rec.key, "task": rec.task, "task_hash": rec.task_hash, "condition": rec.condition,
        "family": rec.family, "control": rec.control, "topology": str(rec.topology),
        "topology_params": rec.topology.params, "models": rec.models, "endpoints": rec.endpoints, "seed": rec.seed,
        "twin": rec.twin, "simulated": rec.simulated, "failed": rec.failed, "checker": rec.checker,
        "checker_version": rec.checker_version, "isolation_ok": rec.isolation.ok,
        "errors": [e.model_dump() for e in rec.errors], "params": rec.params,
        "configs": rec.configs, "panel": rec.panel,
        "wording": rec.wording.model_dump() if rec.wording is not None else None, "substrate": rec.substrate,
    }
    from inspect_ai.model import ModelOutput

    output = ModelOutput.from_content(rec.models.get("executor", ""), rec.executor.raw) if rec.executor.raw else None
    return EvalSample(
        id=_sample_id(rec.task, rec.twin), epoch=epoch, input=task_text, target=_target(scenario, rec.twin),
        messages=msgs, metadata=metadata,
        scores=None if rec.failed else _scores(rec),
        error=_error(_failure_message(rec)) if rec.failed else None,
        model_usage={m: _usage(p, c) for m, (p, c) in by_model.items()}, role_usage=role_usage,
        started_at=rec.started_at, completed_at=_completed(rec.started_at, rec.duration_s),
        total_time=rec.duration_s, **({"output": output} if output is not None else {}),
    )


def _raised_sample(r: _Raised, epoch: int, scenario: Scenario | None) -> Any:
    from inspect_ai.log import EvalSample

    message = f"episode raised ({r.kind}), no record: {r.message}"
    return EvalSample(id=_sample_id(r.task, False), epoch=epoch, input=scenario.goal if scenario else r.task,
                      target=_target(scenario, False), metadata={
                          "key": r.key, "task": r.task, "condition": r.condition, "topology": r.topology,
                          "models": r.models, "seed": r.seed, "failed": True, "raised": True},
                      error=_error(message))


def _pct(n: int, d: int) -> float:
    return round(100.0 * n / d, 2) if d else 0.0


def _results(log: Any, scored: list[EpisodeRecord], total: int) -> Any:
    """Rates over the scored episodes of the log (percentages, as mustmaybe's reports give them)."""
    n, failed = len(scored), total - len(scored)
    states = [r.artifact.score.state for r in scored if r.artifact.score is not None]
    fields = [r.artifact.score for r in scored if r.artifact.score is not None]

    def metrics(values: dict[str, float]) -> dict[str, Any]:
        return {k: log.EvalMetric(name=k, value=v) for k, v in values.items()}

    def score(name: str, values: dict[str, float]) -> Any:
        return log.EvalScore(name=name, scorer=name, scored_samples=n, unscored_samples=failed,
                             metrics=metrics(values))

    return log.EvalResults(total_samples=total, completed_samples=n, scores=[
        score("state", {letter: _pct(sum(s == state for s in states), n) for state, letter in STATE_LETTER.items()}),
        score("fields", {**{k: _pct(sum(bool(getattr(f.fields, k)) for f in fields), n)
                            for k in ("status", "prerequisite", "authority", "fallback")},
                         "C": _pct(sum(f.complete for f in fields), n)}),
        score("Y", {"Y": _pct(sum(bool(r.executor.forbidden) for r in scored), n)}),
    ], metadata={"units": "percent of scored samples", "failed": failed})


def _epochs(group: _Group) -> dict[tuple[str, int], int]:
    """(sample id, seed) → epoch: the seed's 1-based position among the seeds of that sample id."""
    seeds: dict[str, set[int]] = defaultdict(set)
    for rec in group.records:
        seeds[_sample_id(rec.task, rec.twin)].add(rec.seed)
    for r in group.raised:
        seeds[_sample_id(r.task, False)].add(r.seed)
    return {(sid, seed): i + 1 for sid, ss in seeds.items() for i, seed in enumerate(sorted(ss))}


def _eval_log(log: Any, group: _Group, scenarios: dict[str, Scenario], run: Path, manifest: dict[str, Any],
              created: str) -> Any:
    from inspect_ai.model import GenerateConfig, ModelConfig

    epochs = _epochs(group)
    by_task = {s.id: s for s in scenarios.values()}
    samples = [_record_sample(r, epochs[(_sample_id(r.task, r.twin), r.seed)],
                              scenarios.get(r.task_hash) or by_task.get(r.task)) for r in group.records]
    samples += [_raised_sample(r, epochs[(_sample_id(r.task, False), r.seed)], by_task.get(r.task))
                for r in group.raised]
    samples.sort(key=lambda s: (str(s.id), s.epoch))
    specs = group.specs
    simulated = any(r.simulated for r in group.records) or any(m.startswith("sim") for m in specs.values())
    first = group.records[0] if group.records else None
    params = first.params if first is not None else {}
    roles = {role: ModelConfig(model=spec, config=GenerateConfig(**{
        k: v for k, v in (params.get(role) or {}).items() if k in ("temperature", "max_tokens", "seed")}))
        for role, spec in specs.items()}
    ids = sorted({str(s.id) for s in samples})
    tags = [SIMULATED] if simulated else []
    digest = group.digest
    worded = (f" · wording {group.wording}" if group.wording != "base" else "") + \
        (f" · on {group.substrate}" if group.substrate != "autogen" else "")
    scored = [r for r in group.records if not r.failed]
    started = sorted(r.started_at for r in group.records if r.started_at)
    ended = sorted(c for r in group.records if (c := _completed(r.started_at, r.duration_s)))
    git = manifest.get("git") or {}
    spec = log.EvalSpec(
        eval_id=digest[:22], run_id=hashlib.sha256(str(run.resolve()).encode()).hexdigest()[:22], created=created,
        task=group.condition, task_id=digest[:22],
        task_display_name=f"{group.condition} · {group.topology}" + worded + (f" · {SIMULATED}" if simulated else ""),
        task_description=f"mustmaybe condition {group.condition} under topology {group.topology}" + worded,
        task_attribs={"family": first.family if first else None, "control": first.control if first else None},
        task_args={"condition": group.condition, "topology": group.topology,
                   **({"wording": group.wording} if group.wording != "base" else {}),
                   **({"substrate": group.substrate} if group.substrate != "autogen" else {})},
        solver="mustmaybe", tags=tags,
        dataset=log.EvalDataset(name=manifest.get("name") or run.name, location=str(run), samples=len(ids),
                                sample_ids=ids),
        model=specs.get("transformer") or next(iter(specs.values()), "unknown"),
        model_roles=roles, config=log.EvalConfig(epochs=max(epochs.values(), default=1)),
        revision=log.EvalRevision(type="git", origin="", commit=git["commit"], dirty=bool(git.get("dirty")))
        if git.get("commit") else None,
        packages={k: v for k, v in (manifest.get("versions") or {}).items() if k != "python"},
        metadata={"mustmaybe": {"run": str(run), "kind": manifest.get("kind"), "condition": group.condition,
                                "topology": group.topology, "models": specs, "configurations": group.models,
                                "wording": group.wording, "substrate": group.substrate,
                                "panel": first.panel if first else None,
                                "simulated": simulated,
                                "checker": manifest.get("checker") or (first.checker if first else None),
                                "note": "SIMULATED: made with the sim backend; its rates are inputs, not findings"
                                        if simulated else None}},
    )
    usage: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    role_usage: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in group.records:
        for role, u in r.usage.items():
            for acc in (usage[r.models.get(role, role)], role_usage[role]):
                acc[0] += u.prompt_tokens
                acc[1] += u.completion_tokens
    stats = log.EvalStats(started_at=started[0] if started else created, completed_at=ended[-1] if ended else created,
                          model_usage={m: _usage(p, c) for m, (p, c) in usage.items()},
                          role_usage={m: _usage(p, c) for m, (p, c) in role_usage.items()})
    return log.EvalLog(status="success", eval=spec, plan=log.EvalPlan(name="mustmaybe"),
                       results=_results(log, scored, len(samples)), stats=stats, samples=samples, tags=tags)


def _created(manifest: dict[str, Any], records: Iterable[EpisodeRecord]) -> str:
    stamp = manifest.get("created_at") or manifest.get("started_at")
    if not stamp:
        stamp = min((r.started_at for r in records if r.started_at), default="1970-01-01T00:00:00+00:00")
    return str(stamp)


def export_inspect(store: RunStore, out: Path, manifest: dict[str, Any]) -> list[Path]:
    """Write one Inspect `.eval` log per condition × topology × models × wording × substrate into `out`.

    Raises:
        UserError: inspect_ai is not installed, or `out` is an existing file.
    """
    log = _import_inspect()
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is an existing file; for --format inspect give a folder")
    groups = _groups(store)
    scenarios = store.scenarios()
    created = _created(manifest, (r for g in groups for r in g.records))
    out.mkdir(parents=True, exist_ok=True)
    stamp = re.sub(r"[^0-9T]", "", created.split("+")[0].split(".")[0])[:15] or "run"
    written = []
    for group in groups:
        worded = ("" if group.wording == "base" else "-" + group.wording) + \
            ("" if group.substrate == "autogen" else "-" + group.substrate)
        name = f"{stamp}_{_slug(group.condition + '-' + group.topology + worded)}_{group.digest[:8]}.eval"
        target = out / name
        log.write_eval_log(_eval_log(log, group, scenarios, store.run_dir, manifest, created), str(target),
                           format="eval")
        written.append(target)
    return written
