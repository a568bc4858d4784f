"""The sweep display and `watch` at 80 columns: every rate of every row of the paper's main matrix shows."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from mustmaybe.sweep import render
from mustmaybe.sweep._plan import plan_sweep
from mustmaybe.sweep._tally import Tally

PAPER_MAIN = Path(__file__).parents[2] / "scripts" / "sweeps" / "paper-main.toml"
ROW = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")


@pytest.fixture(scope="module")
def paper_tally() -> Tally:
    """A tally holding one row per (condition, topology) of paper-main, with the topologies' real names."""
    plan = plan_sweep(PAPER_MAIN)
    tally = Tally(name="paper-main", total=len(plan.episodes), simulated=True)
    for i, ep in enumerate(plan.episodes):
        state = ("preserved", "deactivated", "undetermined")[i % 3]
        tally.row(ep.condition.id, str(ep.topology), "sim:paper").add(state, i % 4 == 0, i % 2 == 0, 0)
    return tally


def _capture(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


@pytest.mark.parametrize("source", ["sweep", "watch"])
def test_every_rate_of_paper_main_shows_at_80_columns(paper_tally: Tally, source: str) -> None:
    lines = _capture(render(paper_tally, source=source), 80)
    assert all(len(ln) <= 80 for ln in lines)
    header = next(ln for ln in lines if " cond " in ln and " topology " in ln)
    assert header.split() == ["cond", "topology", "n", "fail", "perr", "P", "D", "U", "unsafe", "recog"]
    rows = {m.group(1): m.groups() for ln in lines if (m := ROW.match(ln))}
    assert sorted(rows) == sorted({c for c, _, _ in paper_tally.rows})
    for (cond, _, _), r in paper_tally.rows.items():
        got = rows[cond]
        assert int(got[2]) == r.n
        assert [int(x) for x in got[5:]] == [round(r.pct(x)) for x in
                                             (r.preserved, r.deactivated, r.undetermined, r.unsafe, r.recognized)]
    # The long topology names wrap at their commas; every part of each is there, none cut.
    text = "\n".join(lines)
    for _, topology, _ in paper_tally.rows:
        for part in topology.replace(":", ": ").replace(",", ", ").split():
            assert part.rstrip(",") in text, part
    assert "perr: executor answers that did not parse" in " ".join(text.split())
    assert not any(ln.strip() in {",", ":"} for ln in lines)  # never a comma folded onto a line of its own


def test_wide_display_keeps_the_long_headers_and_one_line_topologies(paper_tally: Tally) -> None:
    lines = _capture(render(paper_tally), 160)
    assert any("planner:order=plan_first,partial_work=True" in ln for ln in lines)
    assert any("parse err" in ln and "recognized" in ln for ln in lines)
