"""A small sweep on `sim`: run folder, resume, rerun guards, watch, export and rescore."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from mustmaybe.store import read_manifest, record_dict
from mustmaybe.sweep import plan_sweep

from .conftest import TASKS, db_rows, run_cli, run_json, write_sweep

CONTRACT_KEYS = {"schema", "key", "task", "task_hash", "condition", "topology", "seed", "models", "simulated",
                 "reviewer_identified", "hops", "artifact", "first_break_hop", "executor", "visibility", "isolation",
                 "usage", "errors", "checker_version"}


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    from mustmaybe import cli

    base = tmp_path_factory.mktemp("simrun")
    f = write_sweep(base / "s.toml", name="small", conditions=["P0", "P4", "S3"], seeds=[1, 2])
    out = base / "run"
    cli._EXTRA_COMMANDS.clear()
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli.main(["sweep", str(f), "--out", str(out), "--json"])
    assert code == 0
    return f, out, json.loads(buf.getvalue())


def test_sweep_stores_every_planned_episode(sim_run: tuple[Path, Path, dict[str, object]]) -> None:
    f, out, summary = sim_run
    plan = plan_sweep(f)
    n = len(TASKS) * 3 * 2
    assert summary["status"] == "finished" and summary["episodes"] == n and summary["done"] == n
    assert summary["simulated"] is True
    keys = {k for (k,) in db_rows(out, "SELECT key FROM episodes")}
    assert keys == {e.key for e in plan.episodes}
    # every episode has its messages, one per hop
    for key, record in db_rows(out, "SELECT key, record FROM episodes"):
        hops = len(json.loads(record)["hops"])
        assert db_rows(out, "SELECT COUNT(*) FROM messages WHERE key = ?", (key,))[0][0] == hops
    rows = {c["condition"]: c for c in summary["conditions"]}  # type: ignore[attr-defined]
    assert set(rows) == {"P0", "P4", "S3"} and all(r["n"] == len(TASKS) * 2 for r in rows.values())
    assert summary["calls_by_endpoint"]["sim"]["calls"] == len(TASKS) * 2 * (2 + 3 + 5)  # type: ignore[index]


def test_manifest_has_the_resolved_config(sim_run: tuple[Path, Path, dict[str, object]]) -> None:
    f, out, _ = sim_run
    m = read_manifest(out)
    assert m["kind"] == "sweep" and m["status"] == "finished" and m["simulated"] is True
    assert m["sweep"]["digest"] == plan_sweep(f).digest and m["sweep"]["episodes"] == 12
    assert set(m["tasks"]) == {"vendor-summary-q3", "board-minutes-draft"}
    assert m["checker_version"] and m["versions"]["autogen-agentchat"] == "0.7.5"
    assert "commit" in m["git"] and m["started_at"] and m["ended_at"]
    assert m["sessions"][0]["status"] == "finished" and m["resume_policy"]
    assert (out / "store.sqlite").exists() and (out / "sweep.toml").exists()


def test_resume_runs_nothing_twice(sim_run: tuple[Path, Path, dict[str, object]],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    f, out, _ = sim_run
    code, body = run_json(capsys, "sweep", str(f), "--out", str(out), "--resume", "--json")
    assert code == 0 and body["ran"] == 0 and body["already_done"] == 12 and body["done"] == 12
    assert db_rows(out, "SELECT COUNT(*) FROM episodes")[0][0] == 12
    assert len(read_manifest(out)["sessions"]) == 2


def test_run_folder_guards(sim_run: tuple[Path, Path, dict[str, object]], tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    f, out, _ = sim_run
    code, _, err = run_cli(capsys, "sweep", str(f), "--out", str(out))
    assert code == 2 and "already holds a run" in err
    other = write_sweep(tmp_path / "other.toml", name="small", conditions=["P0", "P4", "S3"], seeds=[1, 2, 3])
    code, _, err = run_cli(capsys, "sweep", str(other), "--out", str(out), "--resume")
    assert code == 2 and "is a different sweep" in " ".join(err.split())
    code, _, err = run_cli(capsys, "sweep", str(f), "--resume")
    assert code == 2 and "--resume needs --out" in err
    code, _, err = run_cli(capsys, "sweep", str(f), "--out", str(tmp_path / "nothing-here"), "--resume")
    assert code == 2 and "nothing to resume" in err


def test_watch_once(sim_run: tuple[Path, Path, dict[str, object]], capsys: pytest.CaptureFixture[str]) -> None:
    _, out, summary = sim_run
    code, body = run_json(capsys, "watch", str(out), "--once", "--json")
    assert code == 0 and body["done"] == 12 and body["status"] == "finished"
    assert {c["condition"]: c["P"] for c in body["conditions"]} == {
        c["condition"]: c["P"] for c in summary["conditions"]}  # type: ignore[attr-defined]
    code, text, _ = run_cli(capsys, "watch", str(out), "--once")
    assert code == 0 and "SIMULATED" in text and "P4" in text


def test_watch_on_a_finished_run_shows_its_real_duration(sim_run: tuple[Path, Path, dict[str, object]],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import time
    from datetime import datetime

    from mustmaybe.store import read_manifest

    _, out, _ = sim_run
    _, first = run_json(capsys, "watch", str(out), "--once", "--json")
    time.sleep(1.2)
    _, later = run_json(capsys, "watch", str(out), "--once", "--json")
    assert later["elapsed_s"] == pytest.approx(first["elapsed_s"], abs=0.05)  # no growing clock
    session = read_manifest(out)["sessions"][-1]  # the module's run may have been resumed
    took = (datetime.fromisoformat(session["ended_at"]) - datetime.fromisoformat(session["started_at"])).total_seconds()
    assert later["elapsed_s"] == pytest.approx(took, abs=0.05)


def test_watch_on_a_single_run_folder_counts_its_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    code, _ = run_json(capsys, "run", "vendor-summary-q3", "--compare", "P0,P4", "--model", "sim", "--json",
                       "--runs-dir", str(runs))
    assert code == 0
    [folder] = list(runs.iterdir())
    code, body = run_json(capsys, "watch", str(folder), "--once", "--json")
    assert code == 0 and (body["episodes"], body["done"]) == (2, 2)
    code, text, _ = run_cli(capsys, "watch", str(folder), "--once")
    assert code == 0 and "2/2 episodes" in " ".join(text.split()), text


def test_export_formats(sim_run: tuple[Path, Path, dict[str, object]], tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = sim_run
    code, _, _ = run_cli(capsys, "export", str(out), "--format", "jsonl", "--out", str(tmp_path / "e.jsonl"))
    assert code == 0
    lines = (tmp_path / "e.jsonl").read_text().splitlines()
    assert len(lines) == 12 and all(CONTRACT_KEYS <= set(json.loads(line)) for line in lines)
    hops = sum(len(json.loads(line)["hops"]) for line in lines)
    for fmt in ("csv", "parquet"):
        code, _, err = run_cli(capsys, "export", str(out), "--format", fmt, "--out", str(tmp_path / fmt))
        assert code == 0, err
        read = pl.read_csv if fmt == "csv" else pl.read_parquet
        eps = read(tmp_path / fmt / f"episodes.{fmt}")
        msgs = read(tmp_path / fmt / f"messages.{fmt}")
        assert eps.height == 12 and msgs.height == hops
        assert {"task", "condition", "topology", "seed", "state", "forbidden", "errors", "simulated"} <= set(
            eps.columns)
        assert {"key", "idx", "role", "sender", "text", "state", "retention_score"} <= set(msgs.columns)
    code, _, _ = run_cli(capsys, "export", str(out), "--format", "csv", "--out", str(tmp_path / "r.csv"))
    assert code == 0 and (tmp_path / "r_episodes.csv").exists() and (tmp_path / "r_messages.csv").exists()


def test_rescore_restores_tampered_scores(sim_run: tuple[Path, Path, dict[str, object]],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    _, out, _ = sim_run
    before = {k: (s, r) for k, s, r in db_rows(out, "SELECT key, state, record FROM episodes")}
    con = sqlite3.connect(out / "store.sqlite")
    key = next(iter(before))
    flipped = "undetermined" if before[key][0] != "undetermined" else "preserved"
    rec = record_dict(before[key][1])  # the full record (the store keeps the artifact's score as a reference)
    rec["artifact"]["score"]["state"] = flipped  # written back in full, as a store written before references
    rec["checker_version"] = "0+old"
    con.execute("UPDATE episodes SET state = ?, record = ?, checker_version = '0+old' WHERE key = ?",
                (flipped, json.dumps(rec), key))
    con.execute("UPDATE messages SET state = 'undetermined' WHERE key = ?", (key,))
    con.commit()
    con.close()
    code, body = run_json(capsys, "rescore", str(out), "--json")
    assert code == 0 and body["episodes"] == 12 and body["state_changed"] >= 1
    assert "0+old" in body["previous_checker_versions"]
    after = {k: (s, r) for k, s, r in db_rows(out, "SELECT key, state, record FROM episodes")}
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert json.loads(after[key][1])["checker_version"] == body["checker_version"]
    assert read_manifest(out)["rescores"][-1]["checker_version"] == body["checker_version"]
    states = db_rows(out, "SELECT m.state, json_extract(e.record, '$.hops[' || m.idx || '].score.state') "
                          "FROM messages m JOIN episodes e ON e.key = m.key")
    assert all(a == b for a, b in states)


def test_workers_store_the_same_episodes(sim_run: tuple[Path, Path, dict[str, object]], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    f, out, summary = sim_run
    g = tmp_path / "w.toml"
    g.write_text(f.read_text().replace('combine = "product"', 'combine = "product"\nworkers = 2'))
    assert plan_sweep(g).digest == plan_sweep(f).digest  # execution settings are not the sweep's identity
    code, body = run_json(capsys, "sweep", str(g), "--out", str(tmp_path / "run"), "--json")
    assert code == 0 and body["done"] == body["ran"] == 12 and body["status"] == "finished"
    one = {k: (s, fb) for k, s, fb in db_rows(out, "SELECT key, state, forbidden FROM episodes")}
    two = {k: (s, fb) for k, s, fb in db_rows(tmp_path / "run", "SELECT key, state, forbidden FROM episodes")}
    assert one == two
    assert {c["condition"]: c["n"] for c in body["conditions"]} == {
        c["condition"]: c["n"] for c in summary["conditions"]}  # type: ignore[attr-defined]


def test_an_episode_that_raises_is_noted_and_run_again_on_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import mustmaybe.sweep._runner as runner_mod

    real = runner_mod.run_episode

    async def flaky(team, spec):  # type: ignore[no-untyped-def]
        if spec.condition.id == "P4":
            raise RuntimeError("harness bug")
        return await real(team, spec)

    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"])
    run = tmp_path / "run"
    monkeypatch.setattr(runner_mod, "run_episode", flaky)
    code, body = run_json(capsys, "sweep", str(f), "--out", str(run), "--json")
    assert code == 1 and body["status"] == "incomplete"
    assert body["failed"] == len(TASKS) and body["done"] == len(TASKS)
    assert body["failure_kinds"] == {"RuntimeError": len(TASKS)}
    assert read_manifest(run)["status"] == "incomplete"
    assert len(db_rows(run, "SELECT key FROM failures")) == len(TASKS)
    monkeypatch.setattr(runner_mod, "run_episode", real)
    code, body = run_json(capsys, "sweep", str(f), "--out", str(run), "--resume", "--json")
    assert code == 0 and body["status"] == "finished" and body["ran"] == len(TASKS) and body["failed"] == 0
    assert db_rows(run, "SELECT COUNT(*) FROM failures")[0][0] == 0
