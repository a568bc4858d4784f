"""An instrument applied to a whole episode record: every hop, the artifact and the carried stages.

The episode itself is run with the rules sidecar (live display, drift per hop); an instrument that
is not the rules then re-scores the stored texts before the record is written, exactly as `rescore`
does later. Each distinct text is judged once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mustmaybe.checker import ArtifactScore

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord
    from mustmaybe.scenarios import Scenario

    from ._instrument import Instrument


async def score_record(instrument: Instrument, record: EpisodeRecord, scenario: Scenario) -> EpisodeRecord:
    """The record with every score by `instrument` (texts and action unchanged) and `checker` naming it."""
    from mustmaybe.records import EpisodeError, carried_stages
    from mustmaybe.store import rescore_record

    texts: list[str] = []

    def collect(text: str) -> ArtifactScore:
        texts.append(text)
        from mustmaybe.checker import score_artifact

        return score_artifact(scenario, text)

    carried_stages(record.hops, collect, record.topology.name)  # which stage texts the record will need
    wanted = list(dict.fromkeys([*(h.text for h in record.hops), record.artifact.text, *texts]))
    scored = await instrument.score_many([(scenario, t) for t in wanted])
    table = dict(zip(wanted, scored, strict=True))
    new = rescore_record(record, scenario, scorer=lambda _sc, text: table[text], checker=instrument.name)
    # Only this record's texts: a sweep scores many records at once with one instrument.
    problems = [s.unsure[k] for s in scored for k in ("judge", "judges_missing") if k in s.unsure]
    if problems:
        extra = [EpisodeError(where="checker", kind="judge_failed", message=m) for m in dict.fromkeys(problems)]
        new = new.model_copy(update={"errors": [*new.errors, *extra]})
    return new
