"""tables/transport.csv (Table 21): matched rates per substrate and the differences, against a case by hand."""

from __future__ import annotations

import csv
from pathlib import Path

from mustmaybe.analysis import build_report
from mustmaybe.records import ArtifactRecord

from .conftest import make_episode

# (task, seed) → (state, unsafe) for P4 on each substrate. t3/s1 ran only on AutoGen, t3/s3 only on LangGraph.
AUTOGEN = {("t1", 1): ("deactivated", True), ("t1", 2): ("preserved", False), ("t2", 1): ("deactivated", True),
           ("t2", 2): ("deactivated", False), ("t3", 1): ("preserved", False), ("t3", 2): ("preserved", False)}
LANGGRAPH = {("t1", 1): ("deactivated", True), ("t1", 2): ("deactivated", False), ("t2", 1): ("preserved", False),
             ("t2", 2): ("preserved", False), ("t3", 2): ("preserved", False), ("t3", 3): ("deactivated", True)}


def _records() -> list:  # type: ignore[type-arg]
    out = []
    for substrate, cells in (("autogen", AUTOGEN), ("langgraph", LANGGRAPH)):
        for (task, seed), (state, unsafe) in cells.items():
            rec = make_episode(condition="P4", task=task, seed=seed, state=state, forbidden=unsafe,
                               key=f"P4-{task}-{seed}-{substrate}")
            out.append(rec.model_copy(update={"substrate": substrate}))
    # A control run on AutoGen alone, and a LangGraph episode that failed (counted, in no rate).
    out += [make_episode(condition="P0", task=t, state="preserved", key=f"P0-{t}") for t in ("t1", "t2")]
    failed = make_episode(condition="P4", task="t1", seed=9, key="P4-failed-lg")
    out.append(failed.model_copy(update={"substrate": "langgraph", "failed": True,
                                         "artifact": ArtifactRecord(text="", score=None)}))
    return out


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "tables" / "transport.csv").open() as f:
        return list(csv.DictReader(f))


def test_matched_rates_and_differences_by_hand(tmp_path: Path) -> None:
    build_report(_records(), tmp_path, resamples=200, figures=False)
    rows = {(r["condition"], r["substrate"]): r for r in _rows(tmp_path)}
    ag, lg = rows[("P4", "autogen")], rows[("P4", "langgraph")]
    # Matched cells: t1/s1, t1/s2, t2/s1, t2/s2, t3/s2 (five); t3/s1 and t3/s3 have no partner.
    assert ag["n"] == lg["n"] == "5" and ag["unmatched"] == lg["unmatched"] == "1"
    assert ag["tasks"] == "3" and ag["match"] == "task+seed+models" and ag["vs"] == "" and lg["vs"] == "autogen"
    # AutoGen on them: P t1/s2, t3/s2 → 40; D t1/s1, t2/s1, t2/s2 → 60; unsafe t1/s1, t2/s1 → 40.
    assert (float(ag["P"]), float(ag["D"]), float(ag["unsafe"])) == (40.0, 60.0, 40.0)
    # LangGraph: P t2/s1, t2/s2, t3/s2 → 60; D t1/s1, t1/s2 → 40; unsafe t1/s1 → 20.
    assert (float(lg["P"]), float(lg["D"]), float(lg["unsafe"])) == (60.0, 40.0, 20.0)
    assert (float(lg["dP"]), float(lg["dD"]), float(lg["dY"])) == (20.0, -20.0, -20.0)
    assert ag["dP"] == "" and lg["failed"] == "1" and ag["failed"] == "0"
    for r in (ag, lg):
        for col in ("P", "D", "unsafe"):
            assert float(r[f"{col}_lo"]) <= float(r[col]) <= float(r[f"{col}_hi"])
    for col in ("dP", "dD", "dY"):
        assert float(lg[f"{col}_lo"]) <= float(lg[col]) <= float(lg[f"{col}_hi"])
    # P0 ran on AutoGen only: its rows say so and hold no number.
    assert rows[("P0", "langgraph")]["n"] == "0" and "not run on langgraph" in rows[("P0", "langgraph")]["note"]


def test_the_other_tables_read_one_substrate(tmp_path: Path) -> None:
    build_report(_records(), tmp_path, resamples=50, figures=False)
    with (tmp_path / "tables" / "condition_matrix.csv").open() as f:
        matrix = {r["condition"]: r for r in csv.DictReader(f)}
    assert matrix["P4"]["n"] == "6" and matrix["P4"]["failed"] == "0"  # AutoGen's six, never pooled with LangGraph's
    text = (tmp_path / "report.md").read_text()
    assert "2 workflow substrates: autogen (8 scored), langgraph (6 scored)" in text
    assert "Workflow-substrate transport (Table 21)" in text


def test_one_substrate_has_no_transport_table(tmp_path: Path) -> None:
    only_lg = [r.model_copy(update={"substrate": "langgraph"}) for r in _records() if not r.failed]
    build_report(only_lg, tmp_path, resamples=50, figures=False)
    assert _rows(tmp_path) == []
    text = (tmp_path / "report.md").read_text()
    assert "every episode of this panel ran on langgraph" in text and "Table 21" not in text
    with (tmp_path / "tables" / "condition_matrix.csv").open() as f:
        assert {r["condition"]: r["n"] for r in csv.DictReader(f)}["P4"] == "12"
