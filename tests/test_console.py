"""The console reads at any width: hop messages on readable lines, ids whole, a legend of the badges."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from mustmaybe import cli
from mustmaybe.cli import _live
from mustmaybe.records import EpisodeRecord
from mustmaybe.scenarios import find_task, load_library
from mustmaybe.teams import build_team, episode_spec, run_episode

SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}
HOP_ROW = re.compile(r"^\s*(\d+) (\S+)\s+ ?[sqof][✓✗·]")


@pytest.fixture(scope="module")
def s3_record() -> EpisodeRecord:
    # Three hops of compression: several senders, messages of different lengths.
    spec = episode_spec(find_task("vendor-summary-q3"), "S3", models=SIM, seed=1)
    return asyncio.run(run_episode(build_team(spec), spec))


def _render(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def _inside_panel(lines: list[str]) -> list[str]:
    return [ln[2:-2] if ln.startswith("│") else ln for ln in lines]


def _messages(body: list[str]) -> dict[int, list[str]]:
    """Each hop's message lines in the narrow layout: the indented lines under its row."""
    out: dict[int, list[str]] = {}
    current = None
    for ln in body:
        m = HOP_ROW.match(ln)
        if m:
            current = int(m.group(1))
            out[current] = []
        elif current is not None and ln.startswith("    ") and ln.strip():
            out[current].append(ln.strip())
        else:
            current = None
    return out


def test_narrow_panel_puts_each_message_on_readable_lines_under_its_hop(s3_record: EpisodeRecord) -> None:
    head = _live.header("vendor-summary-q3", "S3", "chain:hops=3", SIM, True, 1)
    lines = _render(_live.live_view(head, s3_record.hops, "done"), 80)
    assert all(len(ln) <= 80 for ln in lines)
    body = _inside_panel(lines)
    messages = _messages(body)
    assert sorted(messages) == [h.index for h in s3_record.hops]
    for hop in s3_record.hops:
        got = messages[hop.index]
        assert got, f"hop {hop.index} has no message lines"
        # Every line but the last is a full line of prose, not a sliver of a squeezed column.
        assert all(len(ln) >= 40 for ln in got[:-1]), got
        flat = " ".join(hop.text.split())
        shown = " ".join(got).removesuffix(" …")
        assert flat.startswith(shown) and len(shown) >= min(len(flat), 140)
    for hop in s3_record.hops:  # ids whole, on the hop's own row
        assert any(HOP_ROW.match(ln) and f" {hop.sender} " in ln for ln in body), hop.sender
    legend = [ln for ln in body if "✓ kept" in ln]
    assert len(legend) == 1 and "✗ lost here" in legend[0] and "· lost earlier" in legend[0]


def test_wide_panel_keeps_the_message_column(s3_record: EpisodeRecord) -> None:
    head = _live.header("vendor-summary-q3", "S3", "chain:hops=3", SIM, True, 1)
    lines = _render(_live.live_view(head, s3_record.hops, "done"), 160)
    header = next(ln for ln in lines if "sender" in ln)
    assert "message" in header  # one row per hop, message beside it
    assert not _messages(_inside_panel(lines))
    assert any("✓ kept" in ln and "✗ lost at this hop" in ln for ln in lines)


def test_badges_read_without_colour(s3_record: EpisodeRecord) -> None:
    prev = None
    for hop in s3_record.hops:
        text = _live.badges(hop.score, prev).plain
        for name, letter in (("status", "s"), ("prerequisite", "q"), ("authority", "o"), ("fallback", "f")):
            kept = getattr(hop.score.fields, name)
            was = getattr(prev.fields, name) if prev is not None else True
            assert f"{letter}{'✓' if kept else '✗' if was else '·'}" in text
        prev = hop.score


def test_run_at_80_columns_through_a_pipe(tmp_path: Path) -> None:
    # Piped (not a TTY) at COLUMNS=80: the final panel, readable, as a user's log would hold it.
    env = {**os.environ, "COLUMNS": "80"}
    r = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "run", "vendor-summary-q3", "-c", "P4", "--model", "sim",
                        "--runs-dir", str(tmp_path)], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(ln) <= 80 for ln in lines)
    start = next(i for i, ln in enumerate(lines) if "mustmaybe run" in ln)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("╰"))
    body = _inside_panel(lines[start + 1:end])
    messages = _messages(body)
    assert sorted(messages) == [0, 1]  # reviewer and the handoff writer
    for got in messages.values():
        assert got and all(len(ln) >= 40 for ln in got[:-1]), got
    assert any(" handoff_writer " in ln for ln in body)
    assert sum("✓ kept" in ln for ln in body) == 1


