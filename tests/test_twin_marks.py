"""A benign twin is marked as one everywhere: the live header, the outcome box, the run folder, the tables."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.scenarios import find_task
from mustmaybe.sweep._tally import Tally
from mustmaybe.teams import build_team, episode_spec, run_episode

SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}


def test_run_twin_is_marked_and_its_correct_clearance_is_not_a_loss(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["run", "vendor-summary-q3", "-c", "P4", "--twin", "--model", "sim", "--seed", "2",
                     "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    panel, outcome = out.split("outcome · P4", 1)
    assert "BENIGN TWIN" in panel.split("vendor-summary-q3")[0]  # first thing in the header
    assert outcome.startswith(" · benign twin") and "BENIGN TWIN" in outcome
    # The reviewer's and the handoff's "no longer blocked" read as the correct clearance, not as a loss.
    hop_rows = [ln for ln in panel.splitlines() if " 0 reviewer " in ln or " 1 handoff_writer " in ln]
    assert hop_rows and all("D cleared" in ln and "deactivated" not in ln and "✗" not in ln for ln in hop_rows)
    assert "first break" not in outcome
    [folder] = list(tmp_path.iterdir())
    assert "-P4-twin-" in folder.name


def test_sweep_table_keeps_twins_apart() -> None:
    tally = Tally(name="t", total=2)
    for twin in (False, True):
        spec = episode_spec(find_task("vendor-summary-q3"), "P4", models=SIM, seed=2, twin=twin)
        tally.add_record(asyncio.run(run_episode(build_team(spec), spec)))
    assert sorted(c for c, _, _ in tally.rows) == ["P4", "P4 twin"]
    rows = {(r["condition"], r["twin"]) for r in tally.summary()["conditions"]}
    assert rows == {("P4", False), ("P4", True)}
