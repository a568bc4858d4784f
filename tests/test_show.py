"""`mustmaybe show RUN [EPISODE]`: one episode whole, nothing cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.store import RunStore


def _main(*argv: str) -> int:
    cli._EXTRA_COMMANDS.clear()
    return cli.main(list(argv))


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


@pytest.fixture(scope="module")
def consensus_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    assert _main("run", "vendor-summary-q3", "-c", "E0", "--model", "sim", "--json", "--runs-dir", str(runs)) == 0
    [run] = list(runs.iterdir())
    return run


def test_show_prints_one_episode_whole(consensus_run: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    assert _main("show", str(consensus_run)) == 0  # the only episode: shown without naming it
    out = capsys.readouterr().out
    assert all(len(ln) <= 80 for ln in out.splitlines())
    flat = _flat(out)
    with RunStore(consensus_run, readonly=True) as store:
        [rec] = list(store.records())
    assert "…" not in out.replace("thread its next reader sees", "")  # nothing shortened
    for hop in rec.hops:  # every message in full, under its sender, with its score and every evidence span
        assert f"hop {hop.index} · {hop.sender} ({hop.role})" in flat
        assert _flat(hop.text) in flat
        assert f"ret {hop.score.retention_score:.2f}" in flat
        for key, spans in hop.score.evidence.items():
            for sp in spans:
                assert _flat(f'evidence {key} [{sp.start}:{sp.end}] "{sp.text}"') in flat
    for role, texts in rec.visibility.items():  # who saw what: every text each role received
        assert f"{role} · text {len(texts)} of {len(texts)}" in flat
        for text in texts:
            assert _flat(text) in flat
    assert _flat(rec.executor.raw) in flat and _flat(rec.executor.rationale) in flat
    assert "round 1 P preserved ret 1.00 hops 0, 1, 2, 3" in flat
    assert "a round is scored as the whole thread its next reader sees" in flat
    assert "outcome · E0" in flat and "request_vrr_approval" in flat


def test_show_lists_and_picks_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main("run", "vendor-summary-q3", "--compare", "P0,P4", "--model", "sim", "--json",
                 "--runs-dir", str(tmp_path)) == 0
    [run] = list(tmp_path.iterdir())
    capsys.readouterr()
    assert _main("show", str(run)) == 0
    listing = _flat(capsys.readouterr().out)
    assert "2 episodes" in listing and "P0" in listing and "P4" in listing
    assert _main("show", str(run), "2", "--json") == 0
    second = json.loads(capsys.readouterr().out)
    assert second["condition"] == "P4"
    assert _main("show", str(run), second["key"][:10], "--json") == 0
    assert json.loads(capsys.readouterr().out)["key"] == second["key"]
    assert _main("show", str(run), "zzz") == 2
    assert "no episode has that number" in capsys.readouterr().err
    assert _main("show", str(tmp_path / "nope")) == 2
