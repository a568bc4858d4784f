"""Ctrl-C and SIGTERM stop a run or a sweep at once, keep every finished episode, and a resume repeats none.

The commands run as real subprocesses against the local fake endpoint, with a model call stuck in
flight (`slow-60000` answers after 60 s; `held-*` answers when the test releases it).
"""

from __future__ import annotations

import json
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

from .conftest import endpoint, write_sweep


def _start(*argv: str) -> subprocess.Popen[str]:
    # As from an interactive terminal: the child starts with Ctrl-C at its default, even when this
    # test runs under a shell that ignores SIGINT for background jobs (the CLI honours an ignored SIGINT).
    return subprocess.Popen([sys.executable, "-m", "mustmaybe.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for(cond: object, timeout: float, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the command ended early ({proc.returncode}): {out[-1500:]} {err[-1500:]}")
        if cond():  # type: ignore[operator]
            return
        time.sleep(0.02)
    proc.kill()
    pytest.fail("timed out waiting for the command to reach the state under test")


def _stop(proc: subprocess.Popen[str], sig: int, *, twice: bool = False) -> tuple[float, str, str]:
    t0 = time.monotonic()
    proc.send_signal(sig)
    if twice:
        time.sleep(0.05)
        if proc.poll() is None:
            proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 20 s after {signal.Signals(sig).name}: {err[-2000:]}")
    return time.monotonic() - t0, out, err


@pytest.mark.parametrize("twice", [False, True], ids=["one-press", "two-presses"])
def test_ctrl_c_stops_a_run_stuck_on_a_slow_call(fake: FakeOpenAI, tmp_path: Path, twice: bool) -> None:
    proc = _start("run", "vendor-summary-q3", "-c", "P4", "--model", f"openai:slow-60000@{fake.base_url}",
                  "--runs-dir", str(tmp_path / "runs"))
    _wait_for(lambda: fake.requests >= 1, 60, proc)  # the reviewer's 60-second call is in flight
    time.sleep(0.2)
    elapsed, out, err = _stop(proc, signal.SIGINT, twice=twice)
    # A second press that lands while the interpreter is already shutting down meets the default handler:
    # death by SIGINT, which a shell reports as status 130 too. Either way: quiet.
    assert proc.returncode == 130 or (twice and proc.returncode == -signal.SIGINT), (proc.returncode, err)
    assert elapsed < 5, elapsed
    assert "Traceback" not in err and "Traceback" not in out, err
    assert "task_done" not in err and "Error" not in err, err
    if not twice:
        assert "stopping…" in err and "nothing was written" in err, err
    assert fake.requests == 1  # nothing was started after the stop


def _db(run: Path, sql: str) -> list[tuple[object, ...]]:
    try:
        con = sqlite3.connect(f"file:{run / 'store.sqlite'}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return []
    try:
        return list(con.execute(sql))
    except sqlite3.Error:
        return []
    finally:
        con.close()


def _sweep_file(tmp_path: Path, fake: FakeOpenAI, workers: int) -> Path:
    # Half the episodes' executors answer at once, half are held in flight until the test releases them.
    url = fake.base_url
    return write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"],
                       roles={"reviewer": ["sim"], "transformer": ["sim"],
                              "executor": [f"openai:ok@{url}", f"openai:held-ok@{url}"]},
                       endpoints=[endpoint(fake, concurrency=16, timeout_s=120.0, max_retries=0)],
                       extra=f"max_in_flight = 16\nworkers = {workers}")


@pytest.mark.parametrize(("sig", "workers", "code"), [
    (signal.SIGTERM, 1, 143), (signal.SIGTERM, 2, 143), (signal.SIGINT, 2, 130),
], ids=["sigterm-1-process", "sigterm-2-workers", "sigint-2-workers"])
def test_a_stopped_sweep_keeps_what_finished_and_resume_repeats_none(fake: FakeOpenAI, tmp_path: Path, sig: int,
                                                                     workers: int, code: int) -> None:
    f = _sweep_file(tmp_path, fake, workers)
    planned = {e.key for e in plan_sweep(f).episodes}
    held = {e.key for e in plan_sweep(f).episodes if "held-" in e.models["executor"]}
    assert len(planned) == 8 and len(held) == 4
    run = tmp_path / "run"
    proc = _start("sweep", str(f), "--out", str(run), "--json")
    # Every episode with an answering executor is stored; the four held ones wait on their executor call.
    _wait_for(lambda: len(_db(run, "SELECT key FROM episodes")) == 4 and fake.by_model["held-ok"] == 4, 90, proc)
    kept = dict(_db(run, "SELECT key, record FROM episodes"))
    elapsed, out, err = _stop(proc, sig)
    assert proc.returncode == code, err
    assert elapsed < 8, elapsed
    assert "Traceback" not in err and "task_done" not in err, err
    assert "stopping…" in err, err
    summary = json.loads(out)
    assert summary["status"] == "interrupted" and summary["done"] == 4
    assert read_manifest(run)["status"] == "interrupted"
    assert dict(_db(run, "SELECT key, record FROM episodes")) == kept  # nothing half-written, nothing lost
    assert set(kept) == planned - held

    fake.release()
    paid = fake.by_model["ok"]
    resume = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "sweep", str(f), "--out", str(run), "--resume",
                             "--json"], capture_output=True, text=True, timeout=120, check=False)
    assert resume.returncode == 0, resume.stderr
    again = json.loads(resume.stdout)
    assert again["already_done"] == 4 and again["ran"] == 4 and again["done"] == 8  # only the unfinished four
    rows = dict(_db(run, "SELECT key, record FROM episodes"))
    assert set(rows) == planned and {k: rows[k] for k in kept} == kept  # finished episodes untouched
    assert _db(run, "SELECT COUNT(*) FROM episodes WHERE attempt > 1") == [(0,)]
    assert fake.by_model["ok"] == paid  # no finished episode's executor was asked again


