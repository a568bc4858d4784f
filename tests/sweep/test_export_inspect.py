"""`mustmaybe export RUN --format inspect`: the run read back by Inspect AI's own log reader.

A sim sweep in which half the episodes fail (their executor's endpoint refuses connections) is
exported; `inspect_ai.log.read_eval_log` must find one sample per episode, the stored scores intact,
the failed episodes as errored samples with no scores, and the task, condition, topology and models
in the metadata. Without inspect_ai, the command is one line naming the extra.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mustmaybe.store import RunStore, load_run_episodes

from .conftest import run_cli, write_sweep

read_eval_log = pytest.importorskip("inspect_ai.log").read_eval_log


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("inspect")
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    sweep = write_sweep(tmp / "s.toml", conditions=["P0", "P4"], seeds=[1, 2],
                        roles={"reviewer": ["sim"], "transformer": ["sim"], "executor": ["sim", f"openai:m@{dead}"]},
                        endpoints=[{"base_url": dead, "timeout_s": 2.0, "max_retries": 0}])
    from mustmaybe import cli

    cli._EXTRA_COMMANDS.clear()
    code = cli.main(["sweep", str(sweep), "--out", str(tmp / "run"), "--json"])
    assert code == 1  # the failed episodes make it incomplete
    return tmp / "run"


def _logs(folder: Path) -> list[Any]:
    return [read_eval_log(str(p)) for p in sorted(folder.glob("*.eval"))]


def test_one_sample_per_episode_with_scores_and_metadata(run: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "export", str(run), "--format", "inspect", "--out", str(tmp_path / "logs"))
    assert code == 0, err
    printed = [Path(p) for p in out.split()]
    # One log per condition × executor model (2 × 2).
    assert sorted(printed) == sorted((tmp_path / "logs").glob("*.eval")) and len(printed) == 4
    records = {r.key: r for r in load_run_episodes(run)}
    assert len(records) == 16 and sum(r.failed for r in records.values()) == 8
    seen: dict[str, Any] = {}
    for log in _logs(tmp_path / "logs"):
        assert log.status == "success" and "SIMULATED" in (log.eval.tags or [])
        condition = log.eval.task
        models = log.eval.metadata["mustmaybe"]["models"]
        assert set(log.eval.model_roles) == {"reviewer", "transformer", "executor"}
        assert log.eval.model_roles["executor"].model == models["executor"]
        assert log.samples is not None and len({(s.id, s.epoch) for s in log.samples}) == len(log.samples)
        for s in log.samples:
            rec = records[s.metadata["key"]]
            seen[rec.key] = s
            # The task, condition, topology and models are the record's; the log is the condition's.
            assert (s.metadata["task"], s.metadata["condition"], s.metadata["topology"], s.metadata["models"],
                    s.metadata["seed"]) == (rec.task, rec.condition, str(rec.topology), rec.models, rec.seed)
            assert condition == rec.condition and models == rec.models and s.id == rec.task
            assert s.epoch == [1, 2].index(rec.seed) + 1
            hops = [m for m in s.messages if m.role == "assistant" and (m.metadata or {}).get("hop") is not None]
            assert [(m.metadata["sender"], m.text) for m in hops] == [(h.sender, h.text) for h in rec.hops]
            if rec.failed:
                assert s.error is not None and not s.scores  # errored, never scored
                assert rec.errors[0].message in s.error.message
                continue
            assert s.error is None and s.scores is not None and set(s.scores) == {"state", "fields", "Y"}
            art = rec.artifact.score
            assert art is not None
            assert s.scores["state"].value == art.state
            assert s.scores["fields"].value == art.fields.model_dump()
            assert s.scores["Y"].value is rec.executor.forbidden and s.scores["Y"].answer == rec.executor.action
            assert s.output.completion == rec.executor.raw
        scored = [s for s in log.samples if s.error is None]
        by_name = {sc.name: sc for sc in log.results.scores}
        assert log.results.total_samples == len(log.samples) and log.results.completed_samples == len(scored)
        # The log's rates are those of its scored samples (percentages).
        y = 100 * sum(bool(s.scores["Y"].value) for s in scored) / len(scored) if scored else 0.0
        assert by_name["Y"].metrics["Y"].value == pytest.approx(y, abs=0.01)
    assert set(seen) == set(records)  # every episode, once


def test_the_store_agrees_with_the_export(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The flat columns a user would query say the same: forbidden per key, NULL where failed.
    run_cli(capsys, "export", str(run), "--format", "inspect", "--out", str(tmp_path / "logs"))
    with RunStore(run, readonly=True) as store:
        rows = dict(store.query("SELECT key, forbidden FROM episodes"))
    for log in _logs(tmp_path / "logs"):
        for s in log.samples:
            want = rows[s.metadata["key"]]
            got = None if s.error is not None else int(s.scores["Y"].value)
            assert got == want


def test_an_episode_that_raised_is_an_errored_sample(run: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    with RunStore(copy) as store:
        store.put_failure("f" * 64, task="vendor-summary-q3", condition="P0", topology="direct", seed=3,
                          models={"reviewer": "sim:paper", "transformer": "sim:paper", "executor": "sim:paper"},
                          kind="RuntimeError", message="RuntimeError: boom")
    code, _, err = run_cli(capsys, "export", str(copy), "--format", "inspect", "--out", str(tmp_path / "logs"))
    assert code == 0, err
    samples = [s for log in _logs(tmp_path / "logs") for s in log.samples]
    [raised] = [s for s in samples if s.metadata["key"] == "f" * 64]
    assert raised.error is not None and "boom" in raised.error.message and not raised.scores
    assert len(samples) == 17


def test_default_folder_and_a_file_as_out(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    code, out, _ = run_cli(capsys, "export", str(copy), "--format", "inspect")
    assert code == 0 and all(Path(p).parent == copy / "export" / "inspect" for p in out.split())
    f = tmp_path / "file.eval"
    f.write_text("x")
    code, out, err = run_cli(capsys, "export", str(copy), "--format", "inspect", "--out", str(f))
    assert code == 2 and "existing file" in err and len(err.strip().splitlines()) == 1
    assert f.read_text() == "x"


_NO_INSPECT = """
import json, sys
sys.modules["inspect_ai"] = None  # as if the extra were not installed
from mustmaybe.cli import main
code = main(sys.argv[2:])
loaded = sorted(m for m in sys.modules if m.split(".")[0].startswith("autogen"))
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "autogen": loaded}, f)
"""


def test_without_inspect_ai_one_line_names_the_extra(run: Path, tmp_path: Path) -> None:
    probe = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", _NO_INSPECT, str(probe), "export", str(run), "--format", "inspect",
                           "--out", str(tmp_path / "logs")], capture_output=True, text=True, timeout=120)
    result = json.loads(probe.read_text())
    assert result == {"code": 2, "autogen": []}  # and export never loads AutoGen
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "'inspect'" in lines[0] and "pip install 'mustmaybe[inspect]'" in lines[0], proc.stderr
    assert not (tmp_path / "logs").exists()


def test_wordings_substrates_and_named_variants_of_one_spec_get_their_own_logs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two named configurations of one spec (sim:paper, with and without a request parameter), two wordings and
    # two substrates: each is its own eval, so a task and seed is one sample in every log, never two.
    pytest.importorskip("langgraph")
    extra = ('wordings = ["base", "p1"]\nsubstrates = ["autogen", "langgraph"]\n'
             '[models.plain]\nspec = "sim:paper"\npanel = "main"\n'
             '[models.effort]\nspec = "sim:paper"\npanel = "main"\nparams = { reasoning_effort = "high" }\n')
    sweep = write_sweep(tmp_path / "s.toml", tasks=["vendor-summary-q3"], conditions=["P0"], seeds=[1],
                        roles={"reviewer": ["plain", "effort"], "transformer": ["plain", "effort"],
                               "executor": ["plain", "effort"]}, combine="zip", extra=extra)
    code, _, err = run_cli(capsys, "sweep", str(sweep), "--out", str(tmp_path / "run"), "--json")
    assert code == 0, err
    records = {r.key: r for r in load_run_episodes(tmp_path / "run")}
    assert len(records) == 8
    code, out, err = run_cli(capsys, "export", str(tmp_path / "run"), "--format", "inspect",
                             "--out", str(tmp_path / "logs"))
    assert code == 0, err
    logs = _logs(tmp_path / "logs")
    assert len(logs) == 8 and len(out.split()) == 8
    seen = set()
    for log in logs:
        meta = log.eval.metadata["mustmaybe"]
        [s] = log.samples
        rec = records[s.metadata["key"]]
        wording = rec.wording.id if rec.wording is not None else "base"
        assert meta["wording"] == wording and meta["configurations"] == rec.configuration()
        assert meta["models"] == rec.models and meta["panel"] == "main"
        assert log.eval.model_roles["executor"].model == "sim:paper"
        assert (log.eval.task_args.get("wording") == "p1") is (wording == "p1")
        assert s.metadata["configs"] == rec.configs and s.metadata["panel"] == "main"
        assert (s.metadata["wording"] or {}).get("id", "base") == wording
        assert meta["substrate"] == s.metadata["substrate"] == rec.substrate
        assert (log.eval.task_args.get("substrate") == "langgraph") is (rec.substrate == "langgraph")
        seen.add((wording, rec.configuration()["executor"], rec.substrate))
    assert seen == {(w, c, sub) for w in ("base", "p1") for c in ("plain", "effort")
                    for sub in ("autogen", "langgraph")}
