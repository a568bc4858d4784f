"""The episode record (docs/episode-record.md, schema `mustmaybe/episode@1`) and its parts.

More keys may be added; none of the contract's keys may be removed or renamed without a schema bump.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._gate import GateRecord, Receipt, RepairRecord, ReplayBase
from ._score import ActionRule, ArtifactScore
from ._substrate import DEFAULT_SUBSTRATE, Substrate

Role = Literal["reviewer", "transformer", "executor"]
ROLES: tuple[Role, ...] = ("reviewer", "transformer", "executor")


@functools.lru_cache(maxsize=256)
def _endpoint_of(spec: str) -> str:
    """Where a model spec's calls go (the base URL, or the backend name); an unreadable spec as it is."""
    from ._models import ModelSpecError, parse_model_spec

    try:
        return parse_model_spec(spec).endpoint
    except ModelSpecError:
        return spec


class TopologySpec(BaseModel):
    """A topology name and its parameters (part of the episode's inputs and key)."""

    model_config = ConfigDict(frozen=True)

    name: str
    params: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        if self.name == "team" and {"name", "digest"} <= self.params.keys():
            # A user team reads by its file's stem and digest: team:<stem>@<first 8 hex of the digest>.
            return f"team:{self.params['name']}@{str(self.params['digest'])[:8]}"
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))


class Hop(BaseModel):
    """One transmitted message with its sidecar score."""

    index: int = Field(description="0 is the reviewer; transformer hops follow in transmission order.")
    role: Role
    sender: str = Field(description="The AutoGen agent name that sent it.")
    text: str
    score: ArtifactScore


StageKind = Literal["statement", "handoff", "round", "summary", "plan", "repair"]


class Stage(BaseModel):
    """One point of the drift curve: the artifact as the next reader receives it (records/_stages.py).

    Every message is a hop and is scored; a stage is what a step passes on toward the executor. In a
    chain each handoff message is one; in a consensus group a round is one (the discussion thread the
    next peer or the coordinator reads, scored as one text), then the coordinator's summary.
    """

    index: int = Field(description="Position on the topology family's drift axis; 0 is the reviewer's statement.")
    label: str = Field(description="reviewer | hop N | round N | coordinator | plan | repair.")
    kind: StageKind = Field(description="statement | handoff | round | summary | plan | repair.")
    hops: list[int] = Field(description="Indices of the hops whose texts make up the stage, in order.")
    senders: list[str] = Field(description="The agents that wrote those hops.")
    text: str = Field(description="What the next reader receives: one hop's text, or a round's thread.")
    score: ArtifactScore


class ArtifactRecord(BaseModel):
    """The handoff the executor received, with its score (null in a failed episode: nothing is scored)."""

    text: str
    score: ArtifactScore | None


class ExecutorOutcome(BaseModel):
    """The executor's decision and whether it is forbidden (Y).

    In a failed episode (`EpisodeRecord.failed`) nothing is scored: `action`, `action_rule` and
    `forbidden` are null, `parse_ok` and `blocker_recognized` false. A failure is never safe or unsafe.
    """

    action: str | None = Field(description="The action id after the parse-failure rule (null: failed episode).")
    blocker_recognized: bool
    rationale: str = ""
    parse_ok: bool
    action_rule: ActionRule | None = Field(
        description="requested | recommended | fallback (paper's rule); null in a failed episode.")
    forbidden: bool | None = Field(description="Y: the action that took effect is forbidden (null: failed episode). "
                                                "On a benign twin the correct action is not forbidden.")
    raw: str = Field(default="", description="The executor model's raw answer text.")
    requested_action: str | None = Field(
        default=None, description="What the model chose; differs from `action` only when an enforced control "
                                  "refused it (records written before enforcement: the same as `action`).")
    requested_forbidden: bool | None = Field(
        default=None, description="Whether `requested_action` is forbidden (twin-aware, like `forbidden`).")
    denied_by: str | None = Field(default=None, description="The gate id or enforced control that refused the "
                                                            "request (null: nothing refused it).")
    overblocked: bool | None = Field(
        default=None, description="Benign twin only: the correct action did not take effect because the blocker "
                                  "was still treated as binding (fallback, hold, escalation); null on non-twins.")
    receipt: Receipt | None = Field(default=None, description="An enforced control's decision (null: none ran).")

    @model_validator(mode="after")
    def _requested_defaults(self) -> ExecutorOutcome:
        # Records from before enforcement: what the model chose is what took effect.
        if self.requested_action is None and self.denied_by is None:
            self.requested_action = self.action
        if self.requested_forbidden is None and self.denied_by is None:
            self.requested_forbidden = self.forbidden
        return self


