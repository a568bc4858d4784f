"""Rates corrected for the checker's measured error: the estimator, its intervals, `report --calibration`."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from mustmaybe import cli
from mustmaybe.analysis import ADJ_COLUMNS, correct_shares

from .conftest import make_episode

LABELED = Path(__file__).resolve().parents[1] / "labeled"
STATES = ("preserved", "deactivated", "undetermined")


def _conf(rows: list[list[int]]) -> dict[str, dict[str, int]]:
    return {g: dict(zip(STATES, r, strict=True)) for g, r in zip(STATES, rows, strict=True)}


# gold P → checker (P, D, U) = (8, 1, 1); gold D → (1, 8, 1); gold U → (0, 0, 10)
HAND = _conf([[8, 1, 1], [1, 8, 1], [0, 0, 10]])


def test_hand_computed_inversion() -> None:
    # A[pred][gold] = P(pred | gold), columns are the gold rows above divided by their n (10):
    #     A = | .8 .1 0 |      q = observed (P, D, U) = (9, 7, 4) / 20 = (.45, .35, .20)
    #         | .1 .8 0 |
    #         | .1 .1 1 |
    # The upper-left block B = [[.8, .1], [.1, .8]] has det .64 − .01 = .63, B⁻¹ = [[.8, −.1], [−.1, .8]] / .63;
    # the last row of A⁻¹ is (−.1·(.8 − .1)/.63, −.1·(−.1 + .8)/.63, 1) = (−1/9, −1/9, 1), so
    #     A⁻¹ = | .8/.63  −.1/.63  0 |
    #           | −.1/.63  .8/.63  0 |
    #           | −1/9     −1/9    1 |
    # π_P = (.8·.45 − .1·.35)/.63 = .325/.63 = 0.515873
    # π_D = (−.1·.45 + .8·.35)/.63 = .235/.63 = 0.373016
    # π_U = .20 − (.45 + .35)/9 = .20 − .088889 = 0.111111      (sum 1: A's columns sum to 1)
    c = correct_shares(HAND, np.array([[9, 7, 4]]), resamples=0)
    assert c.raw == pytest.approx((0.45, 0.35, 0.20))
    assert c.adjusted == pytest.approx((0.325 / 0.63, 0.235 / 0.63, 1 / 9))
    assert not c.clipped and c.problem is None


def test_clipped_to_the_simplex() -> None:
    # q = (.05, .90, .05): π_P = (.8·.05 − .1·.9)/.63 = −.05/.63 < 0, so A⁻¹q leaves the simplex.
    # A⁻¹q = (−0.0794, 1.4206, −0.3413)... projected: (0, 1, 0).
    c = correct_shares(HAND, np.array([[1, 18, 1]]), resamples=0)
    assert c.clipped
    assert c.adjusted == pytest.approx((0.0, 1.0, 0.0))


def test_perfect_checker_changes_nothing() -> None:
    perfect = _conf([[30, 0, 0], [0, 20, 0], [0, 0, 10]])
    counts = np.array([[3, 5, 2], [4, 1, 0], [2, 2, 1]])
    c = correct_shares(perfect, counts, resamples=200, rng=np.random.default_rng(1))
    assert c.adjusted == pytest.approx(c.raw)
    # Only the episodes vary, so the interval is the task-cluster interval of the raw shares.
    assert c.lo is not None and c.hi is not None
    assert c.lo[0] <= c.raw[0] <= c.hi[0] and c.hi[0] - c.lo[0] > 0


def test_smaller_labeled_set_gives_wider_intervals() -> None:
    counts = np.array([[5, 4, 1], [6, 3, 1], [4, 5, 1], [5, 5, 0], [6, 4, 0]] * 4)
    small = correct_shares(HAND, counts, resamples=2000, rng=np.random.default_rng(3))
    big = correct_shares(_conf([[80, 10, 10], [10, 80, 10], [0, 0, 100]]), counts, resamples=2000,
                         rng=np.random.default_rng(3))
    assert small.adjusted == pytest.approx(big.adjusted)  # same proportions, same point estimate
    assert small.lo and small.hi and big.lo and big.hi
    for i in (0, 1):
        assert small.hi[i] - small.lo[i] > big.hi[i] - big.lo[i]


def test_singular_or_unmeasured_confusion_is_explained() -> None:
    # The checker calls everything deactivated: A's columns are equal, A is singular.
    flat = _conf([[0, 10, 0], [0, 10, 0], [0, 10, 0]])
    c = correct_shares(flat, np.array([[2, 6, 2]]), resamples=50)
    assert c.adjusted is None and c.lo is None and c.problem and "singular" in c.problem
    # No gold-undetermined item: that state's column of A is unknown.
    missing = _conf([[9, 1, 0], [1, 9, 0], [0, 0, 0]])
    c = correct_shares(missing, np.array([[2, 6, 2]]), resamples=50)
    assert c.adjusted is None and c.problem and "gold-undetermined" in c.problem


# ------------------------------------------------------------------ report --calibration
def main(argv: list[str]) -> int:
    cli._EXTRA_COMMANDS.clear()
    return cli.main(argv)


def _run(path: Path) -> Path:
    eps = []
    for i in range(4):
        for s in (1, 2):
            eps.append(make_episode(task=f"t{i}", seed=s, condition="P0", state="preserved"))
            eps.append(make_episode(task=f"t{i}", seed=s, condition="P4",
                                    state=("deactivated", "preserved", "undetermined")[(i + s) % 3]))
    path.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    return path


def _header(path: Path) -> list[str]:
    with path.open(newline="") as fh:
        return next(csv.reader(fh))


def test_report_calibration_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path / "run.jsonl")
    assert main(["report", str(run), "--out", str(tmp_path / "plain"), "--resamples", "20", "--no-figures"]) == 0
    assert not set(ADJ_COLUMNS) & set(_header(tmp_path / "plain/tables/condition_matrix.csv"))
    sets = f"{LABELED / 'tune-llm'},{LABELED / 'tune-human'}"
    assert main(["report", str(run), "--out", str(tmp_path / "cal"), "--resamples", "50", "--no-figures",
                 "--calibration", sets, "--calibration", str(LABELED / "legacy-heldout")]) == 0
    capsys.readouterr()
    cm = pl.read_csv(tmp_path / "cal/tables/condition_matrix.csv")
    assert set(ADJ_COLUMNS) <= set(cm.columns)
    for row in cm.iter_rows(named=True):
        for s in ("P", "D"):
            assert 0.0 <= row[f"{s}_adj_lo"] <= row[f"{s}_adj"] <= row[f"{s}_adj_hi"] <= 100.0
    md = (tmp_path / "cal/report.md").read_text()
    assert "tune-llm (n = 60" in md and "legacy-heldout (n = 90" in md and "210 artifacts" in md
    assert "matrix-inversion" in md and "transfer to this run" in md
    assert "gold \\ checker" in md or "gold \\\\ checker" in md


def test_report_calibration_bad_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(tmp_path / "run.jsonl")
    bad = tmp_path / "tune-bad"
    shutil.copytree(LABELED / "tune-llm", bad)
    lines = (bad / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    obj = json.loads(lines[2])
    del obj["state"]
    lines[2] = json.dumps(obj)
    (bad / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["report", str(run), "--out", str(tmp_path / "o"), "--calibration", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "labels.jsonl:3" in err and "'state'" in err and "Traceback" not in err
    assert main(["report", str(run), "--out", str(tmp_path / "o"), "--calibration", str(tmp_path / "nope")]) == 2
