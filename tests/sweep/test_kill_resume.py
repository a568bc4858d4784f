"""SIGKILL a sweep mid-run, then `--resume` it: every finished episode is kept, none doubled, the
rest run, and calls already paid for come from the cache."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe.store import read_manifest
from mustmaybe.sweep import plan_sweep

from .conftest import db_rows, endpoint, write_sweep

TASKS = ["library:vendor-summary-q3", "library:board-minutes-draft", "library:billing-migration-extract"]


def _stored(run: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{run / 'store.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _sweep(f: Path, run: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "mustmaybe.cli", "sweep", str(f), "--out", str(run), "--json",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # a sweep killed with SIGKILL mid-run, then resumed (about 14 s each)
@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_then_resume(tmp_path: Path, workers: int) -> None:
    fake = FakeOpenAI(latency_s=0.06)
    try:
        url = fake.base_url
        f = write_sweep(tmp_path / "s.toml", tasks=TASKS, conditions=["P0", "P4", "S3"], seeds=[1, 2, 3],
                        roles={r: [f"openai:ok@{url}"] for r in ("reviewer", "transformer", "executor")},
                        endpoints=[endpoint(fake, timeout_s=5.0)], extra=f"max_in_flight = 4\nworkers = {workers}")
        planned = {e.key for e in plan_sweep(f).episodes}
        run = tmp_path / "run"
        proc = _sweep(f, run)
        deadline = time.monotonic() + 60
        while _stored(run) < 8 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, f"the sweep ended before it could be killed: {proc.communicate()}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        time.sleep(1.0)  # worker processes notice their parent is gone within half a second
        settled = _stored(run)
        time.sleep(0.5)
        assert _stored(run) == settled, "an orphaned worker kept running"

        kept = {k: r for k, r in db_rows(run, "SELECT key, record FROM episodes")}
        assert 8 <= len(kept) < len(planned)
        assert read_manifest(run)["status"] == "running"  # it never got to say otherwise
        from mustmaybe.sweep._watch import run_status

        assert run_status(read_manifest(run)) == "stopped"  # but `watch` sees the process is gone
        for key, record in kept.items():  # no half episode: each has all its messages
            n = db_rows(run, "SELECT COUNT(*) FROM messages WHERE key = ?", (key,))[0][0]
            assert n == len(json.loads(record)["hops"]) > 0
        paid_before = fake.requests

        resume = _sweep(f, run, "--resume")
        out, err = resume.communicate(timeout=120)
        assert resume.returncode == 0, err
        summary = json.loads(out)
        assert summary["done"] == len(planned) and summary["already_done"] == len(kept)
        assert summary["ran"] == len(planned) - len(kept)
        rows = db_rows(run, "SELECT key, record FROM episodes")
        assert len(rows) == len({k for k, _ in rows}) == len(planned)
        assert {k for k, _ in rows} == planned
        assert {k: r for k, r in rows if k in kept} == kept  # finished episodes untouched
        m = read_manifest(run)
        assert m["status"] == "finished" and len(m["sessions"]) == 2 and m["sessions"][1]["resumed"]
        # Calls the killed run had paid for (finished or in flight) came from the cache: at most
        # the few answers that arrived in the instant before the kill were asked for twice.
        assert fake.duplicate_bodies() <= 4, (fake.duplicate_bodies(), paid_before, fake.requests)
    finally:
        fake.close()


def test_watch_follows_a_running_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .conftest import run_json

    fake = FakeOpenAI(latency_s=0.05)
    try:
        f = write_sweep(tmp_path / "s.toml", tasks=TASKS, conditions=["P0", "P4"], seeds=[1, 2],
                        roles={r: [f"openai:ok@{fake.base_url}"] for r in ("reviewer", "transformer", "executor")},
                        endpoints=[endpoint(fake, timeout_s=5.0, concurrency=2)], extra="max_in_flight = 2")
        run = tmp_path / "run"
        proc = _sweep(f, run)
        deadline = time.monotonic() + 30
        while _stored(run) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        code, snap = run_json(capsys, "watch", str(run), "--once", "--json")
        assert code == 0 and snap["status"] == "running" and 1 <= snap["done"] < snap["episodes"] == 12
        code, final = run_json(capsys, "watch", str(run), "--json", "--interval", "0.1")  # returns when it ends
        assert code == 0 and final["status"] == "finished" and final["done"] == 12
        assert proc.wait(timeout=30) == 0
    finally:
        fake.close()
