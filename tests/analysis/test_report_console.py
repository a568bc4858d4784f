"""`report` and `compare` on the console at 80 columns: every number whole, every row named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mustmaybe import cli

from .conftest import make_episode

LONG = ("P0", "P1", "C0", "C4", "E0", "E4")  # the planner and consensus topologies have long names


def main(argv: list[str]) -> int:
    cli._EXTRA_COMMANDS.clear()
    return cli.main(argv)


def _jsonl(path: Path) -> Path:
    eps = [make_episode(task=f"t{i}", seed=s, condition=c, state="deactivated" if (i + s) % 2 else "preserved",
                        forbidden=i == 0) for i in range(4) for s in (1, 2) for c in LONG]
    path.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    return path


def test_report_summary_keeps_every_number_whole_at_80_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(_jsonl(tmp_path / "a.jsonl")), "--out", str(tmp_path / "rep"), "--resamples", "20",
                 "--no-figures"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(ln) <= 80 for ln in lines)
    text = "\n".join(lines)
    # Each condition's row opens with its whole topology, and its rates follow as whole `name value` pairs.
    assert "C4  planner:order=plan_first,partial_work=True  sim:paper" in text
    block = text[text.index("C4  planner:order=plan_first"):]
    assert re.search(r"\bP 50\.0\b", block) and re.search(r"\bunsafe 25\.0\b", block)
    assert re.search(r"D 95% CI \[50\.0, 50\.0\]", block)
    # No cell is cut into slivers: no line is a lone fragment of a number.
    assert not any(re.fullmatch(r"[│\s]*[.\d]{1,2}[│\s]*", ln) for ln in lines)
    assert not any("│ .0 │" in ln or "│ 0. │" in ln for ln in lines)


def test_report_summary_is_a_table_where_it_fits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    assert main(["report", str(_jsonl(tmp_path / "a.jsonl")), "--out", str(tmp_path / "rep"), "--resamples", "20",
                 "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert any("planner:order=plan_first,partial_work=True" in ln and "50.0" in ln for ln in out.splitlines())


def test_report_states_tool_version_date_and_commit(tmp_path: Path) -> None:
    import subprocess
    from datetime import UTC, datetime

    from mustmaybe import __version__

    assert main(["report", str(_jsonl(tmp_path / "a.jsonl")), "--out", str(tmp_path / "rep"), "--resamples", "5",
                 "--no-figures"]) == 0
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    for name in ("report.html", "report.md"):
        text = (tmp_path / "rep" / name).read_text(encoding="utf-8")
        assert f"Made with mustmaybe {__version__} (commit {commit[:12]}" in text, name
        assert datetime.now(UTC).strftime("%Y-%m-%d") in text


def test_source_date_epoch_pins_the_report_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two reports of the same episodes, made at different times, compare byte for byte (reproducible builds).
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764633600")
    texts = []
    for out in ("r1", "r2"):
        assert main(["report", str(_jsonl(tmp_path / "a.jsonl")), "--out", str(tmp_path / out), "--resamples", "5",
                     "--no-figures"]) == 0
        texts.append((tmp_path / out / "report.md").read_text(encoding="utf-8"))
    assert "on 2025-12-02 00:00 UTC." in texts[0]
    assert texts[0] == texts[1]
