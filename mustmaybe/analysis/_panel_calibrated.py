"""`report --panel PANEL_DIR`: the condition matrix's P and D corrected by a blind judge panel on the run itself.

`--calibration` measures the checker on labeled sets and assumes its error transfers to the run; a panel
(`mustmaybe judge` on this run) measures it on a sample of the run's own artifacts instead: the panel's
majority state is the gold label, the run's recorded state the checker's, and the same matrix-inversion
estimator as `--calibration` (`corrected_columns`) turns that confusion into corrected rates.

`read_panel` reads PANEL_DIR once (its judgments, blind, carry no condition and no checker label);
`panel_confusion` joins them to a report panel's episodes by key, so the checker's side is always the
state the report's own rates count, even after a `rescore`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from mustmaybe.records import Judgment, State

from ._calibrated import confusion_table, rate_columns
from ._correction import STATES
from ._model import Paragraph, ReportTable

PANEL_COLUMNS: tuple[str, ...] = rate_columns("panel")
PANEL_SOURCE = "the panel's judged sample"
ESTIMATOR = (
    "the same matrix-inversion estimator as --calibration, with the panel's majority as the gold state: "
    "A[pred][gold] = P(checker says pred | panel majority says gold) on the judged sample, π = A⁻¹q for each "
    "row's observed shares q, projected onto the simplex when sampling noise puts it outside"
)
ASSUMPTION = (
    "The panel's majority stands in for the true state: the correction moves the checker's rates to what the "
    "panel would have said, so it inherits the panel's own errors (a lenient panel corrects towards "
    "preserved). The confusion is pooled over the judged sample; a row whose artifacts the checker reads "
    "better or worse than the sample's average is off by that difference."
)


class PanelJudgments(BaseModel):
    """What `report --panel` needs from a PANEL_DIR: every parsed state per judged episode."""

    model_config = ConfigDict(frozen=True)

    directory: str
    judges: tuple[str, ...]
    votes: dict[str, tuple[State, ...]]  # episode key → the states of the judges that parsed (maybe none)
    judgments: int
    unparsed: int
    runs: tuple[str, ...] = ()  # the run folders it was drawn from (panel.json), when recorded
    records: tuple[Judgment, ...] = ()  # every judgment as read (the judge tables, Tables 16-17, need the fields)

    @property
    def simulated_judges(self) -> tuple[str, ...]:
        """The judges on the sim backend: their rates are inputs, so any figure they make is SIMULATED."""
        return tuple(j for j in self.judges if j == "sim" or j.startswith("sim:"))


class PanelConfusion(BaseModel):
    """The checker against the panel's majority on the judged episodes of one report panel."""

    model_config = ConfigDict(frozen=True)

    confusion: dict[str, dict[str, int]]  # confusion[majority][checker]
    n: int  # judged episodes with a majority
    ties: int  # of those, how many majorities were tied (the checker's state stood)
    no_vote: int  # judged episodes no judge gave a parsed answer for (in no cell)


