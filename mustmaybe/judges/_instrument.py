"""The instruments behind `--checker`: rules, one judge, a panel, and rules routed to a judge.

Every instrument scores from the same view (checker.checker_view: goal, blocker z, actions) and the
artifact, and every score it returns names the instrument that decided it. A judge that gives no
usable answer never becomes a guessed label: the rules' score stands, says so on the score (`checker`
is the rules', `unsure["judge"]` says why), and the instrument counts it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mustmaybe.checker import CHECKER_NAME, CheckerView, checker_view, score_answer, score_artifact
from mustmaybe.records import ArtifactScore, FieldProfile, Flags, Span

from ._judge import JudgeCallError, JudgeReply, ModelJudge
from ._spec import InstrumentSpec, parse_instrument

if TYPE_CHECKING:
    from mustmaybe.agents import CallSharing, ResponseCache
    from mustmaybe.records import EndpointConfig, EpisodeRecord
    from mustmaybe.scenarios import Scenario

FIELDS = ("status", "prerequisite", "authority", "fallback")
FLAGS = ("caveat", "later_check", "omission", "assumed_authorization")


@dataclass
class InstrumentStats:
    """What an instrument did: how many artifacts, by whom, at what cost."""

    scored: int = 0
    decided_by: Counter[str] = field(default_factory=Counter)
    judge_failures: int = 0  # call failed or answer did not parse: the rules' score stood
    unverified_quotes: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"scored": self.scored, "decided_by": dict(self.decided_by), "judge_failures": self.judge_failures,
                "unverified_quotes": self.unverified_quotes}


class Instrument:
    """Scores artifacts of a task; `score` is async because judges make model calls."""

    def __init__(self, spec: InstrumentSpec, judges: Sequence[ModelJudge] = ()) -> None:
        self.spec = spec
        self.name = spec.name
        self.judges = list(judges)
        self.stats = InstrumentStats()
        self._memo: dict[tuple[str, str], ArtifactScore] = {}

    @property
    def is_rules(self) -> bool:
        return self.spec.is_rules

    @property
    def model_calls(self) -> int:
        return sum(j.calls for j in self.judges)

    async def score(self, scenario: Scenario, text: str) -> ArtifactScore:
        view = checker_view(scenario)
        memo_key = (view.digest, text)
        hit = self._memo.get(memo_key)
        if hit is not None:
            return hit
        rules = score_artifact(scenario, text)
        if self.spec.kind == "rules":
            out = rules
        elif self.spec.kind == "routed" and not rules.unsure:
            out = rules.model_copy(update={"checker": "routed:rules"})
        else:
            out = await self._judged(view, text, rules)
            if self.spec.kind == "routed":
                decider = "rules" if out.checker == CHECKER_NAME else out.checker
                out = out.model_copy(update={"checker": f"routed:{decider}"})
        self.stats.scored += 1
        self.stats.decided_by[out.checker or CHECKER_NAME] += 1
        if len(self._memo) > 4096:
            self._memo.clear()
        self._memo[memo_key] = out
        return out

    async def score_many(self, items: Sequence[tuple[Scenario, str]], concurrency: int = 8) -> list[ArtifactScore]:
        """Scores for many (task, text) pairs, at most `concurrency` judgments in flight."""
        gate = asyncio.Semaphore(concurrency)

        async def one(sc: Scenario, text: str) -> ArtifactScore:
            async with gate:
                return await self.score(sc, text)

        return list(await asyncio.gather(*(one(sc, t) for sc, t in items)))

    async def _replies(self, view: CheckerView, text: str) -> list[tuple[JudgeReply | None, str]]:
        """Each judge's reply to this one text, with why it is unusable ('' when usable)."""
        async def one(j: ModelJudge) -> tuple[JudgeReply | None, str]:
            try:
                reply = await j.ask(view, text)
            except JudgeCallError as exc:
                return None, str(exc)
            return reply, "" if reply.parse_ok else f"{j.name}: answer did not parse ({reply.problem})"

        return list(await asyncio.gather(*(one(j) for j in self.judges)))

    async def _judged(self, view: CheckerView, text: str, rules: ArtifactScore) -> ArtifactScore:
        replies = await self._replies(view, text)
        scores: list[ArtifactScore] = []
        problems: list[str] = []
        for j, (r, problem) in zip(self.judges, replies, strict=True):
            if r is None or r.answer is None:
                self.stats.judge_failures += 1
                problems.append(problem)
                continue
            s = score_answer(r.answer, text, j.name)
            self.stats.unverified_quotes += s.unverified_quotes or 0
            scores.append(s)
        if not scores:
            why = "; ".join(problems)
            return rules.model_copy(update={"checker": CHECKER_NAME,
                                            "unsure": {**rules.unsure, "judge": f"no usable judgment: {why}"}})
        if len(self.judges) == 1:
            return scores[0]
        out = majority(scores, rules, self.name.removeprefix("routed:"))
        if problems:  # the majority of the judges that answered; who did not, and why, stays on the score
            out = out.model_copy(update={"unsure": {**out.unsure, "judges_missing": "; ".join(problems)}})
        return out

    async def score_record(self, record: EpisodeRecord, scenario: Scenario) -> EpisodeRecord:
        """The whole record re-scored by this instrument (every hop, the artifact, the stages)."""
        from ._apply import score_record

        return await score_record(self, record, scenario)

    async def close(self) -> None:
        for j in self.judges:
            await j.close()


