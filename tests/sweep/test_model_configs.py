"""Model configurations (Table 19): request parameters per endpoint, per role and per named configuration
reach the endpoint, are recorded and keyed only when set; panels are marked in the sweep file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI, is_executor

from mustmaybe.records import EpisodeRecord, RoleParams
from mustmaybe.store import load_run_episodes
from mustmaybe.sweep import plan_sweep

from .conftest import run_cli, run_json


def _variants_sweep(fake: FakeOpenAI, path: Path) -> Path:
    url = fake.base_url
    path.write_text(f'''
schema = "mustmaybe/sweep@1"
name = "variants"
tasks = ["library:vendor-summary-q3"]
conditions = ["P0", "P4"]
seeds = [1]

[roles]
reviewer = ["openai:ok@{url}"]
transformer = ["openai:ok@{url}"]
executor = ["think", "plain"]

[params]
max_tokens = 300

[[endpoints]]
base_url = "{url}"
timeout_s = 5
max_retries = 0
panel = "main"
[endpoints.params]
stop = ["END"]

[models.think]
spec = "openai:qwen3@{url}"
panel = "main"
[models.think.params]
reasoning_effort = "high"
temperature = 0.6
top_p = 0.95
extra_body = {{ chat_template_kwargs = {{ enable_thinking = true }} }}

[models.plain]
spec = "openai:qwen3@{url}"
panel = "main"
params = {{ extra_body = {{ chat_template_kwargs = {{ enable_thinking = false }} }} }}
''', encoding="utf-8")
    return path


def _executor_bodies(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [b for b in fake.bodies if b.get("model") == "qwen3" and is_executor(b)]


def test_thinking_and_plain_variants_send_and_record_their_fields(
        fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _variants_sweep(fake, tmp_path / "s.toml")
    code, summary = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "run"), "--json")
    assert code == 0, summary
    bodies = _executor_bodies(fake)
    thinking = [b for b in bodies if b.get("chat_template_kwargs") == {"enable_thinking": True}]
    plain = [b for b in bodies if b.get("chat_template_kwargs") == {"enable_thinking": False}]
    assert len(thinking) == len(plain) == 2 and len(bodies) == 4  # P0 and P4, one executor call each
    for b in thinking:  # the configuration's own layer over the endpoint's and the file's
        assert (b["reasoning_effort"], b["temperature"], b["top_p"], b["stop"], b["max_tokens"]) == \
            ("high", 0.6, 0.95, ["END"], 300)
    for b in plain:  # what it does not set is not sent; the endpoint's stop still is
        assert "reasoning_effort" not in b and "top_p" not in b and b["stop"] == ["END"] and b["temperature"] == 0.7
    upstream = [b for b in fake.bodies if b.get("model") == "ok"]
    assert upstream and all(b["stop"] == ["END"] and "reasoning_effort" not in b
                            and "chat_template_kwargs" not in b for b in upstream)

    records = load_run_episodes(tmp_path / "run")
    assert len(records) == 4 and len({r.key for r in records}) == 4
    by_config = {(r.condition, (r.configs or {}).get("executor")): r for r in records}
    think, plain_r = by_config[("P4", "think")], by_config[("P4", "plain")]
    assert think.models["executor"] == plain_r.models["executor"] == f"openai:qwen3@{fake.base_url}"
    assert think.params["executor"]["reasoning_effort"] == "high"
    assert think.params["executor"]["extra_body"] == {"chat_template_kwargs": {"enable_thinking": True}}
    assert "reasoning_effort" not in plain_r.params["executor"]
    assert think.params["reviewer"]["stop"] == ["END"] and "reasoning_effort" not in think.params["reviewer"]
    assert {r.panel for r in records} == {"main"}
    assert think.configuration()["executor"] == "think"
    assert think.configuration()["reviewer"].startswith(f"openai:ok@{fake.base_url} ")  # its stop is part of it
    usage = think.usage["executor"]
    assert usage.finish_reasons == {"stop": usage.calls}


def test_a_variant_is_its_own_cached_call(fake: FakeOpenAI, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Resuming into a fresh folder with the first run's cache: every call answers from the cache, and
    never a thinking call from the plain variant's answer (the parameters are in the cache key)."""
    f = _variants_sweep(fake, tmp_path / "s.toml")
    # The variants then differ only in their request parameters (temperature is in every cache key).
    text = f.read_text(encoding="utf-8").replace('seeds = [1]', f'seeds = [1]\ncache = "{tmp_path / "c.sqlite"}"')
    text = text.replace("temperature = 0.6\n", "")
    f.write_text(text, encoding="utf-8")
    assert run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "a"), "--json")[0] == 0
    # Both variants asked the endpoint, though their prompts are the same: neither answered from the other.
    assert len(_executor_bodies(fake)) == 4
    first = fake.requests
    assert run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "b"), "--json")[0] == 0
    assert fake.requests == first  # all cached, thinking and plain apart
    assert len(fake.bodies) == first


