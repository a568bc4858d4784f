"""Model judges as instruments: `--checker judge:…`, `panel:…;…`, `routed:…` (contracts: CHECKER_AND_JUDGES.md).

The checker's deterministic core (mustmaybe.checker) imports no model code; this package is where the
rubric and view it defines meet the model clients of mustmaybe.agents. `resolve_instrument` turns a
`--checker` value into an `Instrument` whose async `score` every command uses.
"""

from ._apply import score_record
from ._cli import JUDGMENTS_FILE, instrument_for, judge_endpoints, run_scoring, score_all
from ._instrument import Instrument, InstrumentStats, majority, resolve_instrument
from ._judge import JudgeCallError, JudgeReply, ModelJudge, full_view, parse_answer
from ._panel_run import audit_view, panel_episodes, run_panel, stratified_sample, write_judgments
from ._presets import JUDGE_PRESETS, expand_judges
from ._spec import InstrumentSpec, parse_instrument

__all__ = [
    "JUDGE_PRESETS",
    "JUDGMENTS_FILE",
    "Instrument",
    "InstrumentSpec",
    "InstrumentStats",
    "JudgeCallError",
    "JudgeReply",
    "ModelJudge",
    "audit_view",
    "expand_judges",
    "full_view",
    "instrument_for",
    "judge_endpoints",
    "majority",
    "panel_episodes",
    "parse_answer",
    "parse_instrument",
    "resolve_instrument",
    "run_panel",
    "run_scoring",
    "score_all",
    "score_record",
    "stratified_sample",
    "write_judgments",
]
