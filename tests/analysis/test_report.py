"""`build_report` and the `report` / `compare` commands: contract files, panels, missing data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from mustmaybe import cli
from mustmaybe.analysis import build_frames, build_report, condition_matrix, safe_at_k

from .conftest import make_episode

CM_COLUMNS = ["condition", "topology", "models", "n", "P", "D", "U", "unsafe", "recognition"]
RD_COLUMNS = ["condition", "control", "n", "dP", "dD", "dY", "dP_lo", "dP_hi", "dD_lo", "dD_hi", "dY_lo", "dY_hi"]


def _store(model: str = "sim:paper", tasks: int = 4) -> list:  # type: ignore[type-arg]
    eps = []
    for i in range(tasks):
        for s in (1, 2):
            eps.append(make_episode(task=f"t{i}", seed=s, model=model, condition="P0", state="preserved"))
            eps.append(make_episode(task=f"t{i}", seed=s, model=model, condition="P4",
                                    state="deactivated" if (i + s) % 2 else "preserved", forbidden=i == 0))
            eps.append(make_episode(task=f"t{i}", seed=s, model=model, condition="S3", state="deactivated",
                                    hop_states=["preserved", "preserved", "deactivated"], lost=("status",)))
    return eps


def _header(path: Path) -> list[str]:
    with path.open(newline="") as fh:
        return next(csv.reader(fh))


def test_contract_files_and_columns(tmp_path: Path) -> None:
    real = _store("openai:qwen@http://127.0.0.1:8000/v1")
    summary = build_report({"r1": _store() + real}, tmp_path / "rep", resamples=50)
    out = tmp_path / "rep"
    for name in ("report.html", "report.md", "tables/condition_matrix.csv", "tables/risk_differences.csv"):
        assert (out / name).is_file(), name
    assert list((out / "figures").glob("*.png"))
    assert _header(out / "tables/condition_matrix.csv")[:9] == CM_COLUMNS
    assert _header(out / "tables/risk_differences.csv")[:12] == RD_COLUMNS
    cm = pl.read_csv(out / "tables/condition_matrix.csv")
    # one row per (condition, topology, models); real and simulated never pooled
    assert cm.height == 6 and cm.select("condition", "topology", "models").n_unique() == 6
    assert sorted(cm["simulated"].to_list()) == [False] * 3 + [True] * 3
    assert cm["n"].to_list() == [8] * 6
    assert all(0.0 <= v <= 100.0 for c in ("P", "D", "U", "unsafe", "recognition") for v in cm[c].to_list())
    p4 = cm.filter((pl.col("condition") == "P4") & pl.col("simulated")).row(0, named=True)
    assert (p4["P"], p4["D"], p4["unsafe"]) == (50.0, 50.0, 25.0)
    rd = pl.read_csv(out / "tables/risk_differences.csv")
    assert rd.height == 4 and set(rd["control"].to_list()) == {"P0", "S0"}
    assert summary.n_real == 24 and summary.n_simulated == 24
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "<img alt" in html and 'src="http' not in html
    md = (out / "report.md").read_text()
    assert "SIMULATED" in md and "Real-model episodes" in md
    assert "model configurations: openai:qwen@http://127.0.0.1:8000/v1 (n=24)" in md


def test_missing_condition_and_empty_cells_are_reported(tmp_path: Path) -> None:
    eps = [e for e in _store() if e.condition == "P4"]
    summary = build_report(eps, tmp_path, resamples=20, figures=False)
    rd = pl.read_csv(tmp_path / "tables/risk_differences.csv")
    row = rd.row(0, named=True)
    assert row["n"] == 0 and row["dD"] is None and row["dY_hi"] is None
    md = (tmp_path / "report.md").read_text()
    assert "control P0 was not run" in md
    assert "Not run in this panel (no row, no number): P0, P1, P2, P3, P5" in md
    assert "The compression gradient (G0–G4) was not run" in md
    assert summary.n_episodes == 8
    cm = pl.read_csv(tmp_path / "tables/condition_matrix.csv")
    assert cm["condition"].to_list() == ["P4"]   # no invented rows for conditions that were not run


def test_zero_episodes(tmp_path: Path) -> None:
    summary = build_report([], tmp_path, resamples=10)
    assert summary.n_episodes == 0
    assert "No episodes" in (tmp_path / "report.md").read_text()
    assert "No episodes" in (tmp_path / "report.html").read_text()
    assert _header(tmp_path / "tables/condition_matrix.csv")[:9] == CM_COLUMNS
    assert _header(tmp_path / "tables/risk_differences.csv")[:12] == RD_COLUMNS
    assert pl.read_csv(tmp_path / "tables/risk_differences.csv").height == 0


def test_real_only_report_has_no_simulated_banner(tmp_path: Path) -> None:
    build_report(_store("openai:x"), tmp_path, resamples=10, figures=False)
    assert "SIMULATED" not in (tmp_path / "report.md").read_text()


def test_duplicate_keys_across_runs_count_once(tmp_path: Path) -> None:
    eps = _store()
    summary = build_report({"a": eps, "b": eps[:5]}, tmp_path, resamples=10, figures=False)
    assert summary.duplicates == 5 and summary.n_episodes == len(eps)


def test_transition_loss_and_safe_k() -> None:
    eps = [make_episode(task="t1", condition="P4", state="deactivated", seed=1, forbidden=True),
           make_episode(task="t1", condition="P4", state="deactivated", seed=2),
           make_episode(task="t2", condition="P4", state="deactivated", seed=1, reviewer_state="deactivated"),
           make_episode(task="t2", condition="P4", state="preserved", seed=2)]
    ep = build_frames(eps, domains={}).episodes
    cm = condition_matrix(ep, resamples=10).row(0, named=True)
    assert cm["transition_loss"] == pytest.approx(50.0)   # t1 s1, t1 s2; t2 s1 was lost at the reviewer
    sk = safe_at_k(ep).row(0, named=True)
    assert (sk["tasks"], sk["k_min"], sk["safe_k"], sk["safe_episode"]) == (2, 2, 50.0, 75.0)


def test_domains_come_from_the_library() -> None:
    eps = [make_episode(task="vendor-summary-q3"), make_episode(task="not-in-library", seed=2)]
    ep = build_frames(eps).episodes
    assert dict(ep.select("task", "domain").iter_rows()) == {
        "vendor-summary-q3": "external_sharing", "not-in-library": "unknown"}


def main(argv: list[str]) -> int:
    # cli.main registers the extra commands on every call; start each call from an empty list.
    cli._EXTRA_COMMANDS.clear()
    return cli.main(argv)


def _jsonl(path: Path, eps: list) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(e.to_json_dict()) + "\n" for e in eps), encoding="utf-8")
    return path


def test_cli_report_and_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _jsonl(tmp_path / "a.jsonl", _store())
    b_eps = [e.model_copy(update={"executor": e.executor.model_copy(update={"forbidden": False})}) for e in _store()]
    b = _jsonl(tmp_path / "b.jsonl", b_eps)
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "rep"), "--resamples", "20",
                 "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "Condition matrix" in out and "SIMULATED" in out
    assert (tmp_path / "rep" / "report.html").is_file()
    assert main(["compare", str(a), str(b), "--resamples", "20", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["by"] == "run" and res["a"] == "a" and res["b"] == "b"
    p4 = next(r for r in res["rows"] if r["condition"] == "P4")
    assert p4["n_a"] == 8 and p4["dunsafe"] == pytest.approx(-25.0)
    assert main(["compare", str(a), str(b), "--resamples", "20"]) == 0
    assert "B − A" in capsys.readouterr().out
    # No (task, condition, seed, models) cell ran under both topologies: nothing matched, exit 1 (the table is written).
    assert main(["compare", str(a), "--by", "topology", "--a", "single", "--b", "chain:hops=3",
                 "--resamples", "20", "--csv", str(tmp_path / "c.csv")]) == 1
    assert (tmp_path / "c.csv").is_file()


def test_cli_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": "mustmaybe/episode@1"}\n')
    assert main(["report", str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    a = _jsonl(tmp_path / "a.jsonl", _store())
    assert main(["compare", str(a)]) == 2
    assert main(["compare", str(a), "--by", "executor-model"]) == 2
    assert "values in these runs: sim:paper" in capsys.readouterr().err
    assert main(["compare", str(a), "--by", "executor-model", "--a", "sim:paper", "--b", "zzz"]) == 2


def test_cli_reads_a_single_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "runs" / "one"
    run.mkdir(parents=True)
    _jsonl(run / "episodes.jsonl", _store())
    (run / "manifest.json").write_text("{}")
    assert main(["report", str(run), "--resamples", "10", "--no-figures", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["episodes"] == 24 and res["out"] == str(run / "report")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty)]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_cli_reads_a_sweep_run_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import mustmaybe.store as store_mod
    from mustmaybe.scenarios import find_task

    run = tmp_path / "sweep-run"
    eps = [*_store(), make_episode(task="vendor-summary-q3", condition="P4"),
           make_episode(task="vendor-summary-q3", condition="P0", state="preserved")]
    with store_mod.RunStore(run) as store:
        store.put_tasks([find_task("vendor-summary-q3")])
        for e in eps:
            store.put_episode(e)
    (run / "manifest.json").write_text("{}")
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--resamples", "10", "--no-figures",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"] == len(eps)
    cm = pl.read_csv(tmp_path / "rep" / "tables" / "condition_matrix.csv")
    assert cm.filter(pl.col("condition") == "P4")["n"].to_list() == [9]


def test_benign_twin_under_a_condition_is_not_pooled_with_it() -> None:
    eps = _store()
    twin = make_episode(task="t0", seed=1, condition="P4", state="deactivated", forbidden=True)
    eps.append(twin.model_copy(update={"twin": True, "key": "twin-key"}))
    frames = build_frames(eps)
    conds = frames.episodes.group_by("condition").len().sort("condition")
    counts = dict(zip(conds["condition"].to_list(), conds["len"].to_list(), strict=True))
    assert counts["P4"] == 8 and counts["P4+twin"] == 1


def test_safe_k_is_per_topology_and_k_counts_seeds(tmp_path: Path) -> None:
    # 2 seeds under 2 topologies: k is 2 in each topology's row, never 4 pooled across them.
    eps = [make_episode(task=t, condition="P4", seed=s, topology=topo, forbidden=(t, s, topo) == ("t1", 2, "chain"))
           for t in ("t1", "t2") for s in (1, 2) for topo in ("single", "chain")]
    sk = safe_at_k(build_frames(eps, domains={}).episodes)
    rows = {r["topology"]: r for r in sk.iter_rows(named=True)}
    assert set(rows) == {"single", "chain"}, rows
    for r in rows.values():
        assert (r["tasks"], r["k_min"], r["k_max"]) == (2, 2, 2)
    assert rows["chain"]["safe_k"] == 50.0 and rows["single"]["safe_k"] == 100.0
    build_report({"a": eps}, tmp_path, resamples=10, figures=False)
    with (tmp_path / "tables" / "safe_k.csv").open() as fh:
        header = next(csv.reader(fh))
    assert header[:3] == ["condition", "topology", "models"]


def test_compare_that_matches_nothing_says_so_and_suggests_by(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    a = _jsonl(tmp_path / "a.jsonl", _store())
    b = _jsonl(tmp_path / "b.jsonl", _store(model="sim:faithful"))
    assert main(["compare", str(a), str(b), "--resamples", "10"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "No matched episodes" in out and "try --by models" in out, out
    assert main(["compare", str(a), str(b), "--resamples", "10", "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["rows"] == [] and "try --by models" in captured.err
    # `sim` means `sim:paper`, as the docs say.
    assert main(["compare", str(a), str(b), "--by", "models", "--a", "sim", "--b", "sim:faithful",
                 "--resamples", "10", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["a"] == "sim:paper" and any(r["n_b"] for r in res["rows"])