def _vote(values: Sequence[bool | str], fallback: bool | str) -> tuple[bool | str, bool]:
    """The strict majority, or the fallback on a tie; second: whether the majority decided."""
    counts = Counter(values).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return fallback, False
    return counts[0][0], True


def majority(scores: Sequence[ArtifactScore], rules: ArtifactScore, name: str) -> ArtifactScore:
    """The panel's score: the majority per field, flag and state; a tie takes the rules' value.

    A true field or flag keeps the spans of the judges that voted for it (or the rules' own spans where
    the tie went to the rules), so evidence always backs what the score claims.
    """
    values: dict[str, bool] = {}
    evidence: dict[str, list[Span]] = {}
    ties: list[str] = []
    for key in (*FIELDS, *FLAGS):
        own = (lambda s, k=key: getattr(s.fields, k)) if key in FIELDS else (lambda s, k=key: getattr(s.flags, k))
        won, decided = _vote([own(s) for s in scores], own(rules))
        values[key] = bool(won)
        if not decided:
            ties.append(key)
        source = [s for s in scores if own(s) == won] if decided else [rules]
        spans: list[Span] = []
        for s in source:
            for sp in s.evidence.get(key, []):
                if sp not in spans:
                    spans.append(sp)
        evidence[key] = spans if won else []
    state, decided = _vote([s.state for s in scores], rules.state)
    if not decided:
        ties.append("state")
    # Permission is not voted on by itself: it is the evidence behind a deactivated majority.
    perm = [sp for s in scores if s.state == state == "deactivated" for sp in s.evidence.get("permission", [])]
    evidence["permission"] = list(dict.fromkeys(perm))
    fields = FieldProfile(**{k: values[k] for k in FIELDS})
    flags = Flags(**{k: values[k] for k in FLAGS})
    retention = round(sum(s.retention_score for s in scores) / len(scores), 3)
    unsure = {"panel": "tie on " + ", ".join(ties) + ": the rules' value stands"} if ties else {}
    return ArtifactScore(fields=fields, complete=fields.complete, state=str(state),  # type: ignore[arg-type]
                         flags=flags, retention_score=retention, evidence=evidence, unsure=unsure, checker=name,
                         unverified_quotes=sum(s.unverified_quotes or 0 for s in scores))


def resolve_instrument(spec: str | InstrumentSpec, *, cache: ResponseCache | None = None,
                       sharing: CallSharing | None = None,
                       endpoints: Mapping[str, EndpointConfig] | None = None) -> Instrument:
    """The instrument a `--checker` value names, its judges' clients not yet built.

    Args:
        spec: `rules`, `judge:…`, `panel:…;…` or `routed:…`, as text or parsed (`parse_instrument`).
        cache: where judgments are kept (a run's `judgments.sqlite`); None: asked every time.
        sharing: the sweep's call sharing (response cache, calls in flight), if any.
        endpoints: limits, key variable and structured-output mode per base URL (a sweep's [[endpoints]]).

    Raises:
        CheckerSpecError: the spec names no usable instrument.
    """
    parsed = spec if isinstance(spec, InstrumentSpec) else parse_instrument(spec)
    eps = endpoints or {}
    judges = [ModelJudge(text, model, cache=cache, sharing=sharing, endpoint=eps.get(model.endpoint))
              for text, model in zip(parsed.judges, parsed.models, strict=True)]
    return Instrument(parsed, judges)
