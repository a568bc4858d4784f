"""An instrument applied to a whole episode record: every hop, the artifact and the carried stages.

The episode itself is run with the rules sidecar (live display, drift per hop); an instrument that
is not the rules then re-scores the stored texts before the record is written, exactly as `rescore`
does later: both through `records.rescored`, so the judges never call back into the store (rescoring
runs one way: the store reads, an instrument scores, the store writes). Each distinct text is judged once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.scenarios import Scenario

    from ._instrument import Instrument


async def score_record(instrument: Instrument, record: EpisodeRecord, scenario: Scenario) -> EpisodeRecord:
    """The record with every score by `instrument` (texts and action unchanged) and `checker` naming it."""
    from mustmaybe.checker import CHECKER_VERSION
    from mustmaybe.records import EpisodeError, plan_stages, rescored

    # The texts the record's stages will need scored: a round's thread (one-hop stages reuse their
    # hop's score). Planned, not scored, so no text is scored by the rules only to be thrown away.
    threads = [p.text for p in plan_stages(record.hops, record.topology.name) if p.kind == "round"]
    wanted = list(dict.fromkeys([*(h.text for h in record.hops), record.artifact.text, *threads]))
    scored = await instrument.score_many([(scenario, t) for t in wanted])
    table = dict(zip(wanted, scored, strict=True))
    new = rescored(record, scenario, table.__getitem__, checker=instrument.name, checker_version=CHECKER_VERSION)
    # Only this record's texts: a sweep scores many records at once with one instrument.
    problems = [s.unsure[k] for s in scored for k in ("judge", "judges_missing") if k in s.unsure]
    if problems:
        extra = [EpisodeError(where="checker", kind="judge_failed", message=m) for m in dict.fromkeys(problems)]
        new = new.model_copy(update={"errors": [*new.errors, *extra]})
    return new
