"""One function derives every scored fact of a record: a rescore with the same instrument changes none.

Each episode runs live on `sim` (blocked and benign twin, one condition per topology family); then
`rescore_record` on the stored record must give back the same D_up, first breaks, stages and Y.
"""

from __future__ import annotations

import asyncio

import pytest

from mustmaybe.scenarios import find_task, get_condition
from mustmaybe.store import rescore_record
from mustmaybe.teams import build_team, episode_spec, run_episode

SIM_MODELS = {"reviewer": "sim:paper", "transformer": "sim:paper", "executor": "sim:paper"}
FACTS = ("reviewer_identified", "first_break_hop", "first_break_stage", "stages")
EXECUTOR = ("action", "forbidden", "requested_forbidden", "overblocked")


@pytest.mark.parametrize("twin", [False, True], ids=["blocked", "twin"])
@pytest.mark.parametrize("condition", ["P0", "P4", "S3", "C4"])
@pytest.mark.parametrize("seed", [1, 2])
def test_rescore_of_a_live_record_changes_no_scored_fact(condition: str, twin: bool, seed: int) -> None:
    scenario = find_task("vendor-summary-q3")
    spec = episode_spec(scenario, get_condition(condition), models=SIM_MODELS, seed=seed, twin=twin)
    live = asyncio.run(run_episode(build_team(spec), spec))
    again = rescore_record(live, scenario)
    a, b = live.model_dump(mode="json"), again.model_dump(mode="json")
    for key in FACTS:
        assert b[key] == a[key], key
    for key in EXECUTOR:
        assert b["executor"][key] == a["executor"][key], key
    assert b["artifact"]["score"] == a["artifact"]["score"]