def _unset(value: object) -> bool:
    return value is None


def _default_substrate(value: object) -> bool:
    # The default substrate is left out of the dump (JSON, the store, export): a record of an AutoGen
    # episode is byte-identical to one written before substrates existed.
    return value == DEFAULT_SUBSTRATE


class RoleUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    latency_s: float = 0.0
    cached_calls: int = 0
    finish_reasons: dict[str, int] | None = Field(
        default=None, exclude_if=_unset,
        description="Completed calls per finish reason (stop, length, content_filter, function_calls, unknown); "
                    "absent in records written before it was recorded.")


class Isolation(BaseModel):
    ok: bool
    leaks: list[str] = Field(default_factory=list)


class EpisodeError(BaseModel):
    """A failure recorded as data: the episode is kept and flagged, never dropped."""

    where: str = Field(description="Role or stage where it happened (reviewer, executor, team, checker…).")
    kind: str = Field(description="Short category: parse_error, timeout, rate_limited, http_500, connection_error, "
                                  "not_a_completion, …")
    message: str
    role: str | None = Field(default=None, description="The role whose model call failed (model-call errors).")
    endpoint: str | None = Field(default=None, description="Base URL or backend the failed call went to.")


class WordingRecord(BaseModel):
    """The paraphrase panel's wording variant an episode ran in (appendix G; absent: the base wording)."""

    id: str = Field(description="The wording variant (p1, p2, …; `mustmaybe list wordings`).")
    digest: str = Field(description="sha256 of both texts below together: what the episode key digests.")
    prompts: str = Field(description="sha256 of the variant's role prompt templates (agents/prompts/<id>/).")
    task: str = Field(description="sha256 of the task's reworded surface text (scenarios/wordings/<id>/<task>.yaml).")


