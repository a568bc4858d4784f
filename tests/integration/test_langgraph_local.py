"""The LangGraph substrate on the embedded SmolLM2 model: same prompts, same answers, same store and report.

One short P4 episode per substrate (a faithful sim reviewer states the blocker, as `make demo` does; the
real model writes the handoff and acts). llama.cpp is seeded, so identical inputs give identical answers:
the two records must agree text for text, and the transport table compares them from the store.
"""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest

from mustmaybe.analysis import build_report
from mustmaybe.records import EpisodeRecord, RoleParams
from mustmaybe.scenarios import find_task
from mustmaybe.store import load_run_episodes, write_single_run
from mustmaybe.teams import build_team, episode_spec, run_episode

pytestmark = pytest.mark.local


def test_p4_on_both_substrates_with_the_embedded_model(tmp_path: Path) -> None:
    scenario = find_task("vendor-summary-q3")
    models = {"reviewer": "sim:faithful", "transformer": "local", "executor": "local"}
    params = {r: RoleParams(max_tokens=48) for r in ("reviewer", "transformer", "executor")}

    async def both() -> list[EpisodeRecord]:
        out = []
        for substrate in ("autogen", "langgraph"):
            spec = episode_spec(scenario, "P4", models=models, seed=1, params=params, substrate=substrate)
            out.append(await run_episode(build_team(spec), spec))
        return out

    a, lg = asyncio.run(both())
    assert not a.failed and not lg.failed, (a.errors, lg.errors)
    assert lg.substrate == "langgraph" and lg.simulated  # the sim reviewer marks the episode simulated
    assert lg.usage["transformer"].calls == 1 and lg.usage["executor"].calls == 1
    assert lg.visibility == a.visibility and [h.text for h in lg.hops] == [h.text for h in a.hops]
    assert lg.executor.raw == a.executor.raw and lg.isolation.ok
    run = write_single_run(tmp_path / "run", [a, lg], scenario, command=["test"])
    stored = list(load_run_episodes(run))
    assert {r.substrate for r in stored} == {"autogen", "langgraph"}
    build_report(stored, tmp_path / "report", resamples=20, figures=False)
    with (tmp_path / "report" / "tables" / "transport.csv").open() as f:
        rows = {r["substrate"]: r for r in csv.DictReader(f)}
    assert rows["autogen"]["n"] == rows["langgraph"]["n"] == "1" and rows["langgraph"]["vs"] == "autogen"
    assert float(rows["langgraph"]["dP"]) == 0.0 and float(rows["langgraph"]["dY"]) == 0.0
