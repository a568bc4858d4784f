"""A finished episode is freed by reference counting: no AutoGen object of it waits for the cyclic collector.

Run with the collector off, an episode's runtime, team, agents and model clients must be gone the moment
the last reference to them goes (teams/_release.py empties the runtime's agent registries; the retry
layer makes a first attempt that succeeds without tenacity's cyclic retry objects, agents/_retry.py).
If AutoGen or tenacity change how they hold these objects, this fails and says which are left.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mustmaybe.records import EpisodeRecord
from mustmaybe.scenarios import find_task
from mustmaybe.teams import build_team, episode_spec, run_episode
from mustmaybe.teams._release import release_runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the shared fake server
from fakes.fake_openai import FakeOpenAI

TASK = "vendor-summary-q3"


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _play(models: dict[str, str], condition: str = "G2") -> tuple[EpisodeRecord, dict[str, weakref.ref[Any]]]:
    async def play() -> tuple[EpisodeRecord, dict[str, weakref.ref[Any]]]:
        spec = episode_spec(find_task(TASK), condition, models=models, seed=1)
        team = build_team(spec)
        refs: dict[str, weakref.ref[Any]] = {"runtime": weakref.ref(team.runtime),
                                             "team": weakref.ref(team.plan.team)}
        refs.update({f"agent {p.name}": weakref.ref(p) for p in team.plan.participants})
        refs.update({f"client {name}": weakref.ref(c) for name, c in team.clients.items()})
        refs.update({f"retrying client {name}": weakref.ref(c.retrying) for name, c in team.clients.items()
                     if c.retrying is not None})
        return await run_episode(team, spec), refs

    return asyncio.run(play())


def _alive(refs: dict[str, weakref.ref[Any]]) -> list[str]:
    return [name for name, ref in refs.items() if ref() is not None]


@pytest.mark.usefixtures("collector_off")
def test_an_episode_over_http_leaves_nothing_for_the_collector() -> None:
    with FakeOpenAI() as srv:
        model = f"openai:fake-model@{srv.base_url}"
        record, refs = _play(dict.fromkeys(("reviewer", "transformer", "executor"), model))
    assert not record.failed and len(record.hops) == 2
    assert any(name.startswith("retrying") for name in refs)
    assert _alive(refs) == []


@pytest.mark.usefixtures("collector_off")
def test_a_retried_call_still_counts_and_the_episode_is_freed() -> None:
    """The reviewer's first attempt fails (a 500) and is retried through tenacity: counted as before."""
    with FakeOpenAI(retry_after="0") as srv:
        models = {"reviewer": f"openai:flaky-500@{srv.base_url}", "transformer": f"openai:fake-model@{srv.base_url}",
                  "executor": f"openai:fake-model@{srv.base_url}"}
        record, refs = _play(models)
    assert not record.failed
    assert record.usage["reviewer"].calls == 1
    # A retried call's exception holds its frames, so some of them may wait for the collector; the runtime may not.
    assert refs["runtime"]() is None and refs["team"]() is None


@pytest.mark.usefixtures("collector_off")
def test_a_sim_episode_leaves_nothing_for_the_collector() -> None:
    record, refs = _play(dict.fromkeys(("reviewer", "transformer", "executor"), "sim"), condition="P4")
    assert record.hops
    assert _alive(refs) == []


def test_only_an_autogen_runtime_is_released() -> None:
    class StandIn:  # LangGraph's stand-in has start/stop only
        def __init__(self) -> None:
            self._agent_factories: dict[str, Any] = {"x": object()}
            self._instantiated_agents: dict[str, Any] = {}

    stand_in = StandIn()
    assert release_runtime(stand_in) is False
    assert stand_in._agent_factories