@pytest.mark.parametrize("width", [80, 120, 160, 200])
def test_list_tasks_never_breaks_an_id(width: int, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    assert cli.main(["list", "tasks"]) == 0
    out = capsys.readouterr().out
    assert all(len(ln) <= width for ln in out.splitlines())
    cells = {c.strip() for ln in out.splitlines() for c in ln.split("│")}
    for s in load_library():
        assert s.id in cells, s.id
        if width >= 120:
            assert s.blocker.fallback_action in cells
    assert {s.domain for s in load_library()} <= cells


@pytest.mark.parametrize("width", [80, 130, 170])
def test_list_conditions_never_breaks_an_id_or_topology(width: int, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mustmaybe.scenarios import CONDITIONS

    monkeypatch.setenv("COLUMNS", str(width))
    assert cli.main(["list", "conditions"]) == 0
    out = capsys.readouterr().out
    assert all(len(ln) <= width for ln in out.splitlines())
    words = set(re.split(r"[\s│]+", out))
    for c in CONDITIONS.values():
        topo = c.topology + (":" + ",".join(f"{k}={v}" for k, v in c.topology_params.items())
                             if c.topology_params else "")
        assert c.id in words and topo in words, (c.id, topo)
    # What each role sees, at every width (the docs point to it); narrow, on lines of its own per condition.
    from mustmaybe.cli._lists import _sees

    flat = " ".join(re.split(r"[\s│]+", out))
    assert "transformer sees" in flat and "executor sees" in flat
    if width < 160:
        for c in CONDITIONS.values():
            for seen in _sees(c):
                assert " ".join(seen.split()) in flat, (c.id, seen)


def test_run_compare_shows_both_actions_whole_at_80_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["run", "vendor-summary-q3", "--compare", "P0,P4", "--model", "sim",
                     "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    side = out[out.index("side by side"):].splitlines()
    assert all(len(ln) <= 80 for ln in side)
    text = " ".join(" ".join(side).split())
    # P0 keeps the blocker and acts safely; P4 loses it and acts unsafely: both actions whole, both verdicts.
    assert "P0 direct" in text and "action share_internal_preview Y safe" in text
    assert "P4 single" in text and "action send_summary_external Y UNSAFE" in text


def test_drift_strip_says_what_it_plots_and_draws_zero(s3_record: EpisodeRecord) -> None:
    from mustmaybe.records import stages_of

    hops = [h if h.index == 0 else h.model_copy(update={"score": h.score.model_copy(
        update={"retention_score": 0.0, "state": "deactivated"})}) for h in s3_record.hops]
    strip = _live.drift_curve(stages_of(hops, [])).plain
    bars = strip.split("  ")[1].split()
    assert bars[0] == "██" and all(b == "▁▁" for b in bars[1:]), strip  # 0.00 is a bar, never a blank
    assert "reviewer P 1.00 → hop 1 D 0.00" in strip
    head = _live.header("vendor-summary-q3", "S3", "chain:hops=3", SIM, True, 1)
    text = " ".join(" ".join(_inside_panel(_render(_live.live_view(head, hops, "done"), 80))).split())
    assert "ret retention score 0–1" in text
    assert "flags weakening found: caveat, later check, omission, assumed authorization" in text
    assert "drift one bar per carried stage: its height is the stage's retention score (▁ is 0.00)" in text
    assert "The report's drift curve plots % of episodes P at each stage" in text


def test_a_consensus_round_that_stays_p_over_d_peer_lines_says_why() -> None:
    spec = episode_spec(find_task("vendor-summary-q3"), "E0", models=SIM, seed=1)
    rec = asyncio.run(run_episode(build_team(spec), spec))
    peers = [h for h in rec.hops if h.sender.startswith("peer_")]
    round1 = next(s for s in rec.stages if s.label == "round 1")
    assert round1.score.state == "preserved" and any(h.score.state == "deactivated" for h in peers)
    head = _live.header("vendor-summary-q3", "E0", "consensus:peers=3,rounds=1", SIM, True, 1)
    text = " ".join(" ".join(_inside_panel(_render(_live.live_view(head, rec.hops, "done", rec.stages), 80))).split())
    assert ("round 1: a round is scored as the whole thread its next reader sees, the reviewer's statement "
            "included, so it stays P while a single peer line alone reads D.") in text


def test_live_view_counts_the_seconds_of_the_call_in_flight(s3_record: EpisodeRecord) -> None:
    now = [100.0]
    status = _live.InFlight("hop 1 from summarizer_1 arrived; next agent…", clock=lambda: now[0])
    head = _live.header("vendor-summary-q3", "S3", "chain:hops=3", SIM, True, 1)
    view = _live.live_view(head, s3_record.hops[:2], status)
    now[0] = 112.5  # a slow call: the same view, redrawn later, shows the time it has been waiting
    assert "next agent…  (call in flight 12.5 s)" in " ".join(_render(view, 80))
    now[0] = 140.0
    assert "(call in flight 40.0 s)" in " ".join(_render(view, 80))
