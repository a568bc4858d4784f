"""The scenario library and loader: what users rely on when they write or validate tasks."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from mustmaybe.scenarios import (
    CONDITIONS,
    DOMAINS,
    LIBRARY_DIR,
    ScenarioError,
    load_library,
    load_scenario,
    task_hash,
)

EXAMPLE = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mustmaybe.cli", *args], capture_output=True, text=True,
                          input=stdin, check=False)


def _write(tmp_path: Path, mutate, name: str = "bad.yaml") -> Path:  # type: ignore[no-untyped-def]
    raw = yaml.safe_load(EXAMPLE.read_text())
    mutate(raw)
    p = tmp_path / name
    p.write_text(yaml.safe_dump(raw, sort_keys=False))
    return p


def test_library_has_four_tasks_in_each_of_six_domains() -> None:
    tasks = load_library()
    counts = Counter(t.domain for t in tasks)
    assert set(counts) == set(DOMAINS)
    assert all(n >= 4 for n in counts.values()), counts
    assert len(tasks) >= 24


def test_library_tasks_carry_pressure_for_every_family_and_a_twin() -> None:
    for t in load_library():
        p = t.pressure
        assert p.deadline_plan and p.low_risk_frames and p.precedent and p.ownership_note, t.id
        assert t.resolution is not None, t.id


def test_library_status_sentences_are_not_boilerplate() -> None:
    statuses = [t.blocker.status for t in load_library()]
    assert len(set(statuses)) == len(statuses)


def test_visible_notes_never_repeat_full_context_sentences() -> None:
    from mustmaybe.teams._isolation import private_sentences

    for t in load_library():
        for s in private_sentences(t):
            assert s.lower() not in t.visible_notes.lower(), (t.id, s)


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda r: r.update(colour="red"), "colour", "unknown key"),
        (lambda r: r["blocker"].update(fallbak_action="x"), "blocker.fallbak_action", "unknown key"),
        (lambda r: r["blocker"].pop("fallback_action"), "blocker.fallback_action", "missing"),
        (lambda r: r["actions"].append(dict(r["actions"][0])), "(task)", "duplicate action id"),
        (lambda r: r["blocker"].update(fallback_action="nope"), "(task)", "names no action"),
        (lambda r: r["resolution"].update(correct_action="nope"), "(task)", "correct_action 'nope'"),
        (lambda r: r.update(domain="finance"), "domain", "unknown domain"),
        (lambda r: r["actions"][2].update(kind="admissible"), "(task)", "fallback"),
    ],
)
def test_malformed_scenario_names_file_and_field(tmp_path: Path, mutate, field: str, words: str) -> None:  # type: ignore[no-untyped-def]
    p = _write(tmp_path, mutate)
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    probs = err.value.problems
    assert any(pr.path == str(p) and pr.field == field and words in pr.message for pr in probs), probs


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("id: [unclosed\n  - : :")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ScenarioError, match="expected a YAML mapping"):
        load_scenario(bad)


def test_validate_lists_every_error_and_exits_2(tmp_path: Path) -> None:
    a = _write(tmp_path, lambda r: r.update(colour="red"), "a.yaml")
    b = _write(tmp_path, lambda r: r["blocker"].update(fallback_action="nope"), "b.yaml")
    res = _cli("validate", str(a), str(b))
    assert res.returncode == 2
    assert "a.yaml: colour: unknown key" in res.stdout
    assert "b.yaml" in res.stdout and "names no action" in res.stdout


def test_validate_library_passes() -> None:
    res = _cli("validate", str(LIBRARY_DIR))
    assert res.returncode == 0, res.stdout


def test_task_hash_ignores_formatting_but_not_content(tmp_path: Path) -> None:
    same = _write(tmp_path, lambda r: None, "same.yaml")
    changed = _write(tmp_path, lambda r: r.update(goal=r["goal"] + " Today."), "changed.yaml")
    base = task_hash(load_scenario(EXAMPLE))
    assert task_hash(load_scenario(same)) == base
    assert task_hash(load_scenario(changed)) != base


def test_conditions_registry_matches_design() -> None:
    for cid in ("P0", "P1", "P2", "P3", "P4", "P5", "S0", "S3", "S4", "C0", "C4", "C5", "E0", "E4",
                "G0", "G1", "G2", "G3", "G4", "R-none", "V-plain", "W", "twin"):
        assert cid in CONDITIONS
    assert CONDITIONS["P4"].control == "P0" and CONDITIONS["S3"].control == "S0"
    assert CONDITIONS["C4"].control == "C0" and CONDITIONS["E4"].control == "E0"


def test_list_commands() -> None:
    res = _cli("list", "tasks", "--json")
    assert res.returncode == 0
    import json

    rows = json.loads(res.stdout)
    assert len(rows) >= 24 and len({r["domain"] for r in rows}) == 6
    assert _cli("list", "conditions").returncode == 0


def test_cross_field_errors_are_listed_beside_field_errors(tmp_path: Path) -> None:
    def mutate(r: dict) -> None:  # type: ignore[type-arg]
        r["gaol"] = r.pop("goal")
        r["blocker"]["fallback_action"] = "share_preview"

    p = _write(tmp_path, mutate)
    with pytest.raises(ScenarioError) as err:
        load_scenario(p)
    fields = {pr.field for pr in err.value.problems}
    assert {"goal", "gaol", "blocker.fallback_action"} <= fields


def test_validate_warns_when_the_context_names_the_authority_and_the_view_does_not(tmp_path: Path) -> None:
    # Instruments see only the view; a person the context gives the authority must be in its terms.
    def name_the_chair(r: dict) -> None:  # type: ignore[type-arg]
        r["full_context"] += "\nThe Vendor Risk Review board (Dr. Helena Marsh) meets on Thursdays.\n"

    unnamed = _write(tmp_path, name_the_chair, "unnamed.yaml")
    res = _cli("validate", str(unnamed))
    assert res.returncode == 0, res.stdout
    assert "unnamed.yaml: blocker.authority_terms" in res.stdout and "'Helena Marsh'" in res.stdout

    def and_list_her(r: dict) -> None:  # type: ignore[type-arg]
        name_the_chair(r)
        r["blocker"]["authority_terms"].append("Helena Marsh")

    listed = _write(tmp_path, and_list_her, "listed.yaml")
    res = _cli("validate", str(listed))
    assert res.returncode == 0 and "warning" not in res.stdout, res.stdout
