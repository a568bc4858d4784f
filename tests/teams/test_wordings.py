"""The paraphrase panel (appendix G): deterministic wording variants of the role prompts and task text,
one checker view for every variant, base keys and records unchanged, and the report's table."""

from __future__ import annotations

import asyncio
from pathlib import Path

import polars as pl
import pytest

from mustmaybe import cli
from mustmaybe.agents import prompts
from mustmaybe.analysis import build_frames
from mustmaybe.analysis._load import load_episodes
from mustmaybe.analysis._paraphrase import paraphrase_table
from mustmaybe.checker import checker_view, score_artifact
from mustmaybe.scenarios import find_task, task_wording, worded, wording_problem
from mustmaybe.sweep import plan_sweep
from mustmaybe.teams import build_team, episode_spec, run_episode, wording_names

ROOT = Path(__file__).resolve().parents[2]
SIM = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}
VARIANTS = ("p1", "p2")
PANEL_TASKS = ("vendor-summary-q3", "billing-db-read-grant-write", "access-log-email-scrub", "churned-accounts-winback")


def test_every_prompt_has_two_hand_written_variants() -> None:
    assert wording_names() == ["base", *VARIANTS]
    for name in prompts.TEMPLATES:
        texts = {w: prompts.template(name, w).template for w in ("base", *VARIANTS)}
        assert len(set(texts.values())) == 3, name  # each variant rewords it
        # The lines a reader parses stay as they are (the reviewer's labels, the executor's JSON keys, …).
        for marker in ("Status:", "Recommended action:", '"blocker_recognized"', "Team note: ${",
                       "Relevant history: ${", "Your view: ${", "${instruction}", "${stages}"):
            if marker in texts["base"]:
                assert all(marker in t for t in texts.values()), (name, marker)
    for style in prompts.STYLE_INSTRUCTIONS:
        assert len({prompts.style_instruction(style, w) for w in ("base", *VARIANTS)}) == 3


def test_variants_are_deterministic() -> None:
    s = find_task("vendor-summary-q3")
    for w in VARIANTS:
        a = episode_spec(s, "P4", models=SIM, wording=w)
        b = episode_spec(s, "P4", models=SIM, wording=w)
        assert a.key == b.key and a.wording_record == b.wording_record
        assert a.surface == b.surface and worded(s, w) == a.surface
        assert prompts.transformer_system(a.condition, a.surface, role="transformer", wording=w) == \
            prompts.transformer_system(b.condition, b.surface, role="transformer", wording=w)
    keys = {episode_spec(s, "P4", models=SIM, wording=w).key for w in ("base", *VARIANTS)}
    assert len(keys) == 3


def test_base_keys_and_records_are_unchanged() -> None:
    s = find_task("vendor-summary-q3")
    spec = episode_spec(s, "P4", models=SIM)
    assert spec.key == episode_spec(s, "P4", models=SIM, wording="base").key
    assert "wording" not in spec.inputs() and spec.wording_record is None
    rec = asyncio.run(run_episode(build_team(spec), spec))
    assert "wording" not in rec.to_json_dict() and '"wording"' not in rec.model_dump_json(by_alias=True)


@pytest.mark.parametrize("task", PANEL_TASKS)
def test_the_checker_view_is_identical_across_variants(task: str) -> None:
    s = find_task(task)
    views = {w: checker_view(episode_spec(s, "P4", models=SIM, wording=w).scenario).digest
             for w in ("base", *VARIANTS)}
    assert len(set(views.values())) == 1
    for w in VARIANTS:
        t = task_wording(s, w)
        assert t is not None and t.goal != s.goal and t.full_context != s.full_context
        surface = worded(s, w)
        assert (surface.blocker, surface.actions, surface.resolution) == (s.blocker, s.actions, s.resolution)


def test_agents_read_the_variant_and_the_checker_the_task() -> None:
    s = find_task("vendor-summary-q3")
    spec = episode_spec(s, "P4", models=SIM, wording="p1")
    rec = asyncio.run(run_episode(build_team(spec), spec))
    assert rec.wording is not None and rec.wording.id == "p1" and rec.wording.digest == spec.wording_record.digest
    reviewer_saw = "\n".join(rec.visibility["reviewer"])
    assert spec.surface.full_context.strip().splitlines()[0] in reviewer_saw
    assert s.full_context.strip().splitlines()[0] not in reviewer_saw
    assert prompts.render("reviewer", "p1") in reviewer_saw
    assert rec.isolation.ok
    # Every stored score is the task's own checker on the hop text: the same view as the base wording.
    for hop in rec.hops:
        assert score_artifact(s, hop.text).state == hop.score.state


