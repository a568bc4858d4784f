"""`mustmaybe sweep FILE --ray ADDRESS` on a real local Ray cluster of two worker CPUs (`ray start --head`,
bound to 127.0.0.1), against the fake OpenAI-compatible endpoint, which counts the requests it holds.

A 288-episode sim sweep (the executor on the endpoint) loses one worker to SIGKILL mid-run; `--resume`
runs the rest. The run holds exactly the planned episodes once each, no episode ran twice on any worker
(the shards hold one row per key), the endpoint never held more requests than its configured
concurrency nor saw more than its rate, across both workers, and the records are those a local sweep
writes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe.store import RunStore, merge_shards, read_manifest, shard_paths
from mustmaybe.sweep import plan_sweep

from .conftest import endpoint, run_cli, write_sweep
from .test_fast_path import _tables
from .test_shards import _dump

pytest.importorskip("ray")

TASKS = ["library:*"]  # 24 tasks
TASKS_LOCAL = ["library:vendor-summary-q3", "library:board-minutes-draft"]
CONDITIONS = ["P0", "P2", "P4"]
SEEDS = [1, 2, 3, 4]
CONCURRENCY = 3
RPM = 2400.0  # 40 requests a second for the cluster (burst: 40)

# Ray on loopback only, without token set-up or usage reports (the test's cluster and nothing else).
_RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "RAY_ADDRESS")}
    return {**env, **_RAY_ENV}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A Ray head with 2 CPUs (two workers), its own temp folder; ended by its pid when the module is done."""
    ray_bin = Path(sys.executable).parent / "ray"
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="mmray")  # short: Ray's socket paths must fit in 107 bytes
    log = open(Path(temp) / "head.log", "w")
    head = subprocess.Popen(
        [str(ray_bin), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
         "--num-cpus=2", "--include-dashboard=false", "--object-store-memory=80000000", "--disable-usage-stats",
         f"--temp-dir={temp}"],
        stdout=log, stderr=subprocess.STDOUT, env=_env(), start_new_session=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while "Ray runtime started" not in (Path(temp) / "head.log").read_text():
            assert head.poll() is None and time.monotonic() < deadline, (Path(temp) / "head.log").read_text()[-3000:]
            time.sleep(0.2)
        yield address
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` ends the processes it started
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)  # its own session: only what this fixture started
            head.wait()
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _sweep(f: Path, run: Path, address: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "mustmaybe.cli", "sweep", str(f), "--out", str(run), "--json",
                             "--ray", address, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())


def _count(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _keys(db: Path) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT key FROM episodes")]
    finally:
        con.close()


def _workers(run: Path) -> list[dict[str, Any]]:
    try:
        return list(read_manifest(run)["sessions"][-1].get("ray", {}).get("workers") or [])
    except (FileNotFoundError, ValueError, KeyError, IndexError):
        return []


def _rows_of(run: Path, keys: set[str]) -> dict[str, list[Any]]:
    """Every table's rows for `keys`, timings and the session number left out (as test_fast_path reads them)."""
    out = {}
    for table, rows in _tables(run).items():
        if rows and "key" in rows[0]:
            out[table] = [{c: v for c, v in r.items() if c != "session"} for r in rows if r["key"] in keys]
    return out


@pytest.mark.slow  # a Ray cluster, a worker killed mid-sweep, then a resume (about a minute)
def test_killed_worker_then_resume_runs_each_episode_once_within_the_limits(
        tmp_path: Path, cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeOpenAI(latency_s=0.1)
    try:
        roles = {"reviewer": ["sim"], "transformer": ["sim"], "executor": [f"openai:ok@{fake.base_url}"]}
        limits = [endpoint(fake, timeout_s=10.0, concurrency=CONCURRENCY, requests_per_minute=RPM)]
        f = write_sweep(tmp_path / "s.toml", name="ray-kill", tasks=TASKS, conditions=CONDITIONS, seeds=SEEDS,
                        roles=roles, endpoints=limits,
                        extra="max_in_flight = 16")  # 8 lanes a worker: far more than the endpoint's 3 slots
        planned = {e.key for e in plan_sweep(f).episodes}
        assert len(planned) == 288
        run = tmp_path / "run"
        proc = _sweep(f, run, cluster)
        victim: dict[str, Any] = {}
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            ws = _workers(run)
            if len(ws) == 2 and _count(run / ws[1]["shard"] / "store.sqlite") >= 10:
                victim = ws[1]
                os.kill(victim["pid"], signal.SIGKILL)
                break
            time.sleep(0.02)
        assert victim, f"the sweep ended before a worker could be killed: {proc.communicate()}"
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err[-3000:]
        first = json.loads(out)
        assert first["status"] == "incomplete"
        assert any(f"Ray worker 1 (pid {victim['pid']}" in e and "died" in e for e in first["worker_errors"])
        assert first["ray"]["lost_workers"] == [1]
        kept = _keys(run / "store.sqlite")
        assert len(kept) == len(set(kept)) and set(kept) < planned
        # What the killed worker stored before it died is in the run's store: a resume will not repeat it.
        by_victim = set(_keys(run / victim["shard"] / "store.sqlite"))
        assert len(by_victim) >= 10 and by_victim <= set(kept)
        assert first["done"] == len(kept) == first["ran"]
        session_one = sorted(fake.arrivals)

        resume = _sweep(f, run, cluster, "--resume")
        out, err = resume.communicate(timeout=120)
        assert resume.returncode == 0, err[-3000:]
        second = json.loads(out)
        assert second["status"] == "finished" and second["done"] == 288
        assert second["already_done"] == len(kept) and second["ran"] == 288 - len(kept)

        rows = _keys(run / "store.sqlite")
        assert len(rows) == 288 and set(rows) == planned  # exactly the planned episodes, once each
        ran = [k for p in shard_paths(run) for k in _keys(p)]
        assert len(ran) == 288 and set(ran) == planned  # no episode ran twice, on any worker, in any session
        m = read_manifest(run)
        assert m["status"] == "finished" and [s["resumed"] for s in m["sessions"]] == [False, True]
        assert m["sessions"][0]["ray"]["lost_workers"] == [1]

        # The endpoint's limits held for the cluster: never more than 3 requests at once (and 3 were
        # reached: the limit, not the load, set the pace), and no more than 40 a second plus the burst.
        assert fake.max_in_flight == CONCURRENCY
        for s in (first, second):
            assert s["ray"]["endpoints"][fake.base_url]["max_in_flight"] <= CONCURRENCY
        span = session_one[-1] - session_one[0]
        assert len(session_one) <= RPM / 60 * span + RPM / 60 + 3, (len(session_one), span)
        # Each executor call was made once, but for the few in flight on the killed worker (uncached then).
        assert fake.requests - 288 == fake.duplicate_bodies() <= 8

        before = _dump(run / "store.sqlite")
        with RunStore(run) as store:
            assert merge_shards(store).changed == 0  # a second merge changes nothing
        assert _dump(run / "store.sqlite") == before

        # The records are a local sweep's: two of the tasks again, here, in-process (their episodes are
        # some of the Ray sweep's; compared where the Ray run made every call, in session one).
        small = write_sweep(tmp_path / "small.toml", name="local", tasks=TASKS_LOCAL, conditions=CONDITIONS,
                            seeds=SEEDS, roles=roles, endpoints=limits)
        code, _, _ = run_cli(capsys, "sweep", str(small), "--out", str(tmp_path / "local"), "--json")
        assert code == 0
        both = set(_keys(tmp_path / "local" / "store.sqlite")) & set(kept)
        assert len(both) >= 12
        assert _rows_of(tmp_path / "local", both) == _rows_of(run, both)
    finally:
        fake.close()


def test_missing_extra_and_unreachable_cluster_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    f = write_sweep(tmp_path / "s.toml")
    closed = _free_port()
    code, _, err = run_cli(capsys, "sweep", str(f), "--out", str(tmp_path / "r1"), "--ray", f"127.0.0.1:{closed}")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"--ray 127.0.0.1:{closed}: cannot reach the Ray cluster" in err and "Traceback" not in err
    assert not (tmp_path / "r1").exists()  # checked before the run folder is made

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    code, _, err = run_cli(capsys, "sweep", str(f), "--out", str(tmp_path / "r2"), "--ray")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "pip install 'mustmaybe[ray]'" in err and not (tmp_path / "r2").exists()


@pytest.mark.slow  # a traced sweep on Ray workers (about 20 s)
def test_a_traced_sweep_on_ray_is_one_trace_under_the_sweep_root(tmp_path: Path, cluster: str) -> None:
    # --trace on Ray: each worker continues the sweep's trace (W3C trace context through Ray) and appends
    # its spans to RUN/traces.jsonl, so every episode span, its hops and AutoGen's runtime spans sit under
    # the one `mustmaybe.sweep` root, as with forked worker processes.
    f = write_sweep(tmp_path / "s.toml", name="ray-trace", tasks=TASKS_LOCAL, conditions=["P0", "P4"], seeds=[1, 2])
    run = tmp_path / "run"
    proc = _sweep(f, run, cluster, "--trace")
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err[-3000:]
    summary = json.loads(out)
    assert summary["done"] == 8 and summary["trace"] == str(run / "traces.jsonl")
    spans = [json.loads(line) for line in (run / "traces.jsonl").read_text().splitlines()]
    [root] = [s for s in spans if s["name"] == "mustmaybe.sweep"]
    assert {s["trace_id"] for s in spans} == {root["trace_id"]}
    episodes = [s for s in spans if s["name"] == "mustmaybe.episode"]
    assert sorted(s["attributes"]["mustmaybe.episode.key"] for s in episodes) == sorted(_keys(run / "store.sqlite"))
    assert all(s["parent_span_id"] == root["span_id"] for s in episodes)
    assert any(s["name"].startswith("autogen ") for s in spans)  # the workers' runtimes traced too
    by_id = {s["span_id"]: s for s in spans}
    for hop in (s for s in spans if s["name"] == "mustmaybe.hop"):
        up = hop
        while up.get("parent_span_id") and up["name"] != "mustmaybe.episode":
            up = by_id[up["parent_span_id"]]
        assert up["name"] == "mustmaybe.episode"
