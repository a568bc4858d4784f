"""A run whose models never answered is a failed episode, never "safe".

`mustmaybe run` against an unreachable endpoint, or one that answers something that is not a chat
completion (an HTML page, JSON without `choices`, a body cut off mid-JSON), exits 1 with a one-line
reason naming the role, the endpoint and why, and stores a failed episode: no action, no Y. A
whole-call `--timeout` that runs out while a 500 or 429 is retried reports that 500 or 429. A sweep
over such an endpoint counts the episodes as failed in its summary and in its report.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe.store import load_run_episodes

from .conftest import endpoint, run_cli, run_json, write_sweep


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mustmaybe.cli", "run", "vendor-summary-q3", "-c", "P4",
                           "--runs-dir", str(tmp_path / "runs"), *argv],
                          capture_output=True, text=True, check=False, timeout=120)


def _only_record(tmp_path: Path) -> object:
    (run,) = list((tmp_path / "runs").iterdir())
    (record,) = load_run_episodes(run)
    con = sqlite3.connect(run / "store.sqlite")
    try:
        failed, forbidden, action = con.execute("SELECT failed, forbidden, action FROM episodes").fetchone()
    finally:
        con.close()
    assert (failed, forbidden, action) == (1, None, None)  # the flat columns say it too
    return record


def _assert_failed_run(res: subprocess.CompletedProcess[str], tmp_path: Path, role: str, endpoint: str,
                       reason: str) -> None:
    assert res.returncode == 1, (res.stdout[-2000:], res.stderr[-2000:])
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr  # one line, no traceback
    line = lines[0]
    assert line.startswith("error: episode P4 failed") and f"{role}'s model call to {endpoint}" in line, line
    assert reason in line and "nothing was scored" in line, line
    rec = _only_record(tmp_path)
    assert rec.failed and rec.executor.action is None and rec.executor.forbidden is None  # type: ignore[attr-defined]
    err = rec.errors[0]  # type: ignore[attr-defined]
    assert err.role == role and err.endpoint == endpoint and reason in err.message
    assert "safe" not in res.stdout.replace("unsafe", "")  # the console never calls it safe


def test_run_against_an_unreachable_endpoint_fails(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    res = _run(tmp_path, "--model", f"openai:m@{url}")
    _assert_failed_run(res, tmp_path, "reviewer", url, "could not be reached (connection refused)")


@pytest.mark.parametrize(("fault", "reason"), [
    ("html", "the endpoint returned HTML, not a chat completion"),
    ("no_choices", "the endpoint returned JSON without `choices`, not a chat completion"),
    ("bad_body", "the endpoint returned a truncated or malformed JSON body, not a chat completion"),
])
def test_run_against_garbage_fails(fake: FakeOpenAI, tmp_path: Path, fault: str, reason: str) -> None:
    # The reviewer answers; the executor's endpoint returns garbage: the fallback rule must not turn it into an action.
    res = _run(tmp_path, "--model", "sim", "--model", f"executor=openai:fault-{fault}@{fake.base_url}", "--json")
    _assert_failed_run(res, tmp_path, "executor", fake.base_url, reason)
    body = json.loads(res.stdout)  # --json still prints the record, with nothing scored
    assert body["failed"] is True and body["executor"]["action"] is None and body["executor"]["forbidden"] is None
    assert fake.by_answer[fault] == 1  # not retried: it is what that URL serves


@pytest.mark.parametrize(("fault", "reason"), [
    ("500", "the endpoint answered HTTP 500"),
    ("429", "the endpoint answered HTTP 429 (rate limited)"),
])
def test_a_timeout_never_hides_the_http_error_it_was_retrying(fake: FakeOpenAI, tmp_path: Path, fault: str,
                                                              reason: str) -> None:
    # --timeout is the whole call's limit, retries included; it runs out while the error is being retried.
    res = _run(tmp_path, "--timeout", "2", "--model", f"openai:fault-{fault}@{fake.base_url}")
    _assert_failed_run(res, tmp_path, "reviewer", fake.base_url, reason)
    assert "gave up when the 2 s limit for the call ran out" in res.stderr
    assert fake.by_answer[fault] >= 2  # it was retried before the limit ran out


def test_an_answer_that_does_not_parse_still_gets_the_fallback_rule(fake: FakeOpenAI, tmp_path: Path) -> None:
    res = _run(tmp_path, "--model", "sim", "--model", f"executor=openai:fault-wrong_shape@{fake.base_url}", "--json")
    assert res.returncode == 0, res.stderr
    body = json.loads(res.stdout)
    assert body["failed"] is False and body["executor"]["parse_ok"] is False
    assert body["executor"]["action"] and body["executor"]["action_rule"] in ("requested", "recommended", "fallback")
    assert isinstance(body["executor"]["forbidden"], bool)


def test_a_sweep_over_a_garbage_endpoint_reports_failed_not_safe(fake: FakeOpenAI, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    url = fake.base_url
    sweep = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"],
                        roles={"reviewer": ["sim"], "transformer": ["sim"],
                               "executor": ["sim", f"openai:fault-html@{url}"]},
                        endpoints=[endpoint(fake, timeout_s=2.0)])
    run = tmp_path / "run"
    code, summary = run_json(capsys, "sweep", str(sweep), "--out", str(run), "--json")
    assert code == 1 and summary["status"] == "incomplete"
    assert summary["episodes"] == 8 and summary["failed"] == 4 and summary["done"] == 4
    rows = {r["models"].split(" / ")[-1]: r for r in summary["conditions"] if r["condition"] == "P4"}
    html_row = rows[f"openai:fault-html@{url}"]
    assert html_row["failed"] == html_row["n"] == 2 and html_row["scored"] == 0
    assert html_row["unsafe"] is None and html_row["P"] is None and html_row["mostly_failed"]

    # The report: failed counts beside the rates, the row flagged, a warning on the page; never a safe rate.
    out = tmp_path / "report"
    code, _, _ = run_cli(capsys, "report", str(run), "--out", str(out), "--no-figures")
    assert code == 0
    cm = pl.read_csv(out / "tables" / "condition_matrix.csv")
    failed_rows = cm.filter(pl.col("models").str.contains("fault-html"))
    assert failed_rows.height == 2  # P0 and P4
    assert failed_rows["failed"].to_list() == [2, 2] and failed_rows["n"].to_list() == [0, 0]
    assert failed_rows["unsafe"].null_count() == 2 and failed_rows["mostly_failed"].to_list() == [True, True]
    sim_rows = cm.filter(~pl.col("models").str.contains("fault-html"))
    assert sim_rows["failed"].to_list() == [0, 0] and sim_rows["n"].to_list() == [2, 2]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "FAILED: 4 of 8 episodes (50%) failed" in page and "not_a_completion 4" in page
    assert "MOST EPISODES FAILED" in page and "<th>failed</th>" in page


def test_a_failed_episode_has_no_state_and_no_scored_field(tmp_path: Path) -> None:
    res = _run(tmp_path, "--model", f"openai:m@http://127.0.0.1:{_closed_port()}/v1", "--timeout", "2")
    assert res.returncode == 1
    # The console: FAILED, never a state or an artifact's field badges.
    assert "FAILED" in res.stdout and "deactivated" not in res.stdout.split("outcome")[-1], res.stdout[-2000:]
    (run,) = list((tmp_path / "runs").iterdir())
    con = sqlite3.connect(run / "store.sqlite")
    try:
        row = con.execute("SELECT state, complete, retention_score, first_break_hop, reviewer_identified, forbidden "
                          "FROM episodes").fetchone()
        # The docs' own pattern: a rate per condition never counts a failure as a deactivation.
        (d,) = con.execute("SELECT avg(state = 'deactivated') FROM episodes GROUP BY condition").fetchone()
    finally:
        con.close()
    assert row == (None,) * 6 and d is None
    (record,) = load_run_episodes(run)
    body = record.to_json_dict()
    assert body["failed"] and body["artifact"]["score"] is None and body["reviewer_identified"] is None
    assert body["first_break_hop"] is None and body["executor"]["forbidden"] is None
    # A rescore keeps it unscored.
    assert subprocess.run([sys.executable, "-m", "mustmaybe.cli", "rescore", str(run)], capture_output=True,
                          check=False, timeout=120).returncode == 0
    con = sqlite3.connect(run / "store.sqlite")
    try:
        assert con.execute("SELECT state, reviewer_identified, forbidden FROM episodes").fetchone() == (None,) * 3
    finally:
        con.close()


def test_a_store_from_before_unscored_failures_is_migrated(tmp_path: Path) -> None:
    # A store whose scored columns are NOT NULL holds its failed episodes with placeholder scores.
    from mustmaybe.store import RunStore

    res = _run(tmp_path, "--model", f"openai:m@http://127.0.0.1:{_closed_port()}/v1", "--timeout", "2")
    assert res.returncode == 1
    (run,) = list((tmp_path / "runs").iterdir())
    con = sqlite3.connect(run / "store.sqlite")
    ddl = con.execute("SELECT sql FROM sqlite_master WHERE name = 'episodes'").fetchone()[0]
    cols = [r[1] for r in con.execute("PRAGMA table_info(episodes)")]
    old = ddl.replace("state TEXT,", "state TEXT NOT NULL,").replace("reviewer_identified INTEGER,",
                                                                      "reviewer_identified INTEGER NOT NULL,")
    con.executescript("ALTER TABLE episodes RENAME TO e0; DROP INDEX IF EXISTS episodes_condition; "
                      f"DROP INDEX IF EXISTS episodes_task; {old}; "
                      "UPDATE e0 SET state = 'deactivated', reviewer_identified = 0, complete = 0; "
                      f"INSERT INTO episodes SELECT {', '.join(cols)} FROM e0; DROP TABLE e0;")
    con.close()
    with RunStore(run) as store:  # opened for writing: migrated
        assert store.query("SELECT state, reviewer_identified, failed FROM episodes") == [(None, None, 1)]
        assert store.query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'episodes' "
                           "AND sql IS NOT NULL") == [(2,)]
