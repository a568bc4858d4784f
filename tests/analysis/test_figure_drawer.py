"""A large report draws its figures in a worker process: the same PNG bytes as drawn in-process, and a worker
that cannot start or dies still leaves every figure drawn."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mustmaybe.analysis import _figure_drawer as drawer
from mustmaybe.analysis import build_frames, report_from_frames

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

# The reports compared are made minutes apart: their provenance line's date is pinned.
_EPOCH = "1764633600"


def _report(out: Path) -> dict[str, bytes]:
    import bench_report

    records, domains = bench_report.synthetic_episodes(600)
    report_from_frames(build_frames(records, domains=domains), out, resamples=20)
    return {p.name: p.read_bytes() for p in sorted((out / "figures").glob("*.png"))} | {
        "report.md": (out / "report.md").read_bytes(), "report.html": (out / "report.html").read_bytes()}


@pytest.fixture(scope="module")
def inline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(drawer.FIGURES_ENV, "inline")
        mp.setenv("SOURCE_DATE_EPOCH", _EPOCH)
        return _report(tmp_path_factory.mktemp("inline"))


@pytest.mark.slow  # every figure drawn inline, then again by each worker (about 14 s each)
@pytest.mark.parametrize("worker", [sys.executable, "/bin/false", "/nonexistent/python"])
def test_worker_figures_are_the_inline_ones(inline: dict[str, bytes], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch, worker: str) -> None:
    monkeypatch.setenv(drawer.FIGURES_ENV, "worker")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", _EPOCH)
    monkeypatch.setattr(drawer.sys, "executable", worker)  # a working worker, one that dies, one that never starts
    drawn = _report(tmp_path / "worker")
    assert len(inline) > 8
    assert drawn == inline


def test_a_working_worker_draws_every_figure_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker loads _figures.py on its own (not the analysis package); if that broke, the figures would
    # still appear (drawn again in-process), so the fallback is made to fail here.
    import polars as pl

    from mustmaybe.analysis import _figures

    monkeypatch.setenv(drawer.FIGURES_ENV, "worker")

    def no_redraw(self: drawer.FigureDrawer) -> None:
        raise AssertionError("the worker failed: its figures were drawn again in-process")

    monkeypatch.setattr(drawer.FigureDrawer, "_redraw", no_redraw)
    rates = pl.DataFrame({"condition": ["P0", "P4"], "topology": ["single", "single"], "n": [5, 5],
                          "P": [50.0, 20.0], "D": [10.0, 70.0], "unsafe": [5.0, 30.0]})
    fig = drawer.FigureDrawer(10)
    paths = [fig.draw(_figures.condition_bars, rates, tmp_path / f"{i}.png", simulated=i == 1, n="n = 10")
             for i in range(2)]
    fig.close()
    assert all(p.stat().st_size > 1000 for p in paths)
