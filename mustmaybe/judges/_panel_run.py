"""`mustmaybe judge RUN --judges SPEC;SPEC;… [--sample N] [--seed S] --out DIR`: the blind panel.

A stratified sample of a run's final artifacts (by condition), every judge asked about each one from
the one sanitized view, their judgments written to DIR/judgments.jsonl and the agreement, pair,
concordance and gap tables built from them (contracts: CHECKER_AND_JUDGES.md). Judgments are kept in
RUN/judgments.sqlite, so a stopped panel resumes where it was and `rescore` with the same judges
pays for nothing twice. An audit re-derives every view from the task alone and checks that nothing
about the episode's condition, topology, checker label or outcome is in it.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.checker import RUBRIC, checker_view, judge_prompt, score_answer

from ._judge import JudgeCallError, JudgeReply, ModelJudge, full_view

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord, Judgment
    from mustmaybe.scenarios import Scenario


def stratified_sample(records: Sequence[EpisodeRecord], n: int | None, seed: int) -> list[EpisodeRecord]:
    """`n` episodes spread over conditions in proportion to their counts (each condition at least one
    while `n` allows), drawn with `seed`; all of them when `n` is None or not smaller."""
    if n is None or n >= len(records):
        return list(records)
    by_cond: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for r in sorted(records, key=lambda r: r.key):
        by_cond[r.condition].append(r)
    conds = sorted(by_cond)
    quota = {c: 0 for c in conds}
    for c in conds[:n]:
        quota[c] = 1
    left = n - sum(quota.values())
    total = len(records)
    # Largest remainders: the rest in proportion to each condition's share of the run.
    want = {c: left * len(by_cond[c]) / total for c in conds}
    for c in conds:
        quota[c] += int(want[c])
    for c in sorted(conds, key=lambda c: -(want[c] - int(want[c])))[: n - sum(quota.values())]:
        quota[c] += 1
    rng = random.Random(seed)
    out: list[EpisodeRecord] = []
    for c in conds:
        out += rng.sample(by_cond[c], min(quota[c], len(by_cond[c])))
    return sorted(out, key=lambda r: r.key)


def audit_view(view: str, record: EpisodeRecord, scenario: Scenario) -> list[str]:
    """What in a judge's view should not be there (empty: the view is clean).

    The view must be exactly the rubric and the task's sanitized view around the artifact, and the part
    that is not the artifact must name neither the condition, its family, the topology, the run
    checker's label nor the executor's choice.
    """
    expected = f"{RUBRIC}\n---\n{judge_prompt(checker_view(scenario), record.artifact.text)}"
    if view == expected:
        # Built from the task's goal, blocker and actions alone, the same for every condition: a word they
        # share with a condition or family name ("summary") is the task's, not the episode's.
        return []
    problems = ["the view is not the sanitized task view around the artifact"]
    outside = view.replace(record.artifact.text, "").replace(RUBRIC, "")
    outside = outside.replace(judge_prompt(checker_view(scenario), ""), "")
    probes = {"condition id": record.condition, "family": record.family or "", "topology": record.topology.name,
              "checker label": f'"state": "{record.artifact.score.state}"' if record.artifact.score else "",
              "executor rationale": record.executor.rationale or ""}
    for what, word in probes.items():
        if word and re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", outside):
            problems.append(f"{what} '{word[:40]}' appears outside the artifact")
    return problems


async def _ask(judge: ModelJudge, record: EpisodeRecord, scenario: Scenario) -> tuple[JudgeReply | None, str]:
    try:
        return await judge.ask(checker_view(scenario), record.artifact.text), ""
    except JudgeCallError as exc:
        return None, str(exc)


def judgment_of(judge: ModelJudge, record: EpisodeRecord, scenario: Scenario, reply: JudgeReply | None,
                ) -> Judgment:
    from mustmaybe.records import Judgment

    view = full_view(reply) if reply is not None else \
        f"{RUBRIC}\n---\n{judge_prompt(checker_view(scenario), record.artifact.text)}"
    if reply is None or reply.answer is None:
        return Judgment(episode=record.key, judge=judge.spec, view=view, parse_ok=False)
    s = score_answer(reply.answer, record.artifact.text, judge.name)
    return Judgment(episode=record.key, judge=judge.spec, view=view, fields=s.fields.model_dump(), state=s.state,
                    evidence={k: [sp.text for sp in v] for k, v in s.evidence.items() if v},
                    unverified_quotes=s.unverified_quotes or 0, parse_ok=True)


async def run_panel(records: Sequence[EpisodeRecord], scenarios: dict[str, Scenario], judges: Sequence[ModelJudge],
                    concurrency: int = 8) -> tuple[list[Judgment], list[str]]:
    """Every judge's judgment of every record's artifact (in record, then judge order) and the call failures."""
    import asyncio

    gate = asyncio.Semaphore(concurrency)

    async def one(j: ModelJudge, r: EpisodeRecord) -> tuple[Judgment, str]:
        async with gate:
            reply, err = await _ask(j, r, scenarios[r.task_hash])
        return judgment_of(j, r, scenarios[r.task_hash], reply), err

    done = await asyncio.gather(*(one(j, r) for r in records for j in judges))
    return [d[0] for d in done], [d[1] for d in done if d[1]]


def write_judgments(path: Path, judgments: Sequence[Judgment]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for j in judgments:
            fh.write(json.dumps(j.model_dump(mode="json")) + "\n")


def panel_episodes(records: Sequence[EpisodeRecord]) -> list[Any]:
    from mustmaybe.records import PanelEpisode

    # A failed episode has no score to compare a judge with.
    return [PanelEpisode(episode=r.key, condition=r.condition, fields=r.artifact.score.fields.model_dump(),
                         state=r.artifact.score.state) for r in records if r.artifact.score is not None]
