"""A user's own AutoGen team (`--topology team:PATH.json`) as the transformation stage.

Teams are built in Python with AutoGen's classes and dumped with `dump_component()` (_user_teams.py),
then run by `mustmaybe run` and `mustmaybe sweep` on the sim, with their own clients and with
`--model transformer=…`; code and tools are refused without --trust-components; the record keeps the
config (no key) and the key digests it; one of our topologies exports and runs back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _user_teams import OWN_REPLY, TEAMS, write_teams
from autogen_agentchat.agents import AssistantAgent, CodeExecutorAgent
from autogen_agentchat.conditions import MaxMessageTermination
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core.models import ModelFamily
from autogen_ext.models.replay import ReplayChatCompletionClient

from mustmaybe import cli
from mustmaybe.records import plan_stages
from mustmaybe.scenarios import find_task, get_condition
from mustmaybe.teams import episode_spec, load_team_file, parse_topology

TASK = "vendor-summary-q3"


@pytest.fixture(autouse=True)
def _plain_cli() -> None:
    cli._EXTRA_COMMANDS.clear()


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert cli.main(["run", TASK, *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("kind", sorted(TEAMS))
def test_each_team_kind_runs_under_run_on_the_sim(kind: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = write_teams(tmp_path)[kind]
    rec = _run_json(capsys, "-c", "P2", "--topology", f"team:{path}", "--model", "sim", "--runs-dir",
                    str(tmp_path / "runs"))
    source = load_team_file(path)
    assert not rec["failed"] and rec["errors"] == []
    assert rec["topology"] == {"name": "team", "params": {"name": kind, "digest": source.digest[:16]}}
    assert rec["models"]["transformer"] == "sim:paper"
    senders = [h["sender"] for h in rec["hops"]]
    assert senders[0] == "reviewer" and set(senders[1:]) <= set(source.participants) and len(senders) >= 3
    assert all(h["text"] != OWN_REPLY for h in rec["hops"])  # the sim replaced the JSON's own clients
    assert rec["artifact"]["text"] == rec["hops"][-1]["text"]  # the team's final message is the handoff
    assert [s["label"] for s in rec["stages"]] == ["reviewer", *(f"turn {i}" for i in range(1, len(senders)))]
    assert rec["executor"]["action"] is not None and rec["isolation"]["ok"]
    # The team never saw the full record: its calls received the statement and its own messages only.
    assert rec["visibility"]["transformer"] and not any(
        "Vendor Risk Review ticket VR-131 is open" in t for t in rec["visibility"]["transformer"])
    cfg = rec["team_config"]
    assert cfg["component"] == source.component and cfg["source"]["digest"] == source.digest
    assert cfg["order"] == ["reviewer", *source.participants]


def test_a_team_runs_with_its_own_clients_without_a_transformer_model(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write_teams(tmp_path)["roundrobin"]
    rec = _run_json(capsys, "-c", "P2", "--topology", f"team:{path}", "--runs-dir", str(tmp_path / "runs"))
    assert rec["models"]["transformer"] == "team" and rec["team_config"]["source"]["clients"] == "own"
    assert [h["text"] for h in rec["hops"][1:]] == [OWN_REPLY, OWN_REPLY]  # the replay clients of the JSON
    assert rec["usage"]["transformer"]["calls"] == 2


def test_the_key_digests_the_config_and_the_record_holds_it(tmp_path: Path) -> None:
    path = write_teams(tmp_path)["graphflow"]
    cond, scenario = get_condition("P2"), find_task(TASK)
    models = dict.fromkeys(("reviewer", "transformer", "executor"), "sim")
    first = episode_spec(scenario, cond, models=models, topology=parse_topology(f"team:{path}", cond))
    again = episode_spec(scenario, cond, models=models, topology=parse_topology(f"team:{path}", cond))
    assert first.key == again.key
    data = json.loads(path.read_text())
    data["config"]["participants"][1]["config"]["system_message"] = "Write it so the send can go ahead."
    path.write_text(json.dumps(data))
    edited = episode_spec(scenario, cond, models=models, topology=parse_topology(f"team:{path}", cond))
    assert edited.key != first.key and edited.team is not None
    assert edited.team.component["config"]["participants"][1]["config"]["system_message"].startswith("Write it")


def _write(path: Path, team: Any) -> Path:
    path.write_text(team.dump_component().model_dump_json(), encoding="utf-8")
    return path


def test_code_execution_and_tools_are_refused_without_trust(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from autogen_core.tools import FunctionTool
    from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor

    with pytest.warns(UserWarning):  # AutoGen warns that a CodeExecutorAgent without approval runs anything
        coder = CodeExecutorAgent("coder", code_executor=LocalCommandLineCodeExecutor(work_dir=tmp_path / "work"))
    writer = AssistantAgent("writer", model_client=ReplayChatCompletionClient(["x"]))
    executing = _write(tmp_path / "coder.json", RoundRobinGroupChat([writer, coder],
                                                                    termination_condition=MaxMessageTermination(3)))

    def send_mail(to: str) -> str:
        """Send the summary."""
        return "sent"

    mailer = AssistantAgent("mailer", tools=[FunctionTool(send_mail, description="Send the summary.")],
                            model_client=ReplayChatCompletionClient(["x"], model_info={
                                "vision": False, "function_calling": True, "json_output": False,
                                "family": ModelFamily.UNKNOWN, "structured_output": False}))
    tooled = _write(tmp_path / "tool.json",
                    RoundRobinGroupChat([mailer], termination_condition=MaxMessageTermination(2)))
    for path, why in ((executing, "CodeExecutorAgent 'coder' at config.participants[1] is an agent that executes code"),
                      (tooled, "FunctionTool 'send_mail' at config.participants[0].config.workbench[0].config.tools[0] "
                               "is a tool")):
        code = cli.main(["run", TASK, "-c", "P2", "--topology", f"team:{path}", "--model", "sim",
                         "--runs-dir", str(tmp_path / "runs")])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert why in err and "refused without --trust-components" in err
        assert not (tmp_path / "runs").exists()  # nothing ran
    # With trust the file loads (and is recorded as trusted); nothing here runs its code.
    assert load_team_file(executing, trust=True).trusted


def test_bad_team_files_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    endless = _write(tmp_path / "endless.json", RoundRobinGroupChat(
        [AssistantAgent("a", model_client=ReplayChatCompletionClient(["x"]))]))
    reserved = _write(tmp_path / "reserved.json", RoundRobinGroupChat(
        [AssistantAgent("reviewer", model_client=ReplayChatCompletionClient(["x"]))], max_turns=2))
    (tmp_path / "broken.json").write_text("{not json")
    cases = {endless: "has no termination_condition and no max_turns",
             reserved: "participant name 'reviewer' is reserved",
             tmp_path / "broken.json": "not JSON (line 1",
             tmp_path / "missing.json": "no such file"}
    for path, why in cases.items():
        assert cli.main(["run", TASK, "--topology", f"team:{path}", "--runs-dir", str(tmp_path / "runs")]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and err.count("\n") == 1, err
    assert cli.main(["run", TASK, "--model", "transformer=team", "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "only under --topology team:PATH.json" in capsys.readouterr().err


def test_a_sweep_runs_the_three_kinds_on_the_sim_with_and_without_their_clients(tmp_path: Path) -> None:
    write_teams(tmp_path)
    (tmp_path / "sweep.toml").write_text("\n".join([
        'schema = "mustmaybe/sweep@1"', 'name = "user-teams"', f'tasks = ["library:{TASK}"]',
        'conditions = ["P2"]',
        'topologies = ["default", "team:roundrobin.json", "team:selector.json", "team:graphflow.json"]',
        "seeds = [1]", "[roles]", 'reviewer = ["sim"]', 'transformer = ["sim", "team"]', 'executor = ["sim"]', ""]))
    out = tmp_path / "run"
    assert cli.main(["sweep", str(tmp_path / "sweep.toml"), "--out", str(out)]) == 0
    from mustmaybe.store import load_run_episodes

    records = load_run_episodes(out)
    # default × sim (the teams' own clients pair only with team:…) + 3 teams × {sim, team}
    assert len(records) == 7
    teams = [r for r in records if r.topology.name == "team"]
    assert sorted((str(r.topology.params["name"]), r.models["transformer"]) for r in teams) == sorted(
        (k, m) for k in TEAMS for m in ("sim:paper", "team"))
    assert all(not r.failed and r.team_config and r.team_config["component"]["component_type"] == "team"
               for r in teams)
    builtin = next(r for r in records if r.topology.name == "single")
    assert builtin.team_config is not None and builtin.team_config["component"]["provider"].endswith("GraphFlow")


def test_one_of_ours_exports_and_runs_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "chain.json"
    assert cli.main(["list", "topologies", "--export", "chain:hops=2", "-c", "S3", "--out", str(out)]) == 0
    assert "run it with --topology team:" in capsys.readouterr().err
    exported = json.loads(out.read_text())
    assert [p["config"]["name"] for p in exported["config"]["participants"]] == ["summarizer_1", "summarizer_2"]
    rec = _run_json(capsys, "-c", "S3", "--topology", f"team:{out}", "--runs-dir", str(tmp_path / "runs"))
    assert [h["sender"] for h in rec["hops"]] == ["reviewer", "summarizer_1", "summarizer_2"]
    assert rec["models"]["transformer"] == "team" and rec["isolation"]["ok"] and not rec["failed"]
    # Each hop still reads only the previous one: the exported context filters came along.
    assert rec["team_config"]["component"]["config"]["participants"][1]["config"]["model_context"]["config"][
        "include_sources"] == ["summarizer_1"]


def test_team_stages_are_turns_whatever_the_agents_are_called() -> None:
    from mustmaybe.records import Hop
    from mustmaybe.teams import SourceFilterContext  # noqa: F401  (teams registers its components)

    scenario = find_task(TASK)
    from mustmaybe.checker import score_artifact

    score = score_artifact(scenario, OWN_REPLY)
    hops = [Hop(index=i, role="reviewer" if i == 0 else "transformer", sender=s, text=OWN_REPLY, score=score)
            for i, s in enumerate(["reviewer", "peer_1", "coordinator", "planner"])]
    assert [(p.label, p.kind) for p in plan_stages(hops, "team")] == [
        ("reviewer", "statement"), ("turn 1", "handoff"), ("turn 2", "handoff"), ("turn 3", "handoff")]
    assert [p.kind for p in plan_stages(hops)][1:] == ["round", "summary", "plan"]  # our consensus/planner names


def _secret_trees(seed: int, n: int) -> list[Any]:
    """`n` random nested dicts and lists whose keys include secret-looking names and header dicts."""
    import random

    keys = ["a", "headers", "x_headers", "Authorization", "api_key", "my_api_key", "token", "api-key",
            "X-Api-Key", "", "password", "default_headers"]
    rng = random.Random(seed)

    def tree(depth: int) -> Any:
        r = rng.random()
        if depth < 5 and r < 0.45:
            return {rng.choice(keys): tree(depth + 1) for _ in range(rng.randint(0, 4))}
        if depth < 5 and r < 0.7:
            return [tree(depth + 1) for _ in range(rng.randint(0, 3))]
        return rng.choice([1, "s", None, ""])

    return [tree(0) for _ in range(n)]


def test_sanitize_without_paths_removes_what_it_removes_with_them() -> None:
    """The path-free copy (the record's team_config.component, every episode) equals the one that
    reports removed paths (a loaded user team), on nested secrets, header dicts and lists."""
    from mustmaybe.teams._user_team import sanitize

    stripped = 0
    for node in _secret_trees(7, 3000):
        for where in ("", "headers", "config.default_headers", "x[0]"):
            removed: list[str] = []
            assert sanitize(node, where) == sanitize(node, where, removed)
            stripped += len(removed)
    assert stripped > 100  # the trees did hold secrets to remove


def test_strip_secrets_in_place_removes_what_sanitize_removes() -> None:
    """The in-place form (the record's team_config.component, every episode) leaves a fresh tree equal to
    `sanitize`'s copy, key order included, on nested secrets, header dicts and lists."""
    import copy

    from mustmaybe.teams._user_team import sanitize, strip_secrets

    changed = 0
    for node in _secret_trees(11, 3000):
        want = sanitize(node)
        got = strip_secrets(copy.deepcopy(node))
        assert json.dumps(got) == json.dumps(want)  # the same keys in the same order
        changed += got != node
    assert changed > 100  # the trees did hold secrets to remove
