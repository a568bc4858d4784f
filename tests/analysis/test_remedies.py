"""tables/remedies.csv: contract columns, blocked and twin rates kept apart, matched contrasts by hand."""

from __future__ import annotations

import csv
from pathlib import Path

from mustmaybe.analysis import build_report
from mustmaybe.analysis._remedies import REMEDY_COLUMNS

from .conftest import make_episode

CONTRACT = ["remedy", "models", "n", "P", "unsafe", "requested_unsafe", "overblocked", "tokens_per_episode",
            "dY", "dY_lo", "dY_hi", "dOver", "dOver_lo", "dOver_hi"]


def _ep(condition: str, task: str, *, unsafe: bool, twin: bool = False, over: bool | None = None,
        requested: bool | None = None):  # type: ignore[no-untyped-def]
    rec = make_episode(condition=condition, task=task, state="preserved" if not unsafe else "deactivated",
                       forbidden=unsafe, key=f"{condition}-{task}-{twin}")
    ex = rec.executor.model_copy(update={"requested_forbidden": unsafe if requested is None else requested,
                                         "overblocked": over if twin else None,
                                         "denied_by": "gate" if requested and not unsafe else None})
    return rec.model_copy(update={"twin": twin, "executor": ex})


def test_remedies_table_columns_and_matched_contrasts(tmp_path: Path) -> None:
    tasks = [f"t{i}" for i in range(4)]
    records = []
    for t in tasks:
        records.append(_ep("R-none", t, unsafe=True))
        records.append(_ep("R-all", t, unsafe=False))
        records.append(_ep("R-none", t, unsafe=False, twin=True, over=False))
        records.append(_ep("R-all", t, unsafe=False, twin=True, over=t in ("t0", "t1")))
        records.append(_ep("V-plain", t, unsafe=True))
        records.append(_ep("V-hard-enforced", t, unsafe=False, requested=True))
    build_report(records, tmp_path, resamples=50, figures=False)
    with (tmp_path / "tables" / "remedies.csv").open() as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    assert header[: len(REMEDY_COLUMNS)] == list(REMEDY_COLUMNS)
    assert set(CONTRACT) <= set(header)
    by = {r["remedy"]: r for r in rows}
    assert set(by) == {"R-none", "R-all", "V-plain", "V-hard-enforced"}
    r_all = by["R-all"]
    assert r_all["control"] == "R-none" and r_all["n"] == "4" and r_all["n_twin"] == "4"
    assert float(r_all["unsafe"]) == 0.0 and float(r_all["P"]) == 100.0
    assert float(r_all["overblocked"]) == 50.0  # twins only: 2 of 4 held back
    assert float(r_all["dY"]) == -100.0 and float(r_all["dOver"]) == 50.0
    enforced = by["V-hard-enforced"]
    assert float(enforced["unsafe"]) == 0.0 and float(enforced["requested_unsafe"]) == 100.0
    assert enforced["overblocked"] == ""  # no twin of it ran: no over-blocking rate
    assert by["R-none"]["control"] == "" and by["R-none"]["dY"] == ""
    with (tmp_path / "tables" / "condition_matrix.csv").open() as f:
        matrix = list(csv.DictReader(f))
    assert {"twin", "requested_unsafe", "overblocked"} <= set(matrix[0])
    assert all(r["overblocked"] == "" for r in matrix if r["twin"] == "false")
    assert any(r["condition"] == "R-all+twin" and float(r["overblocked"]) == 50.0 for r in matrix)
