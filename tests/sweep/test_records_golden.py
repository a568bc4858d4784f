"""Performance work changes no stored byte and no report number: a fixed sim sweep's store and a fixed
synthetic report's tables hash to digests recorded before the issue-23 speed-ups (timings aside).

When a change is *meant* to alter records or tables (a new field, a checker release), regenerate the
digests with `MUSTMAYBE_GOLDEN=print .venv/bin/python -m pytest tests/sweep/test_records_golden.py -q -s`
and say so in the commit; a speed-up must never need that. The checker's version string is masked
(`MUSTMAYBE_GOLDEN_CHECKER=<an older version>` reproduces a digest recorded under that version).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from mustmaybe.checker import CHECKER_VERSION

from .conftest import run_json, write_sweep
from .test_fast_path import _tables

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

SWEEP_DIGEST = "07e2108a161744325d0ef00a9a103e27747cf2c9ba66026d431853e930672e50"
REPORT_DIGEST = "205212f61cf60172f17467dc6577809aacc589f7507131c36e17c662c25503a3"


def _digest(value: object) -> str:
    # The checker's version names its sources' digest, which any edit of the checker changes even when every
    # score stays the same; the checker's own identity checks guard its scores, so it is masked here.
    text = json.dumps(value, sort_keys=True, default=str).replace(CHECKER_VERSION, os.environ.get(
        "MUSTMAYBE_GOLDEN_CHECKER", "<checker>"))
    return hashlib.sha256(text.encode()).hexdigest()


def _check(name: str, got: str, want: str) -> None:
    if os.environ.get("MUSTMAYBE_GOLDEN") == "print":
        print(f"\n{name} = {got!r}")
        return
    assert got == want, f"{name}: stored output changed ({got} != {want})"


def test_sim_sweep_records_are_the_recorded_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = ["library:vendor-summary-q3", "library:board-minutes-draft", "library:billing-db-read-grant-write"]
    sweep = write_sweep(tmp_path / "g.toml", name="golden", tasks=tasks,
                        conditions=("P0", "P4", "S3", "G2", "C4"), seeds=(1, 2))
    code, summary = run_json(capsys, "sweep", str(sweep), "--out", str(tmp_path / "run"), "--json")
    assert code == 0, summary
    tables = _tables(tmp_path / "run")
    assert len(tables["episodes"]) == 3 * 5 * 2
    _check("SWEEP_DIGEST", _digest(tables), SWEEP_DIGEST)


def test_report_tables_are_the_recorded_ones(tmp_path: Path) -> None:
    import bench_report

    from mustmaybe.analysis import build_frames, report_from_frames

    records, domains = bench_report.synthetic_episodes(3000)
    out = tmp_path / "report"
    report_from_frames(build_frames(records, domains=domains), out, resamples=200)
    tables = {p.name: p.read_text(encoding="utf-8") for p in sorted((out / "tables").iterdir())}
    assert len(tables) > 10
    _check("REPORT_DIGEST", _digest(tables), REPORT_DIGEST)