@pytest.mark.parametrize(("sig", "workers"), [
    (signal.SIGINT, 1), (signal.SIGINT, 2), (signal.SIGTERM, 1), (signal.SIGTERM, 2),
], ids=["sigint-twice-1-process", "sigint-twice-2-workers", "sigterm-twice-1-process", "sigterm-twice-2-workers"])
def test_a_second_signal_still_closes_the_manifests_session(fake: FakeOpenAI, tmp_path: Path, sig: int,
                                                            workers: int) -> None:
    f = _sweep_file(tmp_path, fake, workers)
    run = tmp_path / "run"
    proc = _start("sweep", str(f), "--out", str(run), "--json")
    _wait_for(lambda: fake.by_model["held-ok"] == 4, 90, proc)
    proc.send_signal(sig)  # twice at once, as a wrapper that forwards the signal does
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err, err
    manifest = read_manifest(run)
    assert manifest["status"] != "running"
    [session] = manifest["sessions"]
    assert session["status"] != "running" and session["ended_at"] is not None, session


def test_a_held_run_folder_refuses_a_second_writer_and_a_dead_holder_leaves_no_lock(fake: FakeOpenAI,
                                                                                      tmp_path: Path) -> None:
    f = _sweep_file(tmp_path, fake, 1)
    run = tmp_path / "run"
    first = _start("sweep", str(f), "--out", str(run), "--json")
    # Every executor call of the first sweep has arrived (the answering four and the four held ones), so any
    # request counted after this is the second writer's.
    _wait_for(lambda: fake.by_model["held-ok"] == 4 and fake.by_model["ok"] == 4, 90, first)
    paid = fake.requests
    second = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "sweep", str(f), "--out", str(run), "--resume",
                             "--json"], capture_output=True, text=True, timeout=120, check=False)
    assert second.returncode == 2, second.stderr
    err = " ".join(second.stderr.split())
    assert f"pid {first.pid}" in err and "one writer at a time" in err and "Traceback" not in err, err
    assert fake.requests == paid  # refused before any model call
    assert len(read_manifest(run)["sessions"]) == 1
    first.kill()  # SIGKILL: the holder never gets to let go
    first.communicate(timeout=20)
    fake.release()
    again = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "sweep", str(f), "--out", str(run), "--resume",
                            "--json"], capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["done"] == 8
