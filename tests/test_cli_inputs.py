"""Bad input never shows a traceback: each case is one clear error, exit 2, naming the file, field or flag.

And everything a run or sweep needs is checked before the first frame: a rejected `run` prints
nothing on standard output (no panel was drawn), a rejected sweep creates no run folder.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe import cli
from mustmaybe.agents import check_model_spec
from mustmaybe.records import EndpointConfig, ModelSpecError, api_key_problem, base_url_problem
from mustmaybe.scenarios import LIBRARY_DIR, get_condition
from mustmaybe.teams import check_topology_text, parse_topology

TASK = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"
NOT_UTF8 = "Approval is pending \xff\xfe; go ahead.".encode("latin-1")


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MM_TEST_UNSET_KEY", raising=False)


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _flat(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------------------- not UTF-8
@pytest.fixture
def latin_task(tmp_path: Path) -> Path:
    p = tmp_path / "latin.yaml"
    p.write_bytes(TASK.read_bytes().replace(b"Q3", "Q3 caf\xe9".encode("latin-1"), 1))
    return p


def test_validate_names_a_task_file_that_is_not_utf8(latin_task: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "validate", str(latin_task))
    assert code == 2
    assert f"{latin_task}: not UTF-8 text" in _flat(out)


def test_run_names_a_task_file_that_is_not_utf8(latin_task: Path, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    code, out, err = _main(capsys, "run", str(latin_task), "--model", "sim", "--runs-dir", str(tmp_path / "runs"))
    assert code == 2 and out == ""
    assert f"{latin_task}: not UTF-8 text" in _flat(err)


def test_check_names_a_task_or_artifact_that_is_not_utf8(latin_task: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    good_artifact = tmp_path / "ok.txt"
    good_artifact.write_text("Do not send it until Vendor Risk Review approves.", encoding="utf-8")
    code, _, err = _main(capsys, "check", str(latin_task), str(good_artifact))
    assert code == 2 and f"{latin_task}: not UTF-8 text" in _flat(err)

    bad_artifact = tmp_path / "bad.txt"
    bad_artifact.write_bytes(NOT_UTF8)
    code, _, err = _main(capsys, "check", str(TASK), str(bad_artifact))
    assert code == 2 and f"{bad_artifact}: artifact is not UTF-8 text" in _flat(err)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NOT_UTF8)))
    code, _, err = _main(capsys, "check", str(TASK), "-")
    assert code == 2 and "standard input: artifact is not UTF-8 text" in _flat(err)


def test_check_reads_crlf_artifacts_as_text_mode_did(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unix, dos = tmp_path / "unix.txt", tmp_path / "dos.txt"
    body = "Status: blocked.\nDo not send it until Vendor Risk Review approves.\n"
    unix.write_bytes(body.encode())
    dos.write_bytes(body.replace("\n", "\r\n").encode())
    assert _main(capsys, "check", str(TASK), str(unix), "--json")[1] == \
        _main(capsys, "check", str(TASK), str(dos), "--json")[1]


def test_check_refuses_an_empty_artifact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\t\n", encoding="utf-8")
    code, out, err = _main(capsys, "check", str(TASK), str(empty), "--json")
    assert code == 2 and out == "" and f"{empty}: the artifact is empty" in _flat(err)


def test_check_refuses_an_artifact_past_the_size_limit_in_one_line(capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from mustmaybe.checker import MAX_ARTIFACT_CHARS

    big = ("Do not send the Q3 summary yet. " * (5_000_000 // 32)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(big)))
    code, out, err = _main(capsys, "check", str(TASK), "-")
    assert code == 2 and out == ""
    assert f"standard input: the artifact has {len(big):,} characters" in _flat(err)
    assert f"at most {MAX_ARTIFACT_CHARS:,}" in _flat(err) and "Traceback" not in err


def test_sweep_names_a_sweep_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_bytes(b'schema = "mustmaybe/sweep@1"\nname = "caf' + "\xe9".encode("latin-1") + b'"\n')
    code, _, err = _main(capsys, "sweep", str(f), "--dry-run")
    assert code == 2 and f"{f}: not UTF-8 text" in _flat(err)


# ------------------------------------------------------------------------------------- run: before the panel
@pytest.mark.parametrize(("args", "words"), [
    (["--topology", "chain:hops=1000"], "--topology chain:hops=1000: topology chain: parameter 'hops' must be "
                                        "between 1 and 32, got 1000"),
    (["--topology", "chain:hops=0"], "parameter 'hops' must be between 1 and 32, got 0"),
    (["-c", "E4", "--topology", "consensus:peers=1"], "parameter 'peers' must be between 2 and 16, got 1"),
    (["-c", "E4", "--topology", "consensus:rounds=9"], "parameter 'rounds' must be between 1 and 8, got 9"),
    (["-c", "S3", "--topology", "chain:hops=many"], "parameter 'hops' must be int, not 'many'"),
    (["-c", "Q9"], "unknown condition 'Q9'; known: P0, P1"),
    (["--compare", "P0,Q9"], "unknown condition 'Q9'"),
    (["--model", "sim:nope"], "--model: model spec 'sim:nope': unknown sim profile 'nope'; known: faithful"),
    (["--model", "executor=sim:nope"], "unknown sim profile 'nope'"),
    (["--model", "openai:m@http://:8000/v1"], "base URL 'http://:8000/v1' names no host"),
    (["--model", "openai:m@http://localhost:99999/v1"], "base URL 'http://localhost:99999/v1' is not a valid URL"),
    (["--model", "openai:gpt-4o"], "endpoint https://api.openai.com/v1: OPENAI_API_KEY is not set"),
    (["--model", "openai:m@http://127.0.0.1:9/v1", "--api-key-env", "MM_TEST_UNSET_KEY"],
     "environment variable MM_TEST_UNSET_KEY is not set"),
])
def test_run_rejects_bad_input_before_the_panel(args: list[str], words: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    code, out, err = _main(capsys, "run", "vendor-summary-q3", *args, "--runs-dir", str(runs))
    assert code == 2
    assert words in _flat(err)
    assert out == ""  # nothing drawn: the error came before the first frame
    assert not runs.exists()


def test_missing_key_is_a_clear_error_in_a_subprocess_too(tmp_path: Path) -> None:
    # The case end to end: no key, a real process, no traceback on either stream.
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    r = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "run", "vendor-summary-q3", "--model", "openai:gpt-4o",
                        "--runs-dir", str(tmp_path)], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 2
    assert "OPENAI_API_KEY is not set" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr and r.stdout == ""


def test_resolved_model_mismatch_warning_does_not_reach_the_console(tmp_path: Path) -> None:
    # AutoGen maps gpt-4o to a dated name and warns when the server answers with another one; the
    # fake echoes the name it was asked for, as llama.cpp's and vLLM's servers report their own.
    srv = FakeOpenAI()
    try:
        env = {**os.environ, "COLUMNS": "100"}
        r = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "run", "vendor-summary-q3", "-c", "P4",
                            "--model", f"openai:gpt-4o@{srv.base_url}", "--runs-dir", str(tmp_path)],
                           capture_output=True, text=True, env=env, check=False)
        requests = srv.stats()["requests"]
    finally:
        srv.close()
    assert r.returncode == 0, r.stderr
    assert requests >= 3  # reviewer, transformer and executor all called the endpoint
    assert "mustmaybe run" in r.stdout
    assert "Resolved model mismatch" not in r.stdout + r.stderr
    assert "UserWarning" not in r.stderr


# ------------------------------------------------------------------------------------- sweep: before the first episode
def _sweep(tmp_path: Path, *, topologies: str = "", executor: str = "sim", conditions: str = '"P0", "P4"',
           endpoints: str = "") -> Path:
    f = tmp_path / "s.toml"
    f.write_text(f'''schema = "mustmaybe/sweep@1"
name = "pre"
tasks = ["library:vendor-summary-q3"]
conditions = [{conditions}]
{topologies}
seeds = [1]
[roles]
reviewer = ["sim"]
transformer = ["sim"]
executor = ["{executor}"]
{endpoints}''', encoding="utf-8")
    return f


@pytest.mark.parametrize(("kw", "words"), [
    ({"topologies": 'topologies = ["chain:hops=0"]'},
     "topologies[0]: topology chain: parameter 'hops' must be between 1 and 32, got 0"),
    # No listed condition can run under a planner, yet its bad parameter is still found.
    ({"topologies": 'topologies = ["default", "planner:order=sideways"]'},
     "topologies[1]: planner: order must be plan_first, blocker_first or restart"),
    ({"topologies": 'topologies = ["consensus:peers=99"]'}, "topologies[0]: topology consensus: parameter 'peers'"),
    ({"executor": "sim:nope"}, "roles.executor[0]: model spec 'sim:nope': unknown sim profile 'nope'"),
    ({"conditions": '"Q9", "P4"'}, "conditions[0]: unknown condition 'Q9'"),
    ({"executor": "openai:m@http://:1/v1"}, "roles.executor[0]: model spec 'openai:m@http://:1/v1': base URL"),
])
def test_sweep_dry_run_fails_on_what_the_sweep_would_fail_on(kw: dict[str, str], words: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    f = _sweep(tmp_path, **kw)
    code, out, err = _main(capsys, "sweep", str(f), "--dry-run")
    assert code == 2, out
    assert f"{f}:" in err and words in _flat(err)


def test_dry_run_says_when_a_key_variable_is_unset_and_the_sweep_refuses_to_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _sweep(tmp_path, executor="openai:m@http://127.0.0.1:9/v1", endpoints='''[[endpoints]]
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MM_TEST_UNSET_KEY"
''')
    code, out, _ = _main(capsys, "sweep", str(f), "--dry-run")
    assert code == 0
    assert "warning: endpoints[0].api_key_env: endpoint http://127.0.0.1:9/v1: environment variable " \
           "MM_TEST_UNSET_KEY is not set" in _flat(out)
    code, out, err = _main(capsys, "sweep", str(f), "--dry-run", "--json")
    assert code == 0 and out.startswith("{") and "MM_TEST_UNSET_KEY is not set" in _flat(err)

    runs = tmp_path / "runs"
    code, out, err = _main(capsys, "sweep", str(f), "--runs-dir", str(runs))
    assert code == 2 and "MM_TEST_UNSET_KEY is not set" in _flat(err)
    assert not runs.exists()  # refused before a run folder or an episode


def test_openai_api_without_a_key_fails_the_sweep_before_it_starts(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    f = _sweep(tmp_path, executor="openai:gpt-4o")
    code, _, err = _main(capsys, "sweep", str(f), "--runs-dir", str(tmp_path / "runs"))
    assert code == 2 and "roles: endpoint https://api.openai.com/v1: OPENAI_API_KEY is not set" in _flat(err)


# ------------------------------------------------------------------------------------- the checks themselves
def test_topology_bounds_apply_to_every_way_a_topology_is_named() -> None:
    s3 = get_condition("S3")
    assert parse_topology("chain:hops=32", s3).params["hops"] == 32
    assert parse_topology(" chain : hops = 2 ", s3).params["hops"] == 2
    for text in ("chain:hops=33", "chain:hops=0", "chain:hops=-1"):
        with pytest.raises(ValueError, match="between 1 and 32"):
            parse_topology(text, s3)
        with pytest.raises(ValueError, match="between 1 and 32"):
            check_topology_text(text)
    check_topology_text("default")
    check_topology_text("consensus:peers=2,rounds=8")
    with pytest.raises(ValueError, match="order must be plan_first"):
        check_topology_text("planner:order=sideways")
    with pytest.raises(ValueError, match="unknown restore arm 'some'"):
        parse_topology("replay:restore=some", get_condition("R-none"))
    with pytest.raises(ValueError, match="unknown verify arm 'maybe'"):
        check_topology_text("replay:verify=maybe")
    with pytest.raises(ValueError, match="replay: base unknown condition 'Z9'"):
        check_topology_text("replay:base=Z9")
    with pytest.raises(LookupError, match="unknown topology 'ring'"):
        check_topology_text("ring:size=3")


def test_model_spec_and_url_checks() -> None:
    assert check_model_spec("sim:faithful").name == "faithful"
    known = "known: faithful, judge-lax, judge-lenient, judge-noisy, judge-picky, judge-strict, lossy, paper"
    with pytest.raises(ModelSpecError, match=known):
        check_model_spec("sim:nope")
    assert base_url_problem("http://127.0.0.1:8000/v1") is None
    assert base_url_problem("https://api.example.com/v1") is None
    assert "http:// or https://" in str(base_url_problem("ftp://host/v1"))
    assert "names no host" in str(base_url_problem("http:///v1"))
    assert "not a valid URL" in str(base_url_problem("http://host:port/v1"))


def test_api_key_problem_names_variables_never_values(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key_env="MM_TEST_UNSET_KEY")
    assert "MM_TEST_UNSET_KEY is not set" in str(api_key_problem(ep))
    monkeypatch.setenv("MM_TEST_UNSET_KEY", "sk-secret-value")
    assert api_key_problem(ep) is None
    assert api_key_problem(EndpointConfig(base_url="http://127.0.0.1:9/v1")) is None  # keyless local server
    assert "OPENAI_API_KEY" in str(api_key_problem(EndpointConfig(base_url="https://api.openai.com/v1")))
