"""Records at the bottom, a light parser, one public path per name (DESIGN.md: layout).

Each import is measured in a fresh interpreter, so what an earlier test imported cannot hide a load.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

# The rules engine: none of it may load for reading records.
CHECKER_RULES = ("mustmaybe.checker._evaluate", "mustmaybe.checker._rules", "mustmaybe.checker._combiner")
# The checker's tooling (labeled sets, calibration, the trainer): it may load neither for reading records nor
# for scoring.
CHECKER_TOOLS = ("mustmaybe.checker_tools", "mustmaybe.checker_tools._train", "mustmaybe.checker_tools._calibrate",
                 "mustmaybe.checker_tools._labeled")

# What `--version` and `--help` may load at most (the parser and the stdlib it needs: ~115 today; before
# the parser stopped importing the judges, 338).
MAX_PARSER_MODULES = 150


def _loaded(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running `code` (its standard output discarded)."""
    probe = (f"import contextlib, io, json, sys\nwith contextlib.redirect_stdout(io.StringIO()):\n"
             f"    try:\n        {code}\n    except SystemExit:\n        pass\nprint(json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    mods: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return mods


def test_the_probe_sees_the_rules_when_the_checker_is_imported() -> None:
    assert set(CHECKER_RULES) <= set(_loaded("import mustmaybe.checker"))
    assert set(CHECKER_TOOLS) <= set(_loaded("import mustmaybe.checker_tools"))


def test_scoring_loads_none_of_the_checkers_tooling_nor_numpy() -> None:
    mods = _loaded("from mustmaybe.checker import score_artifact; from mustmaybe.scenarios import find_task; "
                   "score_artifact(find_task('vendor-summary-q3'), 'Do not send until the CRO approves.')")
    assert [m for m in mods if m.startswith("mustmaybe.checker_tools")] == []
    assert "numpy" not in mods


def test_importing_the_records_loads_no_checker_rules_no_autogen_no_polars() -> None:
    mods = _loaded("import mustmaybe.records")
    assert [m for m in mods if m.startswith(("mustmaybe.checker", "mustmaybe.checker_tools"))] == []
    assert [m for m in mods if m.split(".")[0] in ("polars", "autogen_core", "autogen_agentchat")] == []


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["sweep", "--help"], ["check", "--help"]])
def test_version_and_help_load_the_parser_only(argv: list[str]) -> None:
    mods = _loaded(f"from mustmaybe.cli import main; main({argv!r})")
    ours = sorted(m for m in mods if m.startswith("mustmaybe."))
    assert all(m.startswith("mustmaybe.cli") or m == "mustmaybe.errors" for m in ours), ours
    assert [m for m in mods if m.split(".")[0] in ("pydantic", "rich", "polars", "autogen_core")] == []
    assert len(mods) <= MAX_PARSER_MODULES, len(mods)


def test_the_score_types_have_one_public_home() -> None:
    # The records own the scores; the checker, teams and agents export only their own names.
    records = importlib.import_module("mustmaybe.records")
    for name in ("ArtifactScore", "FieldProfile", "Flags", "Span", "ActionScore", "EVIDENCE_KEYS", "State",
                 "ModelSpec", "EpisodeRecord", "ROLES", "PanelEpisode"):
        assert name in records.__all__, name
    for pkg in ("mustmaybe.checker", "mustmaybe.teams", "mustmaybe.agents", "mustmaybe.analysis", "mustmaybe.scenarios",
                "mustmaybe.judges", "mustmaybe.store"):
        shared = set(importlib.import_module(pkg).__all__) & set(records.__all__)
        assert shared == set(), f"{pkg} re-exports {sorted(shared)}"
