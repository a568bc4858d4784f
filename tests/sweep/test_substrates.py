"""`substrates = [...]` in a sweep file: planned, keyed, stored and reported (Table 21) on both substrates."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from mustmaybe.analysis import build_report
from mustmaybe.store import load_run_episodes, read_manifest
from mustmaybe.sweep import plan_sweep

from .conftest import run_cli, run_json, write_sweep

TABLE21 = ["P0", "P4", "S3", "S4", "C4"]
TASKS = ["library:vendor-summary-q3", "library:board-minutes-draft", "library:external_sharing/*"]


def test_substrates_cross_conditions_and_leave_autogen_sweeps_as_they_were(tmp_path: Path) -> None:
    one = plan_sweep(write_sweep(tmp_path / "a.toml", name="x", conditions=TABLE21))
    both = plan_sweep(write_sweep(tmp_path / "b.toml", name="x", conditions=TABLE21,
                                  extra='substrates = ["autogen", "langgraph"]'))
    assert len(both.episodes) == 2 * len(one.episodes)
    autogen = [e for e in both.episodes if e.spec.substrate == "autogen"]
    assert {e.key for e in autogen} == {e.key for e in one.episodes}  # the AutoGen keys do not move
    assert "substrates" not in one.resolved() and both.resolved()["substrates"] == ["autogen", "langgraph"]
    assert both.calls_by_endpoint == {k: 2 * v for k, v in one.calls_by_endpoint.items()}


@pytest.mark.parametrize(("value", "problem"), [
    ('["autogen", "crewai"]', "substrates[1]: Input should be 'autogen' or 'langgraph'"),
    ('["langgraph", "langgraph"]', "substrates[1]: langgraph is listed twice"),
    ("[]", "substrates: List should have at least 1 item"),
])
def test_bad_substrates_name_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str,
                                     problem: str) -> None:
    f = write_sweep(tmp_path / "s.toml", extra=f"substrates = {value}")
    code, _, err = run_cli(capsys, "sweep", str(f), "--dry-run")
    assert code == 2 and problem in err and "Traceback" not in err


def test_both_substrates_on_sim_go_through_the_same_store_and_report(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    f = write_sweep(tmp_path / "t21.toml", name="t21", tasks=TASKS, conditions=TABLE21, seeds=[1, 2],
                    extra='substrates = ["autogen", "langgraph"]')
    out = tmp_path / "run"
    code, summary = run_json(capsys, "sweep", str(f), "--out", str(out), "--json")
    assert code == 0 and summary["failed"] == 0
    records = list(load_run_episodes(out))
    by = {s: [r for r in records if r.substrate == s] for s in ("autogen", "langgraph")}
    assert len(by["autogen"]) == len(by["langgraph"]) == summary["episodes"] // 2
    assert read_manifest(out)["sweep"]["substrates"] == ["autogen", "langgraph"]
    stored = (out / "store.sqlite").read_bytes()
    assert b'"substrate":"langgraph"' in stored
    # Each AutoGen record is what a sweep without `substrates` writes: same key, no substrate key.
    assert all("substrate" not in r.to_json_dict() for r in by["autogen"])

    report = tmp_path / "report"
    build_report({"t21": records}, report, resamples=100, figures=False)
    with (report / "tables" / "transport.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["condition"] for r in rows} == set(TABLE21) and {r["substrate"] for r in rows} == {"autogen",
                                                                                                 "langgraph"}
    for row in rows:
        # The rates straight from the stored records of that substrate (every cell is matched here).
        mine = [r for r in by[row["substrate"]] if r.condition == row["condition"]]
        assert int(row["n"]) == len(mine) and row["unmatched"] == "0"
        assert row["simulated"] == "true"
        for col, hit in (("P", lambda r: r.artifact.score.state == "preserved"),
                         ("D", lambda r: r.artifact.score.state == "deactivated"),
                         ("unsafe", lambda r: bool(r.executor.forbidden))):
            assert float(row[col]) == pytest.approx(100.0 * sum(map(hit, mine)) / len(mine))
        if row["substrate"] == "langgraph":
            # The sim answers from what its model receives, and both substrates send the same: zero differences.
            assert (float(row["dP"]), float(row["dD"]), float(row["dY"])) == (0.0, 0.0, 0.0)
    with (report / "tables" / "condition_matrix.csv").open() as fh:
        matrix = {r["condition"]: int(r["n"]) for r in csv.DictReader(fh)}
    assert matrix == {c: sum(r.condition == c for r in by["autogen"]) for c in TABLE21}  # AutoGen only
    md = (report / "report.md").read_text()
    assert "Workflow-substrate transport (Table 21) — SIMULATED" in md
    assert json.loads((out / "manifest.json").read_text())["sweep"]["episodes"] == summary["episodes"]
