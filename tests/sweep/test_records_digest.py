"""`scripts/records_digest.py`: the same sim sweep stores the same records (timings aside), a rescore
with the same rules changes nothing stored (every derived fact of every episode, twins included, is
derived by the one function the live run uses), and the digest sees a change to one stored score."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_cli, write_sweep

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "records_digest.py"


def _digest(run: Path) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), str(run)], capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout.split()[0]


def test_a_sim_sweep_stores_the_same_records_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = write_sweep(tmp_path / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0", "P4", "S3", "C4"],
                        topologies=["default", "chain:hops=3"], extra="twins = true")
    for out in ("a", "b"):
        code, _, err = run_cli(capsys, "sweep", str(sweep), "--out", str(tmp_path / out), "--json")
        assert code == 0, err
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    shutil.copytree(tmp_path / "a", tmp_path / "c")
    code, _, err = run_cli(capsys, "rescore", str(tmp_path / "c"), "--json")
    assert code == 0, err
    assert _digest(tmp_path / "c") == _digest(tmp_path / "a")  # live and rescored facts agree, twins included
    con = sqlite3.connect(tmp_path / "b" / "store.sqlite")
    with con:
        con.execute("UPDATE messages SET retention_score = retention_score / 2 WHERE idx = 0")
    con.close()
    assert _digest(tmp_path / "a") != _digest(tmp_path / "b")


def test_not_a_run_folder_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a run folder" in done.stderr