def test_unset_parameters_change_neither_keys_nor_records(tmp_path: Path) -> None:
    assert RoleParams().model_dump(mode="json") == {"temperature": 0.7, "max_tokens": 400, "seed": None,
                                                    "timeout_s": 120.0}
    f = tmp_path / "s.toml"
    f.write_text('schema = "mustmaybe/sweep@1"\nname = "plain"\ntasks = ["library:vendor-summary-q3"]\n'
                 'conditions = ["P4"]\nseeds = [1]\n[roles]\nreviewer = ["sim"]\ntransformer = ["sim"]\n'
                 'executor = ["sim"]\n', encoding="utf-8")
    spec = plan_sweep(f).episodes[0].spec
    assert all(set(p) == {"temperature", "max_tokens", "seed", "timeout_s"} for p in spec.inputs()["params"].values())
    assert spec.configs == {} and spec.panel is None
    # A record written before these fields (no finish reasons, configs or panel) reads and writes back the same.
    old = {"schema": "mustmaybe/episode@1", "key": "k", "task": "t", "task_hash": "h", "condition": "P4",
           "topology": {"name": "single", "params": {}}, "seed": 1, "models": {"executor": "sim:paper"},
           "simulated": True, "reviewer_identified": None, "hops": [], "artifact": {"text": "", "score": None},
           "first_break_hop": None, "executor": {"action": None, "blocker_recognized": False, "parse_ok": False,
                                                 "action_rule": None, "forbidden": None},
           "visibility": {}, "isolation": {"ok": True, "leaks": []},
           "usage": {"executor": {"prompt_tokens": 1, "completion_tokens": 2, "calls": 1, "latency_s": 0.1,
                                  "cached_calls": 0}},
           "checker_version": "x", "failed": True}
    again = EpisodeRecord.model_validate(old).to_json_dict()
    assert "configs" not in again and "panel" not in again and "finish_reasons" not in again["usage"]["executor"]
    assert again["usage"]["executor"] == old["usage"]["executor"]


def test_bad_parameters_are_one_line_errors_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('''schema = "mustmaybe/sweep@1"
name = "bad"
tasks = ["library:vendor-summary-q3"]
conditions = ["P4"]
seeds = [1]
[roles]
reviewer = ["sim"]
transformer = ["sim"]
executor = ["x", "y", "nosuch"]
[params]
extra_body = { model = "other" }
[models.x]
spec = "sim"
params = { reasoning_effort = "very" }
[models.y]
spec = "sim"
panel = "Main Panel"
params = { stop = [""], colour = 1 }
[[endpoints]]
base_url = "http://127.0.0.1:9/v1"
params = { top_p = 2 }
''', encoding="utf-8")
    code, _out, err = run_cli(capsys, "sweep", str(f), "--dry-run", "--json")
    assert code == 2 and "Traceback" not in err
    for key in ("params.extra_body", "models.x.params.reasoning_effort", "models.y.params.stop",
                "models.y.params.colour", "models.y.panel", "endpoints[0].params.top_p", "roles.executor[2]"):
        assert key in err, (key, err)
    assert "nor the name of a [models.<name>] configuration" in err
    code, _out, err = run_cli(capsys, "run", "vendor-summary-q3", "-c", "P4", "--model-param", "executor.effort=high")
    assert code == 2 and err.strip().count("\n") == 0 and "unknown parameter 'effort'" in err
    code, _out, err = run_cli(capsys, "run", "vendor-summary-q3", "-c", "P4", "--model-param", "extra_body=[1]")
    assert code == 2 and "--model-param extra_body" in err and err.strip().count("\n") == 0


def test_one_episode_in_two_panels_is_an_error(fake: FakeOpenAI, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    f = _variants_sweep(fake, tmp_path / "s.toml")
    f.write_text(f.read_text(encoding="utf-8").replace('panel = "main"\n[endpoints.params]',
                                                       'panel = "validation"\n[endpoints.params]'), encoding="utf-8")
    code, _out, err = run_cli(capsys, "sweep", str(f), "--dry-run", "--json")
    assert code == 2 and "panel: one model configuration would be in main and validation at once" in err
    assert "executor=think (main)" in err and f"reviewer=openai:ok@{fake.base_url} (validation)" in err


def test_run_sends_model_params(fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "run", "vendor-summary-q3", "-c", "P0", "--model", f"openai:qwen3@{fake.base_url}",
        "--model-param", "executor.reasoning_effort=low", "--model-param", 'extra_body={"thinking":{"type":"off"}}',
        "--model-param", "stop=END", "--json", "--runs-dir", str(tmp_path))
    assert code == 0, err
    record = json.loads(out)
    ex = _executor_bodies(fake)
    assert ex and all(b["reasoning_effort"] == "low" and b["thinking"] == {"type": "off"} and b["stop"] == ["END"]
                      for b in ex)
    others = [b for b in fake.bodies if not is_executor(b)]
    assert others and all("reasoning_effort" not in b and b["thinking"] == {"type": "off"} for b in others)
    assert record["params"]["executor"]["reasoning_effort"] == "low"
    assert record["params"]["reviewer"]["extra_body"] == {"thinking": {"type": "off"}}
