"""Every main-matrix condition and G0–G4 end to end on a real LLM: in process (`local`) and through
AutoGen's OpenAI client against llama.cpp's OpenAI-compatible server started on localhost."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mustmaybe.records import EndpointConfig, EpisodeRecord, RoleParams
from mustmaybe.scenarios import GRADIENT, MAIN_MATRIX, find_task
from mustmaybe.teams import build_team, episode_spec, run_episode


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)


pytestmark = pytest.mark.local

# Short answers keep 19 conditions × 2 backends to a few minutes on 2 cores.
PARAMS = {r: RoleParams(temperature=0.2, max_tokens=40, timeout_s=60) for r in ("reviewer", "transformer")}
PARAMS["executor"] = RoleParams(temperature=0.0, max_tokens=128, timeout_s=60)


def _check(rec: EpisodeRecord, condition: str) -> None:
    assert rec.condition == condition and not rec.simulated
    assert rec.hops and rec.hops[0].sender == "reviewer"
    assert rec.usage["reviewer"].calls == 1 and rec.usage["executor"].calls == 1
    assert rec.usage["executor"].completion_tokens > 0
    assert rec.isolation.ok, rec.isolation.leaks
    # A weak model may answer badly; that is flagged, never a crash or a missing record.
    assert rec.executor.action in {a.id for a in find_task(rec.task).actions}
    assert all(e.kind in ("parse_error",) for e in rec.errors), rec.errors


def test_every_condition_on_the_local_model() -> None:
    scenario = find_task("vendor-summary-q3")

    async def run_all() -> list[EpisodeRecord]:
        local = {"reviewer": "local", "transformer": "local", "executor": "local"}
        return [await _play(scenario, c, models=local, seed=7, params=PARAMS) for c in MAIN_MATRIX + GRADIENT]

    records = asyncio.run(run_all())
    for c, rec in zip(MAIN_MATRIX + GRADIENT, records, strict=True):
        _check(rec, c)
    # Grammar-constrained JSON: the local executor's answers parse.
    assert sum(r.executor.parse_ok for r in records) == len(records)


def test_every_condition_through_the_openai_client_on_llama_server(llama_server: str) -> None:
    scenario = find_task("vendor-summary-q3")
    spec = f"openai:smollm2@{llama_server}"
    endpoints = {llama_server: EndpointConfig(base_url=llama_server, structured_output="json_object_schema",
                                              timeout_s=60, max_retries=1)}

    async def run_all() -> list[EpisodeRecord]:
        models = {"reviewer": spec, "transformer": spec, "executor": spec}
        return [await _play(scenario, c, models=models, seed=7, params=PARAMS, endpoints=endpoints)
                for c in MAIN_MATRIX + GRADIENT]

    records = asyncio.run(run_all())
    for c, rec in zip(MAIN_MATRIX + GRADIENT, records, strict=True):
        _check(rec, c)
        assert rec.models["executor"] == spec
    assert sum(r.executor.parse_ok for r in records) == len(records)
