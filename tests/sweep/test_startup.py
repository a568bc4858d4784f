"""A sweep's start-up costs only what its episodes need (docs/performance.md, issue 23, third round).

The imports and the plan run with the cyclic collector paused and the episodes with it on
(mustmaybe/_collector.py).
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from mustmaybe import _collector

from .conftest import run_json, write_sweep


def test_the_pause_turns_the_collector_off_and_back_on() -> None:
    assert gc.isenabled()
    with _collector.startup_paused():
        assert not gc.isenabled()
        with _collector.startup_paused():  # nested: the outer one owns the pause
            assert not gc.isenabled()
        assert not gc.isenabled()
        _collector.resume()  # the episodes' runtime ends it early
        assert gc.isenabled()
        gc.disable()  # what the block does after resume() is its own business
        gc.enable()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), _collector.startup_paused():
        raise RuntimeError("an error in the start-up")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with _collector.startup_paused():
            _collector.resume()
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_sweep_plans_with_the_collector_off_and_runs_its_episodes_with_it_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from mustmaybe import sweep as sweep_pkg
    from mustmaybe.sweep import _runner

    seen: dict[str, list[bool]] = {"plan": [], "episode": []}
    plan_sweep, run_one = sweep_pkg.plan_sweep, _runner.SweepRunner.run_one

    def planning(*a: Any, **kw: Any) -> Any:
        seen["plan"].append(gc.isenabled())
        return plan_sweep(*a, **kw)

    async def episode(self: Any, ep: Any) -> None:
        seen["episode"].append(gc.isenabled())
        await run_one(self, ep)

    monkeypatch.setattr(sweep_pkg, "plan_sweep", planning)
    monkeypatch.setattr(_runner.SweepRunner, "run_one", episode)
    sweep = write_sweep(tmp_path / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0", "P4"])
    code, summary = run_json(capsys, "sweep", str(sweep), "--out", str(tmp_path / "run"), "--json")
    assert code == 0, summary
    assert seen == {"plan": [False], "episode": [True, True]}
    assert gc.isenabled() and gc.get_freeze_count() == 0  # nothing of the sweep's left frozen

    # A dry run ends before any episode: the collector is back on, nothing frozen.
    code, _ = run_json(capsys, "sweep", str(sweep), "--dry-run", "--json")
    assert code == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
