"""The LangGraph substrate runs the same agents as AutoGen: same model inputs, same records, same audit.

Every topology is run on both substrates with the same spec on the sim (whose answer depends only on what
its model receives), and the two records are compared message by message: if a LangGraph layout drifted
from its AutoGen builder (a prompt, a view, the speaking order), the texts a model received would differ.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mustmaybe.records import EpisodeRecord, SubstrateError
from mustmaybe.scenarios import find_task
from mustmaybe.teams import build_team, episode_spec, run_episode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared fake endpoint (tests/fakes)
from fakes.fake_openai import FakeOpenAI

SIM = {r: "sim:paper" for r in ("reviewer", "transformer", "executor")}
CASES = [
    ("P0", None), ("P4", None), ("S3", None), ("S4", None), ("C4", None),  # Table 21's conditions
    ("C0", None), ("C5", None), ("E4", None), ("P3", None), ("P4", "consensus:peers=2,rounds=2"),
    ("W", "chain:hops=2"), ("W", "planner"), ("R-all", None), ("P5", "chain:hops=2"),
]


def _pair(condition: str, topology: str | None, seed: int, task: str = "vendor-summary-q3",
          models: dict[str, str] | None = None, wording: str = "base") -> tuple[EpisodeRecord, EpisodeRecord]:
    scenario = find_task(task)

    async def both() -> tuple[EpisodeRecord, EpisodeRecord]:
        out = []
        for substrate in ("autogen", "langgraph"):
            spec = episode_spec(scenario, condition, models=models or SIM, seed=seed, topology=topology,
                                substrate=substrate, wording=wording)
            out.append(await run_episode(build_team(spec), spec))
        return out[0], out[1]

    return asyncio.run(both())


@pytest.mark.parametrize(("condition", "topology"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_model_receives_what_it_receives_on_autogen(condition: str, topology: str | None, seed: int) -> None:
    a, lg = _pair(condition, topology, seed)
    assert lg.substrate == "langgraph" and a.substrate == "autogen"
    assert lg.team_config is not None and a.team_config is not None
    assert lg.team_config["substrate"] == "langgraph" and lg.team_config["team"] == "CompiledStateGraph"
    # The same agents: names, roles, models, parameters, system prompts and views, in the same order.
    assert lg.team_config["agents"] == a.team_config["agents"]
    assert lg.team_config["order"] == a.team_config["order"]
    # Each role's model received exactly the same texts, and the sidecar scored the same messages.
    assert lg.visibility == a.visibility
    assert [(h.sender, h.role, h.text, h.score) for h in lg.hops] == [(h.sender, h.role, h.text, h.score)
                                                                     for h in a.hops]
    assert lg.stages == a.stages and lg.artifact == a.artifact and lg.executor == a.executor
    assert lg.isolation == a.isolation and lg.isolation.ok
    assert [e.kind for e in lg.errors] == [e.kind for e in a.errors]
    assert lg.gate == a.gate and lg.repair == a.repair
    assert lg.key != a.key  # another substrate is another episode


@pytest.mark.parametrize(("condition", "topology"), [("P4", None), ("S3", None), ("E4", None), ("C4", None)])
def test_a_paraphrase_wording_reads_the_same_on_both_substrates(condition: str, topology: str | None) -> None:
    # The paraphrase panel's reworded prompts and task text reach every LangGraph node as they reach the
    # AutoGen agents; the checker keeps the task's own view on both.
    a, lg = _pair(condition, topology, 1, wording="p1")
    assert a.wording is not None and lg.wording == a.wording and a.wording.id == "p1"
    assert lg.team_config is not None and a.team_config is not None
    assert lg.team_config["agents"] == a.team_config["agents"]
    assert lg.visibility == a.visibility
    assert [(h.sender, h.text, h.score) for h in lg.hops] == [(h.sender, h.text, h.score) for h in a.hops]
    base, _ = _pair(condition, topology, 1)
    assert base.visibility["reviewer"] != a.visibility["reviewer"]  # the wording was read


def test_the_default_substrate_leaves_keys_and_records_as_they_were() -> None:
    scenario = find_task("vendor-summary-q3")
    spec = episode_spec(scenario, "P4", models=SIM, seed=1)
    inputs = spec.inputs()
    assert "substrate" not in inputs  # the key's body is what it was before substrates existed
    assert spec.key == hashlib.sha256(json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    lg = episode_spec(scenario, "P4", models=SIM, seed=1, substrate="langgraph")
    assert lg.inputs() == {**inputs, "substrate": "langgraph"}
    a, g = _pair("P4", None, 1)
    dumped = a.model_dump_json(by_alias=True)
    assert '"substrate"' not in dumped and "substrate" not in a.to_json_dict()
    assert EpisodeRecord.model_validate_json(dumped).model_dump_json(by_alias=True) == dumped
    assert g.to_json_dict()["substrate"] == "langgraph"
    assert EpisodeRecord.model_validate_json(g.model_dump_json(by_alias=True)).substrate == "langgraph"


def test_the_isolation_audit_reads_what_the_langgraph_executor_received() -> None:
    scenario = find_task("vendor-summary-q3")
    spec = episode_spec(scenario, "P4", models=SIM, seed=1, substrate="langgraph")
    team = build_team(spec)
    private = next(s for s in scenario.full_context.split(". ") if len(s.split()) >= 6 and s not in scenario.goal)
    # An executor that was shown part of the full record: the audit must find it in what its model received.
    team.executor.agent.system_message += "\n" + private  # type: ignore[attr-defined]
    rec = asyncio.run(run_episode(team, spec))
    assert not rec.isolation.ok
    assert any(leak.rstrip(".") in private or private in leak for leak in rec.isolation.leaks)
    clean = episode_spec(scenario, "P4", models=SIM, seed=1, substrate="langgraph")
    ok = asyncio.run(run_episode(build_team(clean), clean))
    assert ok.isolation.ok and len(ok.visibility["executor"]) == 2  # the system prompt and the handoff task
    assert ok.artifact.text in ok.visibility["executor"][1]


def test_an_openai_compatible_endpoint_gets_the_same_requests_on_both_substrates() -> None:
    with FakeOpenAI() as fake:
        models = {r: f"openai:fake-model@{fake.base_url}" for r in ("reviewer", "transformer", "executor")}
        a, lg = _pair("S3", None, 1, models=models)
        stats = fake.stats()
    assert not a.failed and not lg.failed
    assert stats["requests"] == 10  # reviewer, three summarizers, executor; twice
    # Byte-identical request bodies (sorted JSON): every LangGraph call repeats its AutoGen twin.
    assert stats["distinct_bodies"] == 5 and stats["duplicate_bodies"] == 5
    assert lg.visibility == a.visibility and lg.executor.action == a.executor.action


@pytest.mark.slow  # waits out the failing call's retries (about 10 s)
def test_a_failed_call_on_langgraph_is_a_failed_episode() -> None:
    with FakeOpenAI() as fake:
        scenario = find_task("vendor-summary-q3")
        models = {**SIM, "transformer": f"openai:fault-500@{fake.base_url}"}
        spec = episode_spec(scenario, "S3", models=models, seed=1, substrate="langgraph")
        rec = asyncio.run(run_episode(build_team(spec), spec))
    assert rec.failed and rec.executor.action is None and rec.executor.forbidden is None
    err = rec.errors[0]
    assert err.role == "transformer" and err.where == "summarizer_1" and err.kind == "http_500"
    assert err.endpoint == fake.base_url and rec.artifact.score is None


def test_unknown_substrate_is_one_clear_error() -> None:
    scenario = find_task("vendor-summary-q3")
    with pytest.raises(SubstrateError, match=r"unknown substrate 'crewai'; known: autogen, langgraph"):
        episode_spec(scenario, "P4", models=SIM, substrate="crewai")


def _cli_without_langgraph(*argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process where LangGraph cannot be imported (as when the extra is not installed)."""
    code = ("import sys; sys.modules['langgraph'] = None; sys.modules['langgraph.graph'] = None\n"
            "from mustmaybe.cli import main; sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)


def test_a_missing_extra_is_one_line(tmp_path: object) -> None:
    run = _cli_without_langgraph("run", "vendor-summary-q3", "-c", "P4", "--model", "sim", "--substrate",
                                 "langgraph", "--runs-dir", str(tmp_path))
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    assert "--substrate langgraph" in lines[0] and "pip install 'mustmaybe[langgraph]'" in lines[0]