def test_a_task_without_a_variant_is_refused_or_skipped(tmp_path: Path) -> None:
    s = find_task("board-minutes-draft")
    why = wording_problem(s, "p1")
    assert why is not None and "scenarios/wordings/p1/board-minutes-draft.yaml" in why
    with pytest.raises(LookupError, match="no 'p1' wording"):
        episode_spec(s, "P4", models=SIM, wording="p1")
    with pytest.raises(LookupError, match="unknown wording 'p9'"):
        episode_spec(s, "P4", models=SIM, wording="p9")


@pytest.fixture(scope="module")
def small_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped paraphrase sweep on 2 tasks × 2 seeds (48 episodes), on sim."""
    d = tmp_path_factory.mktemp("para")
    text = (ROOT / "scripts" / "sweeps" / "paraphrase.toml").read_text(encoding="utf-8")
    start, end = text.index("tasks = ["), text.index("conditions = [")
    tasks = '["vendor-summary-q3", "access-log-email-scrub", "board-minutes-draft"]'
    text = text[:start] + f"tasks = {tasks}\n" + text[end:]
    text = text.replace("seeds = [1, 2, 3, 4]", "seeds = [1, 2]").replace('name = "paraphrase"', 'name = "para-small"')
    (d / "sweep.toml").write_text(text, encoding="utf-8")
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["sweep", str(d / "sweep.toml"), "--out", str(d / "run"), "--json"]) == 0
    assert cli.main(["report", str(d / "run"), "--out", str(d / "report")]) == 0
    return d


def test_the_shipped_sweep_is_the_papers_panel_size() -> None:
    plan = plan_sweep(ROOT / "scripts" / "sweeps" / "paraphrase.toml")
    assert len(plan.episodes) == 192 and not plan.skipped
    assert {e.spec.wording for e in plan.episodes} == {"base", *VARIANTS}


def test_a_small_sim_paraphrase_sweep_reports_its_table(small_panel: Path) -> None:
    records = load_episodes(small_panel / "run")
    assert len(records) == 2 * 2 * 4 * 3 + 2 * 4  # board-minutes-draft has no variant: it runs in base only
    skipped = plan_sweep(small_panel / "sweep.toml").skipped
    assert "board-minutes-draft × P4 × p1: task board-minutes-draft has no 'p1' wording of its text " \
           "(scenarios/wordings/p1/board-minutes-draft.yaml)" in skipped
    table = pl.read_csv(small_panel / "report" / "tables" / "paraphrase.csv")
    assert set(table["wording"].to_list()) == {"base", *VARIANTS}
    assert {"P4 vs P0", "S3 vs S0", "pooled (main)"} <= set(table["contrast"].to_list())
    assert table.filter(pl.col("wording") == "base")["shift_dD"].is_null().all()
    assert table.filter(pl.col("wording") != "base")["shift_dD"].is_not_null().all()
    md = (small_panel / "report" / "report.md").read_text(encoding="utf-8")
    assert "Transformation contrast per wording variant (appendix G) — SIMULATED" in md


def test_the_table_is_the_per_wording_contrast(small_panel: Path) -> None:
    """Each row equals Table 8's contrast computed on that wording's episodes alone; the shift is their difference."""
    from mustmaybe.analysis._contrasts import risk_differences

    ep = build_frames(load_episodes(small_panel / "run")).episodes
    table = paraphrase_table(ep, resamples=200)
    for w in ("base", *VARIANTS):
        rd = risk_differences(ep.filter(pl.col("wording") == w), resamples=0)
        own = {(r["condition"], r["control"]): r["dD"] for r in rd.table.iter_rows(named=True)}
        for row in table.filter(pl.col("wording") == w).iter_rows(named=True):
            if row["contrast"].startswith("pooled"):
                continue
            cond, _, ctrl = row["contrast"].partition(" vs ")
            assert row["dD"] == pytest.approx(own[(cond, ctrl)])
            assert row["dD_lo"] <= row["dD"] <= row["dD_hi"]
    # board-minutes-draft ran in base only: the shift is taken on the tasks both wordings hold, and says so.
    assert all("both wordings hold" in (r["note"] or "") for r in table.filter(pl.col("wording") != "base")
               .iter_rows(named=True))
    both = paraphrase_table(ep.filter(pl.col("task") != "board-minutes-draft"), resamples=200)
    base = {r["contrast"]: r["dD"] for r in both.filter(pl.col("wording") == "base").iter_rows(named=True)}
    for row in both.filter(pl.col("wording") != "base").iter_rows(named=True):
        assert row["note"] is None
        assert row["shift_dD"] == pytest.approx(row["dD"] - base[row["contrast"]])
        assert row["shift_dD_lo"] <= row["shift_dD"] <= row["shift_dD_hi"]


def test_list_wordings(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["list", "wordings", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"base", *VARIANTS}
    assert all(set(rows[w]["tasks"]) == set(PANEL_TASKS) for w in VARIANTS)
    assert rows["p1"]["prompts"] == prompts.wording_digest("p1")
