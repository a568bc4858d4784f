"""Reading tasks and runs never loads AutoGen: `check`, `validate`, `export` and `report` run in a fresh
interpreter and the test lists every `autogen*` module that interpreter imported (DESIGN.md: the records
that cross parts live in one light module, `mustmaybe.records`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mustmaybe.scenarios import LIBRARY_DIR

from .conftest import write_sweep

# Runs one command through the CLI's entry point, then writes the exit code and the AutoGen modules
# loaded (by then, everything the command imported) to the file named by the first argument.
_PROBE = """
import json, sys
from mustmaybe.cli import main
code = main(sys.argv[2:])
loaded = sorted(m for m in sys.modules if m.split(".")[0].startswith("autogen"))
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "autogen": loaded}, f)
"""


def _imports_of(tmp_path: Path, *argv: str) -> dict[str, object]:
    out = tmp_path / "probe.json"
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(out), *argv], capture_output=True, text=True,
                          timeout=120)
    assert out.exists(), f"probe did not finish (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result: dict[str, object] = json.loads(out.read_text())
    return result


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("light")
    sweep = write_sweep(tmp / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0", "P4"])
    from mustmaybe import cli

    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["sweep", str(sweep), "--out", str(tmp / "run"), "--json"]) == 0
    return tmp / "run"


def test_the_probe_sees_autogen_when_a_command_loads_it(tmp_path: Path) -> None:
    # The probe itself can fail: `run` loads AutoGen, and the probe says so.
    seen = _imports_of(tmp_path, "run", "vendor-summary-q3", "-c", "P0", "--json",
                       "--runs-dir", str(tmp_path / "runs"))
    assert seen["code"] == 0
    assert "autogen_agentchat" in seen["autogen"]  # type: ignore[operator]


def test_check_and_validate_load_no_autogen(tmp_path: Path) -> None:
    (task,) = Path(LIBRARY_DIR).glob("*/vendor-summary-q3.yaml")
    artifact = tmp_path / "artifact.txt"
    artifact.write_text("Do not send the Q3 summary until the Vendor Risk Review board approves it.")
    for argv in (["check", str(task), str(artifact), "--json"], ["validate", str(task)]):
        assert _imports_of(tmp_path, *argv) == {"code": 0, "autogen": []}, argv


def test_export_and_report_load_no_autogen(tmp_path: Path, run_folder: Path) -> None:
    for fmt in ("jsonl", "csv", "inspect"):
        argv = ["export", str(run_folder), "--format", fmt, "--out", str(tmp_path / f"export-{fmt}")]
        assert _imports_of(tmp_path, *argv) == {"code": 0, "autogen": []}, argv
    argv = ["report", str(run_folder), "--out", str(tmp_path / "report"), "--resamples", "10", "--no-figures",
            "--json"]
    assert _imports_of(tmp_path, *argv) == {"code": 0, "autogen": []}
