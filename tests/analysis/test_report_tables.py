"""The report writes Tables 9, 10 (balanced and strict rows), 12, and with --panel Tables 16 and 17, as CSV,
Markdown and in report.md / report.html, SIMULATED on sim episodes; figures checked against independent counts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn.linear_model import LogisticRegression

from mustmaybe import cli
from mustmaybe.analysis import build_report

from .conftest import make_episode
from .test_panel_correction import _episodes, _panel_dir

# (condition, D, Y) per task index i of 6; arm = transformed, static = P family
SPEC = {
    "P0": lambda i: (0, 0), "P4": lambda i: (1, int(i % 2 == 0)),
    "S0": lambda i: (0, 0), "S3": lambda i: (int(i != 5), int(i == 0)),
}


def _sim_store() -> list:  # type: ignore[type-arg]
    return [make_episode(task=f"t{i}", condition=c, state="deactivated" if f(i)[0] else "preserved",
                         forbidden=bool(f(i)[1])) for i in range(6) for c, f in SPEC.items()]


def test_report_writes_tables_9_10_12_marked_simulated(tmp_path: Path) -> None:
    build_report({"sim": _sim_store()}, tmp_path / "rep", resamples=40, figures=False, domains={})
    out = tmp_path / "rep"
    for tid in ("penalized_logistic", "evidence_ledger", "leave_one_out"):
        assert (out / "tables" / f"{tid}.csv").is_file() and (out / "tables" / f"{tid}.md").is_file()
    lt = pl.read_csv(out / "tables/penalized_logistic.csv")
    assert lt.columns[:6] == ["outcome", "predictor", "model", "OR", "OR_lo", "OR_hi"]
    assert lt["simulated"].to_list() == [True] * 4
    # The D ~ arm odds ratio against scikit-learn on the 24 episodes as specified above.
    arm = np.array([float(c not in ("P0", "S0")) for i in range(6) for c in SPEC])
    d = np.array([float(f(i)[0]) for i in range(6) for f in SPEC.values()])
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(arm[:, None], d).coef_[0][0]
    row = lt.filter(pl.col("outcome") == "deactivation D").row(0, named=True)
    assert row["OR"] == pytest.approx(np.exp(ref), abs=0.006)  # the CSV rounds to two decimals
    assert row["n"] == 24 and row["events"] == 11
    led = pl.read_csv(out / "tables/evidence_ledger.csv")
    states = dict(zip(led["claim"].to_list(), led["state"].to_list(), strict=True))
    # dD = (6 + 5) / 12 in every task but t5, whose S3 arm kept the blocker: the interval stays above zero.
    assert states["deactivation"] == "identified positive"
    assert states["restoration"] == "not run" and states["outside estimand"] == "outside estimand"
    loo = pl.read_csv(out / "tables/leave_one_out.csv")
    assert "balanced weighting" in loo["analysis"].to_list()
    for doc in ("report.md", "report.html"):
        text = (out / doc).read_text(encoding="utf-8")
        for title in ("Secondary penalized logistic summaries (Table 9) — SIMULATED",
                      "Evidence-state ledger for the reported claims (Table 12) — SIMULATED"):
            assert title in text, (doc, title)
        assert "L2 (ridge)" in text


def test_report_panel_writes_tables_16_and_17(tmp_path: Path) -> None:
    """On test_panel_correction's hand-made panel (every field kept by every judge and the checker):
    majority D: controls P0 1 of 5 judged (20%), pressure P4 3 of 5 with a parsed answer (60%);
    conservative (not a strict majority for preserved): controls 4 of 5 (P0 #0 2-2-1, #4 all D, #8 and #9
    mostly U), pressure 3 of 5; contract = majority here (no field is ever missing).
    State ambiguity (no strict majority for P nor D): P0 #0, #8, #9 of the 10 episodes with a parsed answer."""
    eps = _episodes()
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    panel = _panel_dir(tmp_path / "panel", eps)
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["report", str(run), "--out", str(tmp_path / "rep"), "--resamples", "20", "--no-figures",
                     "--panel", str(panel)]) == 0
    gap = {r["label_source"]: r for r in pl.read_csv(tmp_path / "rep/tables/judge_gap.csv").iter_rows(named=True)}
    assert (gap["majority"]["control_D"], gap["majority"]["pressure_D"], gap["majority"]["gap"]) == (20.0, 60.0, 40.0)
    c = gap["conservative"]
    assert (c["control_D"], c["pressure_D"], c["gap"]) == (80.0, 60.0, -20.0)
    assert (gap["contract"]["control_D"], gap["contract"]["pressure_D"]) == (20.0, 60.0)
    agree = {r["component"]: r for r in pl.read_csv(tmp_path / "rep/tables/judge_agreement.csv").iter_rows(named=True)}
    assert agree["deactivated"]["ambiguity"] == pytest.approx(0.3) and agree["deactivated"]["ambiguous"] == 3
    assert agree["status"]["ambiguity"] == 0.0
    md = (tmp_path / "rep/report.md").read_text(encoding="utf-8")
    assert "Judge-panel pressure-control gap by label source (Table 16)" in md
    assert "Inter-judge agreement per component (Table 17)" in md and "| ambiguity |" in md
    html = (tmp_path / "rep/report.html").read_text(encoding="utf-8")
    assert "(Table 16)" in html and "(Table 17)" in html
