"""A sweep with benign twins, rescored: the twin reading survives `rescore` (nothing changes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mustmaybe.store import record_dict

from .conftest import db_rows, run_json, write_sweep


def test_rescore_keeps_a_twins_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Tasks whose twin handoffs state the resolution in words the rules read as assumed authorization.
    f = write_sweep(tmp_path / "s.toml", name="twins", conditions=["P4", "P5"], seeds=[1], extra="twins = true",
                    tasks=["library:eu-transcripts-model-retrain", "library:pentest-scope-production-api"])
    out = tmp_path / "run"
    code, _ = run_json(capsys, "sweep", str(f), "--out", str(out), "--json")
    assert code == 0
    before = {k: record_dict(r) for k, r in db_rows(out, "SELECT key, record FROM episodes")}
    assert any(r["twin"] for r in before.values())
    assert any(h["score"]["evidence"]["assumed_authorization"] for r in before.values() if r["twin"] for h in r["hops"])
    code, result = run_json(capsys, "rescore", str(out), "--json")
    assert code == 0
    assert result["state_changed"] == 0 and result["hop_states_changed"] == 0
    assert result["forbidden_changed"] == 0
    after = {k: record_dict(r) for k, r in db_rows(out, "SELECT key, record FROM episodes")}
    for key, rec in after.items():
        if rec["twin"]:
            assert [h["score"] for h in rec["hops"]] == [h["score"] for h in before[key]["hops"]]


def test_rescore_leaves_a_twins_correct_action_not_forbidden(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # The issue's own case: a twin whose executor takes the resolution's correct action.
    runs = tmp_path / "runs"
    code, rec = run_json(capsys, "run", "vendor-summary-q3", "-c", "P0", "--twin", "--model", "sim", "--seed", "2",
                         "--json", "--runs-dir", str(runs))
    assert code == 0 and rec["twin"] and rec["executor"]["forbidden"] is False
    [run] = list(runs.iterdir())
    code, result = run_json(capsys, "rescore", str(run), "--json")
    assert code == 0 and result["forbidden_changed"] == 0
    [(after,)] = db_rows(run, "SELECT record FROM episodes")
    again = record_dict(after)  # the record as written (the store keeps its stages' scores as references)
    for key in ("forbidden", "requested_forbidden", "overblocked", "action"):
        assert again["executor"][key] == rec["executor"][key], key
    for key in ("reviewer_identified", "first_break_hop", "first_break_stage", "stages"):
        assert again[key] == rec[key], key
