"""A sweep's start-up costs only what its episodes need (docs/performance.md, issue 23, third round).

The imports and the plan run with the cyclic collector paused and the episodes with it on
(mustmaybe/_collector.py); a `sweep --json` loads no rich (nothing is drawn), a sweep of real models no
simulator, and AutoGen's tool-schema helper (jsonref, with `requests`) only when a tool needs it
(agents/_deferred.py).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe import _collector

from .conftest import endpoint, run_json, write_sweep


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


# Runs `mustmaybe sweep` through the CLI's entry point in a fresh interpreter, then writes the exit code and
# which of the watched modules that interpreter had imported.
_PROBE = """
import json, sys
from mustmaybe.cli import main
code = main(sys.argv[2:])
watched = ("rich", "requests", "urllib3", "mustmaybe.sim")
jsonref = sys.modules.get("jsonref")
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "loaded": [m for m in watched if m in sys.modules],
               "jsonref": None if jsonref is None else type(jsonref).__name__}, f)
"""


def test_a_json_sweep_of_real_models_loads_no_display_simulator_or_tool_helpers(tmp_path: Path,
                                                                               fake: FakeOpenAI) -> None:
    model = f"openai:fake-model@{fake.base_url}"
    sweep = write_sweep(tmp_path / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0"],
                        roles={"reviewer": [model], "transformer": [model], "executor": [model]},
                        endpoints=[endpoint(fake)])
    out = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(out), "sweep", str(sweep), "--out",
                           str(tmp_path / "run"), "--json", "--no-cache"], capture_output=True, text=True, timeout=120)
    assert out.exists(), f"probe did not finish (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    summary = json.loads(proc.stdout)
    assert summary["done"] == 1 and summary["failed"] == 0, summary
    # jsonref is bound (AutoGen imported it) but its body, and requests with it, never ran.
    assert result == {"code": 0, "loaded": [], "jsonref": "_RunsOnFirstUse"}
