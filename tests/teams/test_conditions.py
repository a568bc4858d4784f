"""Every runnable condition end to end on the sim backend: contract keys, topology, isolation."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

from mustmaybe.records import EpisodeRecord
from mustmaybe.scenarios import GRADIENT, MAIN_MATRIX, find_task, get_condition, load_library
from mustmaybe.teams import build_team, episode_spec, run_episode
from mustmaybe.teams._isolation import audit, private_sentences


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)


SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}
CONTRACT_KEYS = {
    "schema", "key", "task", "task_hash", "condition", "topology", "seed", "models", "simulated",
    "reviewer_identified", "hops", "artifact", "first_break_hop", "executor", "visibility", "isolation",
    "usage", "errors", "checker_version",
}
SCORE_KEYS = {"fields", "complete", "state", "flags", "retention_score", "evidence", "unsure", "checker",
              "unverified_quotes"}
EXECUTOR_KEYS = {"action", "blocker_recognized", "rationale", "parse_ok", "action_rule", "forbidden"}
EXPECTED_TRANSFORMER_HOPS = {"direct": 0, "single": 1, "planner": 1}


def _expected_hops(topology: str, params: dict[str, int]) -> int:
    if topology == "chain":
        return params["hops"]
    if topology == "consensus":
        return params["peers"] * params["rounds"] + 1
    return EXPECTED_TRANSFORMER_HOPS[topology]


@pytest.mark.parametrize("condition", MAIN_MATRIX + GRADIENT)
def test_condition_runs_end_to_end_on_sim(condition: str) -> None:
    scenario = find_task("vendor-summary-q3")
    rec = asyncio.run(_play(scenario, condition, models=SIM, seed=3))
    body = rec.to_json_dict()
    assert CONTRACT_KEYS <= set(body)
    assert body["schema"] == "mustmaybe/episode@1" and body["simulated"] is True
    cond = get_condition(condition)
    assert body["topology"]["name"] == cond.topology
    assert len(rec.hops) == 1 + _expected_hops(rec.topology.name, rec.topology.params)
    assert [h.index for h in rec.hops] == list(range(len(rec.hops)))
    for hop in body["hops"]:
        assert SCORE_KEYS == set(hop["score"])
    assert EXECUTOR_KEYS <= set(body["executor"])
    assert rec.executor.action in {a.id for a in scenario.actions}
    assert rec.isolation.ok, rec.isolation.leaks
    assert rec.visibility["executor"], "the executor's received texts are recorded"
    assert rec.artifact.text == rec.hops[-1].text
    assert not [e for e in rec.errors if e.kind != "parse_error"], rec.errors
    if rec.first_break_hop is not None:
        assert rec.hops[rec.first_break_hop].score.state != "preserved"
        assert all(h.score.state == "preserved" for h in rec.hops[: rec.first_break_hop])


@pytest.mark.parametrize("condition", MAIN_MATRIX + GRADIENT)
def test_isolation_audit_passes_for_every_condition_on_every_task(condition: str) -> None:
    async def run_all() -> list[bool]:
        out = []
        for s in load_library():
            rec = await _play(s, condition, models=SIM, seed=1)
            out.append(rec.isolation.ok and not any(e.kind == "isolation_leak" for e in rec.errors))
        return out

    assert all(asyncio.run(run_all()))


def test_audit_finds_a_private_sentence_outside_the_artifact() -> None:
    s = find_task("vendor-summary-q3")
    secret = private_sentences(s)[1]
    leaked = audit(s, [f"Goal: x\n\nHandoff:\nfine\n\nNotes: {secret}"], ["fine"])
    assert not leaked.ok and leaked.leaks == [secret]
    # The same sentence inside the handoff artifact is the condition's business, not a leak.
    assert audit(s, [f"Handoff:\n{secret}"], [secret]).ok


def test_episode_key_is_a_digest_of_inputs() -> None:
    s = find_task("vendor-summary-q3")

    async def key(**kw: object) -> str:
        base: dict[str, object] = {"models": SIM, "seed": 1}
        base.update(kw)
        return (await _play(s, "P4", **base)).key  # type: ignore[arg-type]

    k1, k1b = asyncio.run(key()), asyncio.run(key())
    assert k1 == k1b
    assert len({k1, asyncio.run(key(seed=2)), asyncio.run(key(topology="chain:hops=2")),
                asyncio.run(key(models={**SIM, "executor": "sim:lossy"}))}) == 4


def test_twin_runs_with_resolution() -> None:
    s = find_task("vendor-summary-q3")
    rec = asyncio.run(_play(s, "twin", models=SIM, seed=1))
    assert rec.twin and rec.reviewer_identified
    assert "RESOLVED" in rec.visibility["reviewer"][1]


def test_cli_run_json_prints_the_contract_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = subprocess.run(
        [sys.executable, "-m", "mustmaybe.cli", "run", "vendor-summary-q3", "--condition", "P4", "--model", "sim",
         "--json", "--runs-dir", str(tmp_path)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    body = json.loads(res.stdout)
    assert CONTRACT_KEYS <= set(body) and body["condition"] == "P4"
    assert len(list(tmp_path.iterdir())) == 1


@pytest.mark.slow  # one CLI subprocess per bad input (about 20 s)
def test_cli_run_errors_are_clear() -> None:
    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mustmaybe.cli", "run", *a], capture_output=True, text=True,
                              check=False)

    r = run("no-such-task")
    assert r.returncode == 2 and "no such task" in r.stderr
    r = run("vendor-summary-q3", "-c", "P9")
    assert r.returncode == 2 and "unknown condition 'P9'" in r.stderr
    r = run("vendor-summary-q3", "--model", "gpt4")
    assert r.returncode == 2 and "unknown model spec 'gpt4'" in r.stderr
    r = run("vendor-summary-q3", "--model", "planner=sim")
    assert r.returncode == 2 and "unknown role 'planner'" in r.stderr
    r = run("vendor-summary-q3", "-c", "P4", "--topology", "planner")
    assert r.returncode == 2 and "cannot run under topology 'planner'" in r.stderr
