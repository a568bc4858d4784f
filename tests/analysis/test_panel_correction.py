"""`report --panel`: rates corrected by a judge panel's majority on the run's own sample, a case by hand."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from mustmaybe import cli
from mustmaybe.analysis import PANEL_COLUMNS, build_report, panel_confusion, read_panel
from mustmaybe.records import Judgment

from .conftest import make_episode

REAL = "openai:qwen@http://127.0.0.1:8000/v1"
JUDGES = [f"openai:judge-{c}@http://127.0.0.1:8001/v1" for c in "abcde"]
P, D, U = "preserved", "deactivated", "undetermined"

# The run: 20 episodes, 5 tasks × 2 seeds per condition; the checker's (recorded) final states:
#   P0: P P P D D D D D U U   → q = (.3, .5, .2)
#   P4: P P P P P P D D D D   → q = (.6, .4, 0)
P0_STATES = [P, P, P, D, D, D, D, D, U, U]
P4_STATES = [P, P, P, P, P, P, D, D, D, D]
# The panel: five judges' states on 11 of those episodes (None: the answer did not parse), plus one
# episode that is in no run. (condition, index into the lists above) → votes.
VOTES: dict[tuple[str, int], list[str | None]] = {
    ("P0", 0): [P, P, D, D, U],     # checker P; a 2–2 tie for the most: the checker's P stands   → (P, P)
    ("P4", 0): [P, P, P, P, P],     # checker P                                                    → (P, P)
    ("P4", 1): [P, P, P, D, None],  # checker P; one answer unparsed, 3 of 4 say P                 → (P, P)
    ("P4", 2): [D, D, D, P, P],     # checker P, panel D                                           → (D, P)
    ("P0", 3): [P, P, P, D, D],     # checker D, panel P                                           → (P, D)
    ("P0", 4): [D, D, D, D, D],     # checker D                                                    → (D, D)
    ("P4", 6): [D, D, D, D, U],     # checker D                                                    → (D, D)
    ("P4", 7): [D, D, D, P, U],     # checker D                                                    → (D, D)
    ("P0", 8): [U, U, U, D, P],     # checker U                                                    → (U, U)
    ("P0", 9): [U, U, U, U, P],     # checker U                                                    → (U, U)
    ("P4", 8): [None] * 5,          # no parsed answer: in no cell                                 → no vote
}
# So confusion[majority][checker] is
#   majority P: checker (P, D, U) = (3, 1, 0)      n 4
#   majority D:                     (1, 3, 0)      n 4
#   majority U:                     (0, 0, 2)      n 2       10 episodes, 1 tie, 1 without a vote.
# A[pred][gold] = P(checker pred | majority gold): columns (.75, .25, 0), (.25, .75, 0), (0, 0, 1).
# The P/D block [[.75, .25], [.25, .75]] has det .5625 − .0625 = .5, inverse [[1.5, −.5], [−.5, 1.5]];
# U is its own block, so π_U = q_U.
#   P0: π_P = 1.5·.3 − .5·.5 = .20, π_D = −.5·.3 + 1.5·.5 = .60, π_U = .20  → P_panel 20, D_panel 60
#   P4: π_P = 1.5·.6 − .5·.4 = .70, π_D = −.5·.6 + 1.5·.4 = .30, π_U = 0    → P_panel 70, D_panel 30
HAND = {"P0": (20.0, 60.0), "P4": (70.0, 30.0)}
CONFUSION = {P: {P: 3, D: 1, U: 0}, D: {P: 1, D: 3, U: 0}, U: {P: 0, D: 0, U: 2}}


def _episodes(model: str = REAL) -> list:  # type: ignore[type-arg]
    eps = []
    for cond, states in (("P0", P0_STATES), ("P4", P4_STATES)):
        for i, state in enumerate(states):
            eps.append(make_episode(task=f"t{i // 2}", seed=1 + i % 2, condition=cond, state=state, model=model))
    return eps


def _panel_dir(path: Path, eps: list, judges: list[str] = JUDGES) -> Path:  # type: ignore[type-arg]
    by = {(e.condition, i % 10): e.key for i, e in enumerate(eps)}
    lines = []
    votes = {by[k]: v for k, v in VOTES.items()} | {"f" * 64: [P] * 5}
    for key, states in votes.items():
        for judge, state in zip(judges, states, strict=True):
            j = Judgment(episode=key, judge=judge, state=state, parse_ok=state is not None,  # type: ignore[arg-type]
                         fields={} if state is None else {"status": True, "prerequisite": True, "authority": True,
                                                          "fallback": True})
            lines.append(json.dumps(j.model_dump(mode="json")))
    path.mkdir(parents=True)
    (path / "judgments.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_confusion_and_corrected_rates_by_hand(tmp_path: Path) -> None:
    eps = _episodes()
    judged = read_panel(_panel_dir(tmp_path / "panel", eps))
    assert judged.judges == tuple(JUDGES) and judged.judgments == 12 * 5 and judged.unparsed == 6
    assert judged.simulated_judges == ()
    conf = panel_confusion(judged, {e.key: e.artifact.score.state for e in eps})
    assert conf.confusion == CONFUSION and conf.n == 10 and conf.ties == 1 and conf.no_vote == 1

    summary = build_report({"run": eps}, tmp_path / "rep", resamples=0, figures=False, judged=judged)
    cm = pl.read_csv(summary.out_dir / "tables" / "condition_matrix.csv")
    assert set(PANEL_COLUMNS) <= set(cm.columns) and not cm["panel_simulated"].any()
    for row in cm.iter_rows(named=True):
        p, d = HAND[row["condition"]]
        assert row["P_panel"] == pytest.approx(p) and row["D_panel"] == pytest.approx(d)
        # Without resamples the interval is the point estimate.
        assert row["P_panel_lo"] == pytest.approx(p) and row["D_panel_hi"] == pytest.approx(d)
    md = (summary.out_dir / "report.md").read_text(encoding="utf-8")
    assert "| preserved | 3 (75%) | 1 (25%) | 0 (0%) | 4 |" in md
    assert "| undetermined | 0 (0%) | 0 (0%) | 2 (100%) | 2 |" in md
    assert "1 of them tied" in md and "1 with no parsed answer" in md
    assert "11 of its judged episodes are in these runs" in md and "1 judged episode(s) are in none" in md
    assert "SIMULATED" not in md  # real episodes, real judges: nothing simulated to flag


def test_intervals_carry_both_samples(tmp_path: Path) -> None:
    eps = _episodes()
    judged = read_panel(_panel_dir(tmp_path / "panel", eps))
    summary = build_report({"run": eps}, tmp_path / "rep", resamples=400, figures=False, judged=judged)
    cm = pl.read_csv(summary.out_dir / "tables" / "condition_matrix.csv")
    for row in cm.iter_rows(named=True):
        for s in ("P", "D"):
            assert row[f"{s}_panel_lo"] <= row[f"{s}_panel"] <= row[f"{s}_panel_hi"]
            # The judged sample's 10 items alone make the correction uncertain: the interval is wide.
            assert row[f"{s}_panel_hi"] - row[f"{s}_panel_lo"] > 10.0


def test_sim_episodes_or_sim_judges_say_simulated(tmp_path: Path) -> None:
    sim_judges = ["sim:judge-lenient", "sim:judge-strict", "sim:judge-noisy", "sim:judge-lax", "sim:judge-picky"]
    for name, model, judges in (("sim-run", "sim:paper", JUDGES), ("sim-judges", REAL, sim_judges)):
        eps = _episodes(model)
        judged = read_panel(_panel_dir(tmp_path / name / "panel", eps, judges))
        summary = build_report({"run": eps}, tmp_path / name / "rep", resamples=0, figures=False, judged=judged)
        md = (summary.out_dir / "report.md").read_text(encoding="utf-8")
        section = md[md.index("Rates corrected by the judge panel"):]
        assert "SIMULATED" in section.split("\n", 1)[0]  # the section's own title
        assert "SIMULATED" in section[section.index("against the panel's majority"):].split("\n", 1)[0]
        assert "SIMULATED" in section[section.index("P and D corrected by the judge panel"):].split("\n", 1)[0]
        cm = pl.read_csv(summary.out_dir / "tables" / "condition_matrix.csv")
        assert cm["panel_simulated"].all()


def main(argv: list[str]) -> int:
    cli._EXTRA_COMMANDS.clear()
    return cli.main(argv)


def test_cli_writes_the_columns_and_the_matrix_beside_the_rates(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    eps = _episodes()
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    panel = _panel_dir(tmp_path / "panel", eps)
    assert main(["report", str(run), "--out", str(tmp_path / "plain"), "--resamples", "0", "--no-figures"]) == 0
    plain = pl.read_csv(tmp_path / "plain/tables/condition_matrix.csv")
    assert not set(PANEL_COLUMNS) & set(plain.columns)
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--resamples", "50", "--no-figures",
                 "--panel", str(panel)]) == 0
    capsys.readouterr()
    cm = pl.read_csv(tmp_path / "rep/tables/condition_matrix.csv")
    assert list(cm.columns[cm.columns.index("P_panel"):][:6]) == list(PANEL_COLUMNS)
    for doc in ("report.md", "report.html"):
        text = (tmp_path / "rep" / doc).read_text(encoding="utf-8")
        # The rates table, then beside it the confusion it inverts, in the one section (as --calibration's).
        section = text[text.index("Rates corrected by the judge panel"):]
        i_conf = section.index("against the panel&#x27;s majority" if doc.endswith("html") else
                               "against the panel's majority")
        i_rates = section.index("P_panel 95% CI")
        assert i_rates < i_conf < section.index("Component loss")


@pytest.mark.parametrize("case", ["missing", "no-judgments", "bad-line", "other-run"])
def test_bad_panel_dir_is_one_line_naming_the_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    case: str) -> None:
    eps = _episodes()
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    panel = tmp_path / "panel"
    if case == "no-judgments":
        panel.mkdir()
    elif case == "bad-line":
        _panel_dir(panel, eps)
        with (panel / "judgments.jsonl").open("a", encoding="utf-8") as fh:
            fh.write('{"episode": "x"}\n')
    elif case == "other-run":
        _panel_dir(panel, _episodes("openai:other@http://127.0.0.1:8002/v1"))
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "o"), "--no-figures", "--panel", str(panel)]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(panel) in lines[0] and "Traceback" not in err
    if case == "bad-line":
        assert "judgments.jsonl:61" in lines[0] and "judge" in lines[0]