def read_panel(directory: str | Path) -> PanelJudgments:
    """Read PANEL_DIR/judgments.jsonl (and panel.json when present).

    Raises:
        ValueError: a one-line message naming the folder or the file and line that is wrong.
    """
    d = Path(directory)
    path = d / "judgments.jsonl"
    if not d.is_dir():
        raise ValueError(f"--panel {d}: no such folder (give the --out folder of `mustmaybe judge`)")
    if not path.is_file():
        raise ValueError(f"--panel {d}: not a judge panel folder (no judgments.jsonl; give the --out folder of "
                         "`mustmaybe judge`)")
    judgments: list[Judgment] = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            judgments.append(Judgment.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            what = exc.msg if isinstance(exc, json.JSONDecodeError) else _first_error(exc)
            raise ValueError(f"--panel {path}:{i}: not a judgment ({what})") from None
    if not judgments:
        raise ValueError(f"--panel {path}: holds no judgment")
    votes: dict[str, list[State]] = {}
    for j in judgments:
        states = votes.setdefault(j.episode, [])
        if j.parse_ok and j.state is not None:
            states.append(j.state)
    return PanelJudgments(directory=str(d), judges=tuple(dict.fromkeys(j.judge for j in judgments)),
                          votes={k: tuple(v) for k, v in votes.items()}, judgments=len(judgments),
                          unparsed=sum(not j.parse_ok for j in judgments), runs=_runs(d), records=tuple(judgments))


def _first_error(exc: ValidationError) -> str:
    e = exc.errors()[0]
    return f"{'.'.join(str(p) for p in e['loc']) or 'line'}: {e['msg']}"


def _runs(d: Path) -> tuple[str, ...]:
    try:
        drawn = json.loads((d / "panel.json").read_text(encoding="utf-8"))
        return tuple(str(r["run"]) for r in drawn.get("runs", ()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ()  # a panel written before panel.json existed: nothing to say about its runs


def majority_state(states: Sequence[str], checker: str) -> tuple[str, bool]:
    """The most common state; on a tie for the most, the checker's (as the judge tables and `panel:` do).

    Second: whether the panel decided (False on a tie). A tie counts as agreement with the checker, which
    is why the report counts ties beside the matrix.
    """
    counts = Counter(states).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return checker, False
    return counts[0][0], True


def panel_confusion(panel: PanelJudgments, checker: Mapping[str, str]) -> PanelConfusion:
    """confusion[majority][checker] over the judged episodes found in `checker` (episode key → its state)."""
    conf = {g: dict.fromkeys(STATES, 0) for g in STATES}
    n = ties = no_vote = 0
    for key, states in panel.votes.items():
        pred = checker.get(key)
        if pred is None:
            continue
        if not states:
            no_vote += 1
            continue
        gold, decided = majority_state(states, pred)
        conf[gold][pred] += 1
        n += 1
        ties += not decided
    return PanelConfusion(confusion=conf, n=n, ties=ties, no_vote=no_vote)


def simulated_label(panel: PanelJudgments, sim_episodes: bool) -> str:
    """' — SIMULATED …' for a title when the episodes or the judges are simulated; '' otherwise."""
    if sim_episodes and panel.simulated_judges:
        return " — SIMULATED (sim episodes, sim judges)"
    if sim_episodes:
        return " — SIMULATED (sim episodes)"
    return " — SIMULATED judges" if panel.simulated_judges else ""


def panel_blocks(panel: PanelJudgments, conf: PanelConfusion, instrument: str, label: str,
                 rates: ReportTable, notes: Sequence[str]) -> list[Paragraph | ReportTable]:
    """The SIMULATED warning where it applies, the method, then the rates with the confusion they invert beside
    them (as the --calibration section lays them out)."""
    blocks: list[Paragraph | ReportTable] = []
    if label:
        blocks.append(Paragraph(f"SIMULATED{label.split('SIMULATED', 1)[1]}: P_panel and D_panel here come from "
                                "simulated material whose rates are configured inputs; they check the harness, "
                                "not the checker's accuracy.", "warning"))
    blocks.append(Paragraph(
        f"Panel folder {panel.directory}: {len(panel.judges)} judge(s) ({', '.join(panel.judges)}); {conf.n} judged "
        f"episode(s) of this panel have a majority state ({conf.ties} of them tied, where the checker's state "
        f"stood; {conf.no_vote} with no parsed answer are left out). P_panel and D_panel use {ESTIMATOR}. Their "
        "95% intervals redraw both samples in each bootstrap resample: the run's episodes (task clusters, like "
        "every interval here) and each majority row of the confusion matrix (multinomial with that row's n), "
        "so they carry the judged sample's sampling error as well as the run's. The confusion matrix it inverts "
        "is beside the table."))
    blocks.append(Paragraph(ASSUMPTION, "note"))
    blocks += [Paragraph(n, "warning") for n in notes if n.startswith("No corrected")]
    blocks.append(rates)
    blocks.append(confusion_table(
        "panel_confusion", f"{instrument} against the panel's majority on the judged sample (rows: the panel's "
        f"majority state; columns: the checker's state; % of the row){label}", conf.confusion, "panel",
        f"{conf.n} judged artifacts"))
    return blocks