class EpisodeRecord(BaseModel):
    """One task × condition × topology × role-models × seed realization."""

    schema_: Literal["mustmaybe/episode@1"] = Field(default="mustmaybe/episode@1", alias="schema")
    key: str
    task: str
    task_hash: str
    condition: str
    topology: TopologySpec
    seed: int
    models: dict[str, str]
    simulated: bool = Field(description="True when any role ran on the sim backend.")
    reviewer_identified: bool | None = Field(
        description="D_up: the reviewer's statement preserves the blocker (null in a failed episode).")
    hops: list[Hop]
    artifact: ArtifactRecord
    first_break_hop: int | None
    executor: ExecutorOutcome
    visibility: dict[str, list[str]] = Field(description="Exact texts each role's model calls received.")
    isolation: Isolation
    usage: dict[str, RoleUsage]
    errors: list[EpisodeError] = Field(default_factory=list)
    checker_version: str
    checker: str | None = Field(
        default=None, description="The instrument that scored this record (`rules@…`, `judge:…`, `panel:…`, "
                                  "`routed:…`); null in records written before instruments were named (rules).")
    failed: bool = Field(
        default=False,
        description="A model call finally failed (or the team produced no handoff), so the executor never acted "
                    "on one: nothing is scored (executor.action and forbidden are null); counted as failed, "
                    "never as safe or unsafe. `errors` says which role, endpoint and why.",
    )
    # Keys beyond the contract's minimum.
    twin: bool = Field(default=False, description="Benign twin: the blocker was resolved in this episode.")
    params: dict[str, dict[str, Any]] = Field(default_factory=dict, description="Per-role model parameters.")
    team_config: dict[str, Any] | None = Field(
        default=None,
        description="The built team as the project describes it: its class (`team`), `topology`, `base` (a replay "
                    "arm's or W's base condition and topology), the speaking `order`, per agent its name, role, "
                    "model, parameters, system message and context filter, and `component`: the team's real "
                    "AutoGen component config (`dump_component()`, secrets removed; null where it cannot be "
                    "dumped). A user's team adds `source`; LangGraph adds its substrate keys (docs/episode-record.md).")
    sim_truth: list[dict[str, Any]] | None = Field(
        default=None, description="Ground truth the sim backend exposed per transformer hop."
    )
    started_at: str | None = None
    duration_s: float | None = None
    stages: list[Stage] = Field(
        default_factory=list,
        description="The carried stages the drift curve plots (empty in records written before stages existed).",
    )
    first_break_stage: int | None = Field(
        default=None, description="Index of the first stage whose state is not preserved (null if none)."
    )
    family: str | None = Field(default=None, description="The condition's family (null in records written before it).")
    control: str | None = Field(default=None, description="The condition's matched control id (null: none).")
    endpoints: dict[str, str] = Field(
        default_factory=dict, description="Per role, where its calls went: the base URL, or the backend name.")
    gate: GateRecord | None = Field(
        default=None, description="W only: the gate record trusted code committed from the reviewer's validated "
                                  "output and the task's canonical blocker.")
    repair: RepairRecord | None = Field(default=None, description="R-* only: what the repair inserted.")
    replay_base: ReplayBase | None = Field(
        default=None, description="Replay arms (R-*, V-*) only: the fixed base artifact the arm started from.")
    configs: dict[str, str] | None = Field(
        default=None, exclude_if=_unset,
        description="Per role, the sweep file's named model configuration ([models.<name>]) it ran; absent when "
                    "no role used one. Reports label the model configuration by these names.")
    panel: str | None = Field(
        default=None, exclude_if=_unset,
        description="The evidence panel its model configuration is marked with (`main`, `validation`, …; the "
                    "sweep file's `panel` keys); absent when none is marked. Not part of the key.")

    wording: WordingRecord | None = Field(
        default=None, exclude_if=_unset,
        description="Paraphrase panel only: the wording variant of the prompts and task text the agents read; "
                    "absent (not written) for the base wording.")
    substrate: Substrate = Field(
        default=DEFAULT_SUBSTRATE, exclude_if=_default_substrate,
        description="The workflow substrate that ran the team and the executor (autogen | langgraph; "
                    "docs/substrates.md). Written only when it is not autogen, so AutoGen records stay as they were.")

    model_config = ConfigDict(populate_by_name=True)

    @model_validator(mode="after")
    def _derive_missing(self) -> EpisodeRecord:
        """A record written before `family`, `control` and `endpoints` existed gets them from its
        condition id and model specs (the only place they are worked out again). An after-validator,
        so reading a record that has them costs nothing extra."""
        if self.family is None:
            from mustmaybe.scenarios import CONDITIONS

            cond = CONDITIONS.get(self.condition)
            if cond is not None:
                self.family, self.control = cond.family, cond.control
        if not self.endpoints and self.models:
            self.endpoints = {role: _endpoint_of(spec) for role, spec in self.models.items()}
        return self

    def configuration(self) -> dict[str, str]:
        """Per role, the label of the model configuration it ran: its sweep configuration name where it
        had one, else its spec, followed by its request parameters where any is set (so a thinking and a
        non-thinking variant of one spec never share a label). Records without either: the spec itself."""
        from ._models import REQUEST_PARAM_KEYS

        out: dict[str, str] = {}
        for role, spec in self.models.items():
            name = (self.configs or {}).get(role)
            given = self.params.get(role) or {}
            extra = {k: given[k] for k in REQUEST_PARAM_KEYS if given.get(k) is not None}
            out[role] = name or (spec + " " + json.dumps(extra, sort_keys=True, separators=(",", ":"))
                                 if extra else spec)
        return out

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)
