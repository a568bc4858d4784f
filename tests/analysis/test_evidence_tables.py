"""Table 20 (evidence quality), the isolation audit and Table 19's panels, checked against the run store.

A sweep against the local fake endpoint gives four executor configurations in two panels: a clean one,
one whose answers end with finish_reason "length", one whose calls fail (failed episodes) and one whose
answers do not parse. Every count of the report's tables is recounted here with SQL on store.sqlite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe import cli
from mustmaybe.analysis import build_report
from mustmaybe.store import load_run_episodes

CONFIGS = {"clean": ("ok", "main"), "cut": ("length-x", "main"), "down": ("fault-500", "validation"),
           "garbled": ("fault-truncated", "validation")}


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake = FakeOpenAI(hang_s=2.0, retry_after="0.05")
    url = fake.base_url
    models = "\n".join(f'[models.{name}]\nspec = "openai:{model}@{url}"\npanel = "{panel}"\n'
                       for name, (model, panel) in CONFIGS.items())
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'''schema = "mustmaybe/sweep@1"
name = "evidence"
tasks = ["library:vendor-summary-q3", "library:board-minutes-draft"]
conditions = ["P0", "P4", "S3"]
seeds = [1]
[roles]
reviewer = ["openai:ok@{url}"]
transformer = ["openai:ok@{url}"]
executor = {list(CONFIGS)!r}
[[endpoints]]
base_url = "{url}"
timeout_s = 5
max_retries = 0
{models}''', encoding="utf-8")
    cli._EXTRA_COMMANDS.clear()
    try:
        assert cli.main(["sweep", str(sweep), "--out", str(tmp_path / "run"), "--json"]) == 1  # some failed
    finally:
        fake.close()
    yield tmp_path / "run"


def _sql(run: Path, query: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(run / "store.sqlite")
    try:
        return list(con.execute(query))
    finally:
        con.close()


def _store_counts(run: Path) -> dict[str, dict[str, int]]:
    """Per executor configuration, counted from the store's columns and the records' JSON."""
    cfg = "json_extract(e.record, '$.configs.executor')"
    out: dict[str, dict[str, int]] = {}
    for name, n, failed, parse, calls, cached, pt, ct in _sql(run, f"""
            SELECT {cfg}, COUNT(*), SUM(failed), SUM(failed = 0 AND parse_ok = 0), SUM(calls), SUM(cached_calls),
                   SUM(prompt_tokens), SUM(completion_tokens) FROM episodes e GROUP BY 1"""):
        out[str(name)] = {"episodes": int(n), "failed": int(failed), "parse_errors": int(parse),
                          "calls": int(calls), "cached_calls": int(cached), "prompt_tokens": int(pt),
                          "completion_tokens": int(ct), "failed_calls": 0, "finish_stop": 0, "finish_length": 0}
    for name, n in _sql(run, f"""SELECT {cfg}, COUNT(*) FROM episodes e, json_each(e.record, '$.errors') x
                                WHERE json_extract(x.value, '$.endpoint') IS NOT NULL GROUP BY 1"""):
        out[str(name)]["failed_calls"] = int(n)
    for name, reason, n in _sql(run, f"""
            SELECT {cfg}, f.key, SUM(f.value) FROM episodes e, json_each(e.record, '$.usage') u,
                   json_each(u.value, '$.finish_reasons') f GROUP BY 1, 2"""):
        out[str(name)][f"finish_{reason}"] = int(n)
    return out


def test_table_20_counts_match_the_store(run: Path, tmp_path: Path) -> None:
    summary = build_report(load_run_episodes(run), tmp_path / "report", resamples=20, figures=False)
    eq = summary.tables["evidence_quality"]
    expected = _store_counts(run)
    rows = {r["models"].rsplit("executor=", 1)[-1]: r for r in eq.iter_rows(named=True) if r["models"] != "all"}
    assert set(rows) == set(CONFIGS)
    for name, counts in expected.items():
        row = rows[name]
        assert row["panel"] == CONFIGS[name][1]
        for col, value in counts.items():
            assert row[col] == value, (name, col, row[col], value)
        assert row["tokens"] == counts["prompt_tokens"] + counts["completion_tokens"]
    # The fixture is what it claims: every kind of evidence problem is present, in its own configuration.
    assert expected["down"]["failed"] == expected["down"]["episodes"] == expected["down"]["failed_calls"] == 6
    assert expected["garbled"]["parse_errors"] == 6 and expected["garbled"]["failed"] == 0
    assert expected["cut"]["finish_length"] == 6 and expected["clean"]["finish_length"] == 0
    # Panel totals and the combined row add up their configurations.
    for panel in ("main", "validation"):
        total = eq.filter((pl.col("panel") == panel) & (pl.col("models") == "all")).row(0, named=True)
        names = [n for n, (_, p) in CONFIGS.items() if p == panel]
        assert total["episodes"] == sum(expected[n]["episodes"] for n in names) and total["variants"] == 2
        assert total["calls"] == sum(expected[n]["calls"] for n in names)
    combined = eq.filter(pl.col("panel") == "combined").row(0, named=True)
    n_all, calls_all = _sql(run, "SELECT COUNT(*), SUM(calls) FROM episodes")[0]
    assert (combined["episodes"], combined["calls"], combined["variants"]) == (n_all, calls_all, 4)
    assert list(eq["panel"]) == ["main", "main", "main", "validation", "validation", "validation", "combined"]
    # Table 19: rows grouped by panel, main first; the failing configuration's episodes are counted as failed.
    mr = summary.tables["model_rates"]
    assert list(mr["panel"]) == ["main", "main", "validation", "validation"]
    down = mr.filter(pl.col("models").str.ends_with("executor=down")).row(0, named=True)
    assert down["failed"] == 6 and down["n"] == 0
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    for title in ("Evidence quality audit (Table 20)", "Context-isolation audit", "by panel (Table 19)"):
        assert title in md and title in html


def test_isolation_audit_matches_the_store(run: Path, tmp_path: Path) -> None:
    summary = build_report(load_run_episodes(run), tmp_path / "report", resamples=20, figures=False)
    iso = summary.tables["isolation_audit"]
    transformer = "(SELECT COUNT(*) FROM errors x WHERE x.key = e.key AND x.kind = 'isolation_leak') > 0"
    got = {(r["condition"], r["topology"]): r for r in iso.iter_rows(named=True)}
    for cond, topo, n, failed, exec_leaks, trans_leaks, clean in _sql(run, f"""
            SELECT condition, topology, COUNT(*), SUM(failed), SUM(isolation_ok = 0), SUM({transformer}),
                   SUM(isolation_ok = 1 AND NOT {transformer}) FROM episodes e GROUP BY 1, 2"""):
        row = got[(cond, topo)]
        assert (row["episodes"], row["failed"], row["executor_leaks"], row["transformer_leaks"]) == \
            (n, failed, exec_leaks, trans_leaks)
        assert row["passed"] == pytest.approx(100.0 * clean / n)
    total = got[("all", "all")]
    assert total["episodes"] == _sql(run, "SELECT COUNT(*) FROM episodes")[0][0]
