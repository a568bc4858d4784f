"""No record is lost to where its output goes: a closed pipe, a bad --runs-dir or --out.

A bad destination is checked before any model call (one line, exit 2, no traceback); a reader that
closes the pipe (`mustmaybe run … | head`) silences the output, never the episode, which is stored.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mustmaybe import cli


def _cli(*argv: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "mustmaybe.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd)


def test_run_into_a_closed_pipe_still_stores_its_episode(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = _cli("run", "vendor-summary-q3", "-c", "S3", "--model", "sim", "--runs-dir", str(runs))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()  # as `| head -1` does: read a line, then go away
    proc.stdout.close()
    err = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err, err
    assert code in (0, 141), (code, err)
    [folder] = list(runs.iterdir())
    with sqlite3.connect(folder / "store.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 1


def test_run_with_a_file_as_runs_dir_fails_before_any_model_call(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "some-file.txt"
    bad.write_text("not a folder\n")
    code = cli.main(["run", "vendor-summary-q3", "-c", "P4", "--model", "sim", "--runs-dir", str(bad)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # no panel: nothing ran
    assert "--runs-dir" in err and "not a folder" in " ".join(err.split())
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_sweep_with_a_file_as_runs_dir_fails_before_any_model_call(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "some-file.txt"
    bad.write_text("x\n")
    sweep = tmp_path / "s.toml"
    sweep.write_text('schema = "mustmaybe/sweep@1"\nname = "t"\ntasks = ["vendor-summary-q3"]\n'
                     'conditions = ["P4"]\nseeds = [1]\n[roles]\nreviewer = ["sim"]\ntranformer = ["sim"]\n'
                     .replace("tranformer", "transformer") + 'executor = ["sim"]\n')
    for argv in (["--runs-dir", str(bad)], ["--out", str(bad / "run")], ["--out", str(bad)]):
        code = cli.main(["sweep", str(sweep), "--json", *argv])
        _, err = capsys.readouterr()
        assert code == 2, (argv, err)
        assert "not a folder" in " ".join(err.split()) and "Traceback" not in err, err


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    assert cli.main(["run", "vendor-summary-q3", "-c", "P0", "--model", "sim", "--json", "--runs-dir",
                     str(runs)]) == 0
    [folder] = list(runs.iterdir())
    return folder


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_onto_an_existing_file_is_one_line(run_folder: Path, tmp_path: Path, fmt: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    existing = tmp_path / "existing-file"
    existing.write_text("keep me\n")
    code = cli.main(["export", str(run_folder), "--format", fmt, "--out", str(existing)])
    _, err = capsys.readouterr()
    assert code == 2, err
    assert "--out" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert existing.read_text() == "keep me\n"
