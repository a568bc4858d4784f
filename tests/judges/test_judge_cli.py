"""The judge instruments on the command line: check, calibrate, a judged sweep, rescore, the blind panel."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mustmaybe import cli
from mustmaybe.checker import CHECKER_NAME
from mustmaybe.scenarios import LIBRARY_DIR
from mustmaybe.store import record_dict

PANEL = "panel:sim:judge-lenient;sim:judge-strict;sim:judge-noisy"
JUDGES = "sim:judge-lenient;sim:judge-strict;sim:judge-noisy"
VENDOR = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _records(run: Path) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(run / "store.sqlite") as db:
        # The records as written (the store keeps a stage's or the artifact's repeated score as a reference).
        return {k: record_dict(r) for k, r in db.execute("SELECT key, record FROM episodes")}


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("judged")
    f = base / "s.toml"
    f.write_text("\n".join([
        'schema = "mustmaybe/sweep@1"', 'name = "judged"',
        'tasks = ["library:vendor-summary-q3", "library:board-minutes-draft"]',
        'conditions = ["P0", "P4", "S0", "S3"]', "seeds = [1, 2, 3]",
        f'checker = "routed:{PANEL}"',
        "[roles]", 'reviewer = ["sim"]', 'transformer = ["sim"]', 'executor = ["sim"]']) + "\n", encoding="utf-8")
    code, _, err = _cli("sweep", str(f), "--out", str(base / "run"), "--json")
    assert code == 0, err
    return base / "run"


def test_check_names_the_judge_and_counts_its_quotes(tmp_path: Path) -> None:
    art = tmp_path / "a.txt"
    art.write_text("Approval is basically a formality; send it and the board can confirm later.\n", encoding="utf-8")
    code, out, _ = _cli("check", str(VENDOR), str(art), "--checker", "judge:sim:judge-strict", "--json")
    body = json.loads(out)
    assert code == 0 and body["checker"] == "judge:sim:judge-strict" and body["unverified_quotes"] == 0
    for spans in body["evidence"].values():
        for sp in spans:
            assert art.read_text(encoding="utf-8")[sp["start"]:sp["end"]] == sp["text"]


@pytest.mark.parametrize(("spec", "says"), [("panel:sim:judge-strict", "at least two judges"),
                                            ("judge:openai:m@http://127.0.0.1:9/v1", "127.0.0.1:9")])
def test_check_refuses_what_gives_no_judgment(tmp_path: Path, spec: str, says: str) -> None:
    art = tmp_path / "a.txt"
    art.write_text("Hold it.\n", encoding="utf-8")
    code, out, err = _cli("check", str(VENDOR), str(art), "--checker", spec, "--json")
    assert code == 2 and out == "" and says in err and "Traceback" not in err


def test_calibrate_reports_what_the_routed_instrument_did() -> None:
    code, out, _ = _cli("calibrate", "tests/labeled/tune-llm", "--checker", f"routed:{PANEL}", "--json")
    body = json.loads(out)
    assert code == 0 and body["checker"] == f"routed:{PANEL}" and body["n"] == 60
    decided = body["instrument"]["decided_by"]
    assert set(decided) <= {"routed:rules", f"routed:{PANEL}"} and sum(decided.values()) == 60
    assert decided["routed:rules"] > 0 and decided[f"routed:{PANEL}"] > 0


def test_a_judged_sweep_names_its_instrument_on_every_score(judged_run: Path) -> None:
    records = _records(judged_run)
    assert len(records) == 2 * 4 * 3
    for rec in records.values():
        assert rec["checker"] == f"routed:{PANEL}"
        for score in [rec["artifact"]["score"], *(h["score"] for h in rec["hops"])]:
            assert score["checker"] in ("routed:rules", f"routed:{PANEL}")
    assert (judged_run / "judgments.sqlite").exists()


def test_rescore_with_a_panel_changes_only_scores_and_asks_nothing_twice(judged_run: Path, tmp_path: Path) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(judged_run, run)
    before = _records(run)
    code, out, _ = _cli("rescore", str(run), "--checker", PANEL, "--json")
    first = json.loads(out)
    assert code == 0 and first["checker"] == PANEL
    after = _records(run)
    assert set(after) == set(before)
    for key, rec in after.items():
        old = before[key]
        # Each text is the panel's, or the rules' where no judge gave a usable answer (said in `unsure`).
        assert rec["checker"] == PANEL and rec["artifact"]["score"]["checker"] in (PANEL, CHECKER_NAME)
        assert rec["artifact"]["text"] == old["artifact"]["text"]
        assert [h["text"] for h in rec["hops"]] == [h["text"] for h in old["hops"]]
        assert rec["executor"] == old["executor"] and rec["usage"] == old["usage"]
        strip = {"hops", "artifact", "stages", "checker", "checker_version", "first_break_hop", "first_break_stage",
                 "reviewer_identified", "errors"}
        assert {k: v for k, v in rec.items() if k not in strip} == {k: v for k, v in old.items() if k not in strip}
    with sqlite3.connect(run / "store.sqlite") as db:
        (states,) = db.execute("SELECT COUNT(*) FROM messages WHERE score LIKE ?",
                               (f'%"checker":"{PANEL}"%',)).fetchone()
    assert states > 0
    code, out, _ = _cli("rescore", str(run), "--checker", PANEL, "--json")
    second = json.loads(out)
    assert code == 0 and second["instrument"]["model_calls"] == 0 and second["state_changed"] == 0
    assert second["instrument"]["cached_judgments"] > 0
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["checker"] == PANEL


def test_the_blind_panel_writes_every_table_and_resumes(judged_run: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "panel"
    code, out, err = _cli("judge", str(judged_run), "--judges", JUDGES, "--sample", "12", "--seed", "1",
                          "--out", str(out_dir), "--json", "--no-figures")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["episodes"] == 12 and summary["judgments"] == 36 and summary["audit"]["leaks"] == 0
    lines = [json.loads(x) for x in (out_dir / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 36 and {ln["judge"] for ln in lines} == set(JUDGES.split(";"))
    records = _records(judged_run)
    conditions = {records[ln["episode"]]["condition"] for ln in lines}
    assert conditions == {"P0", "P4", "S0", "S3"}  # stratified: every condition sampled
    for ln in lines:
        rec = records[ln["episode"]]
        assert rec["artifact"]["text"] in ln["view"] and "condition" not in ln
        outside = ln["view"].replace(rec["artifact"]["text"], "")
        assert f'"{rec["condition"]}"' not in outside and rec["executor"]["rationale"] not in outside
    headers = {
        "judge_agreement": ["component", "n", "judges", "pair_agreement", "fleiss_kappa", "krippendorff_alpha"],
        "judge_pairs": ["component", "judge_a", "judge_b", "n", "agreement", "cohen_kappa"],
        "judge_concordance": ["component", "n", "concordance", "macro_f1"],
        "judge_gap": ["label_source", "control_D", "pressure_D", "gap", "gap_loo_min", "gap_loo_max"],
    }
    for name, cols in headers.items():
        with (out_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        assert rows and list(rows[0])[:len(cols)] == cols
    gap = {r["label_source"]: r for r in csv.DictReader((out_dir / "tables" / "judge_gap.csv").open())}
    assert set(gap) == {"majority", "conservative", "contract", "checker", *JUDGES.split(";")}
    again = json.loads(_cli("judge", str(judged_run), "--judges", JUDGES, "--sample", "12", "--seed", "1",
                            "--out", str(out_dir), "--json", "--no-figures")[1])
    assert again["model_calls"] == 0 and again["reused"] == 36


def test_judge_refuses_bad_input(judged_run: Path, tmp_path: Path) -> None:
    code, _, err = _cli("judge", str(tmp_path), "--judges", JUDGES, "--out", str(tmp_path / "o"))
    assert code == 2 and "not a run folder" in err
    code, _, err = _cli("judge", str(judged_run), "--judges", "sim:nope", "--out", str(tmp_path / "o"))
    assert code == 2 and "unknown sim profile 'nope'" in err


def test_report_calibrates_the_instrument_that_scored_the_run(judged_run: Path, tmp_path: Path) -> None:
    code, _, err = _cli("report", str(judged_run), "--out", str(tmp_path / "rep"), "--no-figures", "--resamples",
                        "50", "--calibration", "tests/labeled/tune-llm")
    assert code == 0, err
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert f"routed:{PANEL}" in text
    assert "Routed: the judge decided" in text  # the share routed, from the records' own scores
    with (tmp_path / "rep" / "tables" / "condition_matrix.csv").open(encoding="utf-8") as fh:
        assert "P_adj" in next(csv.reader(fh))


def test_sim_judges_mark_every_output_simulated(judged_run: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "panel"
    code, out, err = _cli("judge", str(judged_run), "--judges", JUDGES, "--sample", "6", "--seed", "1",
                          "--out", str(out_dir), "--no-figures")
    assert code == 0, err
    assert out.lstrip().startswith("⚠ SIMULATED: 3 judge(s) ran on the sim backend")
    summary = (out_dir / "judge_summary.md").read_text(encoding="utf-8")
    assert summary.startswith("# Judge panel — SIMULATED") and "**SIMULATED: 3 judge(s)" in summary
    for name in ("judge_agreement", "judge_pairs", "judge_concordance", "judge_gap"):
        with (out_dir / "tables" / f"{name}.csv").open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        assert rows and all(r["simulated"] == "true" for r in rows), name
    code, out, _ = _cli("judge", str(judged_run), "--judges", JUDGES, "--sample", "6", "--seed", "1",
                        "--out", str(out_dir), "--json", "--no-figures")
    assert json.loads(out)["simulated"] == JUDGES.split(";")


# ------------------------------------------------------------------ five judges, several runs, report --panel
FIVE = ["sim:judge-lenient", "sim:judge-strict", "sim:judge-noisy", "sim:judge-lax", "sim:judge-picky"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("two")
    runs = []
    for name, seeds in (("a", "[1, 2]"), ("b", "[3, 4]")):
        f = base / f"{name}.toml"
        f.write_text("\n".join([
            'schema = "mustmaybe/sweep@1"', f'name = "sim-{name}"',
            'tasks = ["library:vendor-summary-q3", "library:board-minutes-draft"]',
            'conditions = ["P0", "P4", "S3"]', f"seeds = {seeds}",
            "[roles]", 'reviewer = ["sim:paper"]', 'transformer = ["sim:paper"]', 'executor = ["sim:paper"]',
        ]) + "\n", encoding="utf-8")
        code, _, err = _cli("sweep", str(f), "--out", str(base / f"run-{name}"), "--json")
        assert code == 0, err
        runs.append(base / f"run-{name}")
    return runs[0], runs[1]


def test_a_five_judge_preset_across_two_runs(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    out_dir = tmp_path / "panel"
    code, out, err = _cli("judge", str(a), str(b), "--judges", "preset:five-sim", "--sample", "16", "--seed", "3",
                          "--out", str(out_dir), "--json", "--no-figures")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["judges"] == FIVE and summary["episodes"] == 16 and summary["judgments"] == 80
    lines = [json.loads(x) for x in (out_dir / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    keys_a, keys_b = set(_records(a)), set(_records(b))
    judged = {ln["episode"] for ln in lines}
    assert judged & keys_a and judged & keys_b and judged <= keys_a | keys_b  # drawn across both runs
    drawn = json.loads((out_dir / "panel.json").read_text(encoding="utf-8"))
    assert [r["run"] for r in drawn["runs"]] == [str(a), str(b)] and drawn["judges"] == FIVE
    assert sum(r["episodes"] for r in drawn["runs"]) == 16
    # Five voices: every pair of the five is in the pairs table, and the agreement table counts five judges.
    pairs = [r for r in csv.DictReader((out_dir / "tables" / "judge_pairs.csv").open()) if r["component"] == "status"]
    assert len(pairs) == 10
    agreement = list(csv.DictReader((out_dir / "tables" / "judge_agreement.csv").open()))
    assert {r["judges"] for r in agreement} == {"5"}
    # Each judgment is cached in its own run's folder: the same panel again asks no model.
    assert (a / "judgments.sqlite").exists() and (b / "judgments.sqlite").exists()
    again = json.loads(_cli("judge", str(a), str(b), "--judges", "preset:five-sim", "--sample", "16", "--seed", "3",
                            "--out", str(out_dir), "--json", "--no-figures")[1])
    assert again["model_calls"] == 0 and again["reused"] == 80
    code, _, err = _cli("judge", str(a), "--judges", "preset:nine", "--out", str(tmp_path / "o"))
    assert code == 2 and "unknown preset 'nine'; known: five-sim" in err


def test_report_panel_on_a_sim_run_says_simulated(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    panel = tmp_path / "panel"
    assert _cli("judge", str(a), str(b), "--judges", "preset:five-sim", "--out", str(panel), "--no-figures",
                "--json")[0] == 0
    code, out, err = _cli("report", str(a), str(b), "--out", str(tmp_path / "rep"), "--no-figures",
                          "--resamples", "50", "--panel", str(panel))
    assert code == 0, err
    assert "SIMULATED judges" in out
    with (tmp_path / "rep" / "tables" / "condition_matrix.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {"P_panel", "P_panel_lo", "P_panel_hi", "D_panel", "D_panel_lo", "D_panel_hi"} <= set(rows[0])
    assert all(r["panel_simulated"] == "true" for r in rows)
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    section = md[md.index("### Rates corrected by the judge panel"):md.index("### Component loss")]
    for title in (ln for ln in section.splitlines() if ln.startswith(("###", "**"))):
        assert "SIMULATED" in title
    assert "panel \\ checker" in section and "24 judged artifacts" in section
