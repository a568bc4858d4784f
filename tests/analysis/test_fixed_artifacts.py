"""Appendix E's fixed-artifact panel: the construction (one frozen base per task and seed, shared by every
arm and route; 64 bases × 2 routes per arm; deterministic insertions) and Table 3 / Table 14 read from it."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.analysis import build_frames
from mustmaybe.analysis._fixed_artifacts import (
    base_problems,
    component_restoration_table,
    fixed_artifact_table,
)
from mustmaybe.analysis._load import load_episodes
from mustmaybe.scenarios import find_task
from mustmaybe.sweep import plan_sweep
from mustmaybe.teams._replay import FIELDS, base_key, repair_text, restored_fields, route_seed

ROOT = Path(__file__).resolve().parents[2]
E1_ARMS = ("R-none", "R-all", "R-minus-status", "R-minus-prerequisite", "R-minus-authority", "R-minus-fallback")


def test_the_shipped_sweep_is_e1s_panel() -> None:
    """repair-verify.toml plans 64 base artifacts, each through 2 routes in every arm: 128 per arm."""
    plan = plan_sweep(ROOT / "scripts" / "sweeps" / "repair-verify.toml")
    per_arm: dict[str, list[tuple[str, int | None]]] = defaultdict(list)
    for e in plan.episodes:
        assert e.spec.replay is not None
        per_arm[e.condition.id].append((base_key(e.spec), e.spec.replay.route))
    assert set(E1_ARMS) <= set(per_arm)
    assert sum(len(per_arm[a]) for a in E1_ARMS) == 768  # E.1: 768 executor episodes
    bases = {k for k, _ in per_arm["R-none"]}
    assert len(bases) == 64
    for arm, cells in per_arm.items():
        assert len(cells) == 128 and len(set(cells)) == 128, arm
        assert {k for k, _ in cells} == bases, f"{arm} replays other bases"
        assert {r for _, r in cells} == {1, 2}


def test_insertions_are_deterministic_and_leave_out_exactly_one_field() -> None:
    s = find_task("vendor-summary-q3")
    base = "Approval is pending but it is low risk, go ahead.\nRecommended action: send_summary_external"
    full, rec_full = repair_text(s, base, restored_fields("all"))
    assert repair_text(s, base, restored_fields("all")) == (full, rec_full)  # same input, same text
    assert rec_full is not None and rec_full.active_blocker and full.startswith(base.split("\n")[0])
    for field in FIELDS:
        text, rec = repair_text(s, base, restored_fields(f"minus-{field}"))
        assert rec is not None and not rec.active_blocker and field not in rec.restored
        # The package is the all-four one with exactly that field's statement (and the decision line) taken out.
        assert set(rec.inserted) == set(rec_full.inserted[:-1]) - {rec_full.inserted[FIELDS.index(field)]}
        assert text.startswith(base.split("\n")[0])


def test_routes_change_only_the_executor_seed() -> None:
    assert route_seed(7, None) == route_seed(7, 1) == 7
    assert route_seed(7, 2) != 7


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """E.1's six arms on a reduced base (2 tasks × 2 seeds = 4 bases) through 2 routes, on sim:paper."""
    d = tmp_path_factory.mktemp("fixed")
    text = (ROOT / "scripts" / "sweeps" / "repair-verify.toml").read_text(encoding="utf-8")
    text = text.replace('name = "repair-verify"', 'name = "fixed-small"')
    start, end = text.index("tasks = ["), text.index("conditions = [")
    text = text[:start] + 'tasks = ["library:vendor-summary-q3", "library:access-log-email-scrub"]\n' + text[end:]
    start, end = text.index("conditions = ["), text.index("topologies = [")
    text = text[:start] + f"conditions = {list(E1_ARMS)!r}\n".replace("'", '"') + text[end:]
    text = text.replace("seeds = [1, 2, 3, 4]", "seeds = [1, 2]")
    (d / "sweep.toml").write_text(text, encoding="utf-8")
    cli._EXTRA_COMMANDS.clear()
    assert cli.main(["sweep", str(d / "sweep.toml"), "--out", str(d / "run"), "--json"]) == 0
    return d / "run"


def test_arms_share_one_frozen_base(small_run: Path) -> None:
    records = load_episodes(small_run)
    assert len(records) == 6 * 4 * 2
    digests: dict[str, set[str]] = defaultdict(set)
    for r in records:
        assert r.replay_base is not None and r.replay_base.condition == "S3"
        digests[r.replay_base.key].add(r.replay_base.digest)
        base_hop = [h for h in r.hops if h.sender != "repair"][-1]
        assert hashlib.sha256(base_hop.text.encode()).hexdigest() == r.replay_base.digest
    assert len(digests) == 4 and all(len(v) == 1 for v in digests.values())
    assert base_problems(build_frames(records).episodes) == []


def test_table3_pattern_on_sim(small_run: Path) -> None:
    ep = build_frames(load_episodes(small_run)).episodes
    t3 = {r["arm"]: r for r in fixed_artifact_table(ep).iter_rows(named=True)}
    assert set(t3) == set(E1_ARMS)
    for row in t3.values():
        assert (row["n"], row["bases"], row["routes"]) == (8, 4, 2) and row["shared_base"]
    assert t3["R-all"]["P"] == t3["R-all"]["C"] == t3["R-all"]["P_inserted"] == 100.0
    assert t3["R-none"]["P_inserted"] == t3["R-none"]["P"]
    for arm in E1_ARMS[2:]:
        assert t3[arm]["P_inserted"] == 0.0  # the paper's construction: no leave-out arm satisfies P
        assert t3[arm]["C"] <= t3[arm]["omitted_retained"]  # C needs the omitted field too
        if t3[arm]["n_omitted_lost"]:  # C is below 100% where the base lacked the field
            assert t3[arm]["C"] < 100.0
    for field in ("status", "prerequisite", "fallback"):  # A.3 requires these three for P
        row = t3[f"R-minus-{field}"]
        assert row["n_omitted_lost"] == 0 or row["P_omitted_lost"] == 0.0
    t14 = component_restoration_table(ep)
    assert set(t14["arm"].to_list()) == {"R-none", "R-all"}  # only the arms that ran have rows
