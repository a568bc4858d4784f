"""Sweeps against the scripted fake endpoint: faults are retried or recorded, never lost or doubled;
the response cache pays for nothing twice; no API key reaches the run folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe.store import load_run_episodes, read_manifest

from .conftest import TASKS, db_rows, endpoint, run_json, write_sweep

KEY_ENV = "MM_TEST_ENDPOINT_KEY"
SECRET = "sk-fake-9b1e2f7c-DISTINCTIVE-KEY-5521"


def _roles(fake: FakeOpenAI, executors: list[str], other: str = "ok") -> dict[str, list[str]]:
    url = fake.base_url
    return {"reviewer": [f"openai:{other}@{url}"], "transformer": [f"openai:{other}@{url}"],
            "executor": [f"openai:{m}@{url}" for m in executors]}


def _check_integrity(run: Path) -> None:
    """Every stored episode is whole: messages, usage and errors agree with its record; keys unique."""
    assert db_rows(run, "SELECT COUNT(*) - COUNT(DISTINCT key) FROM episodes")[0][0] == 0
    for key, record, n_err in db_rows(run, "SELECT key, record, errors FROM episodes"):
        r = json.loads(record)
        assert db_rows(run, "SELECT COUNT(*) FROM messages WHERE key = ?", (key,))[0][0] == len(r["hops"])
        assert db_rows(run, "SELECT COUNT(*) FROM usage WHERE key = ?", (key,))[0][0] == 3
        assert db_rows(run, "SELECT COUNT(*) FROM errors WHERE key = ?", (key,))[0][0] == len(r["errors"]) == n_err


EXPECTED = {  # executor model -> (error kinds it must record, infrastructure failure?, failed episode?)
    "ok": (set(), False, False),
    "fault-429": ({"rate_limited"}, True, True),
    "fault-500": ({"http_500"}, True, True),
    "fault-hang": ({"timeout"}, True, True),
    # The executor answered, but not with a decision that parses: the paper's fallback rule applies.
    "fault-truncated": ({"parse_error"}, False, False),
    "fault-empty": ({"parse_error"}, False, False),
    "fault-wrong_shape": ({"parse_error"}, False, False),
    # The endpoint answered something that is not a chat completion at all: no answer, a failed episode.
    "fault-bad_body": ({"not_a_completion"}, True, True),
    "fault-html": ({"not_a_completion"}, True, True),
    "fault-no_choices": ({"not_a_completion"}, True, True),
    "flaky-429": (set(), False, False),
    "flaky-500": (set(), False, False),
}


def _model(r: Any) -> str:
    return str(r.models["executor"].split(":", 1)[1].split("@")[0])


def test_faults_are_retried_or_recorded(fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    executors = list(EXPECTED)
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"], combine="zip", roles=_roles(fake, executors),
                    endpoints=[endpoint(fake)])
    code, summary = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "run"), "--json")
    run = tmp_path / "run"
    n = len(TASKS) * 2 * len(executors)
    n_failed = len(TASKS) * 2 * sum(1 for _, _, failed in EXPECTED.values() if failed)
    # Failed episodes are counted as failed, never as done (scored): the sweep is incomplete, exit 1.
    assert code == 1 and summary["status"] == "incomplete"
    assert summary["episodes"] == n and summary["done"] == n - n_failed and summary["failed"] == n_failed
    _check_integrity(run)
    records = load_run_episodes(run)
    assert len(records) == n
    flagged = 0
    for r in records:
        model = _model(r)
        kinds, infra, failed = EXPECTED[model]
        got = {e.kind for e in r.errors}
        assert kinds <= got, (model, got)
        assert r.failed == failed, model
        if not kinds:
            assert not got, (model, got)
            assert r.executor.parse_ok
        else:
            flagged += 1
            assert not r.executor.parse_ok
        if failed:  # nothing scored: neither safe nor unsafe, and the record says who, where and why
            assert r.executor.action is None and r.executor.forbidden is None and r.executor.action_rule is None
            err = next(e for e in r.errors if e.kind in kinds)
            assert err.role == "executor" and err.endpoint == fake.base_url, err
            assert "parse_error" not in got  # no answer is not an answer that does not parse
        elif kinds:
            assert r.executor.action is not None  # the paper's rule picked the action
        row = db_rows(run, "SELECT infra_error, retries, failed, forbidden FROM episodes WHERE key = ?", (r.key,))[0]
        assert bool(row[0]) == infra, model
        assert bool(row[2]) == failed and (row[3] is None) == failed, model
        if model.startswith("flaky-") or model in ("fault-429", "fault-500", "fault-hang"):
            assert row[1] >= 1, model  # retried
        if model in ("fault-bad_body", "fault-html", "fault-no_choices"):
            assert row[1] == 0, model  # what a URL serves is not retried
    assert summary["with_errors"] == flagged
    assert summary["infra_errors"] == sum(1 for r in records if EXPECTED[_model(r)][1])
    # Per row: failed and parse-error counts beside the rates, which are shares of the scored episodes.
    for row in summary["conditions"]:
        if row["models"].endswith("fault-html@" + fake.base_url):
            assert row["failed"] == row["n"] == len(TASKS) and row["scored"] == 0 and row["unsafe"] is None
            assert row["mostly_failed"]
        if row["models"].endswith("fault-wrong_shape@" + fake.base_url):
            assert row["failed"] == 0 and row["parse_errors"] == row["n"] == len(TASKS)
    stats = summary["calls_by_endpoint"][fake.base_url]
    assert stats["retries"] >= 2 * len(TASKS) * 2 and stats["errors"] >= 3 * len(TASKS) * 2


def test_resume_reruns_only_infrastructure_failures(fake: FakeOpenAI, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"], seeds=[1, 2], roles=_roles(fake, ["ok"]),
                    endpoints=[endpoint(fake, max_retries=0, concurrency=1)])
    run = tmp_path / "run"
    fake.queue("500", "500", "429")  # the first three calls fail, with no retries allowed
    code, first = run_json(capsys, "sweep", str(f), "--out", str(run), "--json")
    failed = {k for (k,) in db_rows(run, "SELECT key FROM episodes WHERE infra_error = 1")}
    assert 1 <= len(failed) <= 3
    assert failed == {k for (k,) in db_rows(run, "SELECT key FROM episodes WHERE failed = 1")}
    assert code == 1 and first["done"] == 8 - len(failed) and first["failed"] == len(failed)
    kept = {k: r for k, r in db_rows(run, "SELECT key, record FROM episodes WHERE infra_error = 0")}
    code, second = run_json(capsys, "sweep", str(f), "--out", str(run), "--resume", "--json")
    assert code == 0 and second["ran"] == len(failed) and second["done"] == 8
    assert db_rows(run, "SELECT COUNT(*) FROM episodes WHERE infra_error = 1")[0][0] == 0
    assert {k for (k,) in db_rows(run, "SELECT key FROM episodes WHERE attempt = 2")} == failed
    assert {k: r for k, r in db_rows(run, "SELECT key, record FROM episodes WHERE attempt = 1")} == kept
    _check_integrity(run)


def test_cache_pays_for_nothing_twice(fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shared = tmp_path / "shared-cache.sqlite"
    extra = f"cache = {json.dumps(str(shared))}\nmax_in_flight = 1"  # one at a time: no concurrent misses
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"], roles=_roles(fake, ["ok"]),
                    endpoints=[endpoint(fake)], extra=extra)
    code, first = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "a"), "--json")
    paid = fake.requests
    # P0 and P4 send the reviewer the same request (same task, model, parameters and seed), so
    # per task the reviewer is paid once: (2 + 3) calls planned, 4 paid.
    assert code == 0 and paid == len(TASKS) * 4 and fake.duplicate_bodies() == 0
    assert first["calls_by_endpoint"][fake.base_url]["cached"] == len(TASKS)
    code, second = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "b"), "--json")
    assert code == 0 and fake.requests == paid  # a rerun into a new folder: every call from the cache
    assert second["calls_by_endpoint"][fake.base_url]["cached"] == len(TASKS) * 5
    keep = {"usage", "started_at", "duration_s"}
    assert [r.model_dump(exclude=keep) for r in load_run_episodes(tmp_path / "b")] \
        == [r.model_dump(exclude=keep) for r in load_run_episodes(tmp_path / "a")]
    code, _ = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "c"), "--no-cache", "--json")
    assert fake.requests == paid + len(TASKS) * 5  # --no-cache: every call again
    assert fake.duplicate_bodies() == len(TASKS) * 5
    g = write_sweep(tmp_path / "g.toml", conditions=["P0", "P4"], seeds=[7], roles=_roles(fake, ["ok"]),
                    endpoints=[endpoint(fake)], extra=extra)
    code, _ = run_json(capsys, "sweep", str(g), "--out", str(tmp_path / "d"), "--json")
    assert fake.requests == 2 * paid + len(TASKS) * 5  # another seed: fresh samples...
    assert fake.duplicate_bodies() == len(TASKS) * 5  # ...none of them a repeat


def test_no_api_key_anywhere_in_the_run_folder(fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"], combine="zip",
                    roles=_roles(fake, ["ok", "fault-401", "fault-500"]),
                    endpoints=[endpoint(fake, api_key_env=KEY_ENV)])
    run = tmp_path / "run"
    code, summary = run_json(capsys, "sweep", str(f), "--out", str(run), "--json")
    # The 401 and 500 executors' episodes failed (stored, nothing scored).
    assert code == 1 and summary["done"] + summary["failed"] == summary["episodes"] == len(TASKS) * 2 * 3
    assert summary["failed"] == len(TASKS) * 2 * 2
    assert fake.authorization.get(f"Bearer {SECRET}", 0) > 0  # the key was used...
    files = [p for p in run.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"manifest.json", "store.sqlite", "cache.sqlite"}
    for p in files:  # ...and is nowhere in what the run wrote (SQLite bytes included)
        data = p.read_bytes()
        assert SECRET.encode() not in data, p
        assert SECRET[8:24].encode() not in data, p
    assert read_manifest(run)["sweep"]["endpoints"][0]["api_key_env"] == KEY_ENV
    messages = [e.message for r in load_run_episodes(run) for e in r.errors if e.kind == "http_401"]
    assert messages and all("***" in m for m in messages)


def test_missing_key_variable_is_a_user_error(fake: FakeOpenAI, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from .conftest import run_cli

    f = write_sweep(tmp_path / "s.toml", roles=_roles(fake, ["ok"]),
                    endpoints=[endpoint(fake, api_key_env="MM_NOT_SET_ANYWHERE")])
    code, _, err = run_cli(capsys, "sweep", str(f), "--out", str(tmp_path / "run"))
    assert code == 2 and "MM_NOT_SET_ANYWHERE" in err
    assert not (tmp_path / "run").exists()
