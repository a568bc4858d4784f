"""User teams on the embedded model (SmolLM2-135M through llama.cpp): `--model transformer=local`
replaces every client of the JSON, the selection call of a SelectorGroupChat included. Kept short:
two team turns of a few dozen tokens each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _user_teams import OWN_REPLY, TEAMS, write_teams

from mustmaybe import cli
from mustmaybe.store import load_run_episodes

pytestmark = pytest.mark.local


def _local_missing() -> str | None:
    try:
        from mustmaybe.agents import check_local_backend, local_model_path

        local_model_path()
        check_local_backend()
    except Exception as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


@pytest.fixture(autouse=True)
def _needs_local() -> None:
    cli._EXTRA_COMMANDS.clear()
    if (why := _local_missing()) is not None:
        pytest.skip(why)


def test_run_a_user_team_on_the_embedded_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_teams(tmp_path)["roundrobin"]
    assert cli.main(["run", "vendor-summary-q3", "-c", "P2", "--topology", f"team:{path}", "--model", "sim:faithful",
                     "--model", "transformer=local", "--max-tokens", "transformer=40", "--json",
                     "--runs-dir", str(tmp_path / "runs")]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["models"]["transformer"] == "local" and rec["endpoints"]["transformer"] == "local"
    assert not rec["failed"] and [h["sender"] for h in rec["hops"]] == ["reviewer", "drafter", "editor"]
    assert all(h["text"] != OWN_REPLY for h in rec["hops"]) and rec["usage"]["transformer"]["calls"] == 2


def test_a_sweep_runs_the_other_kinds_on_the_embedded_model(tmp_path: Path) -> None:
    # The round robin ran under `run` above; one episode per kind keeps this within tens of seconds.
    write_teams(tmp_path)
    (tmp_path / "sweep.toml").write_text("\n".join([
        'schema = "mustmaybe/sweep@1"', 'name = "user-teams-local"', 'tasks = ["library:vendor-summary-q3"]',
        'conditions = ["P2"]', 'topologies = ["team:selector.json", "team:graphflow.json"]',
        "seeds = [1]", "[roles]", 'reviewer = ["sim:faithful"]', 'transformer = ["local"]', 'executor = ["sim"]',
        "[params.transformer]", "max_tokens = 24", ""]))
    assert cli.main(["sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "run")]) == 0
    records = load_run_episodes(tmp_path / "run")
    assert sorted(str(r.topology.params["name"]) for r in records) == sorted(set(TEAMS) - {"roundrobin"})
    for r in records:
        assert not r.failed and r.models["transformer"] == "local" and len(r.hops) >= 2, r.errors
        assert r.team_config is not None and r.team_config["source"]["clients"] == "local"
        assert all(h.text != OWN_REPLY for h in r.hops)
