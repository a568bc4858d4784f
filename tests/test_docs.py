"""docs/ documents every key users rely on, and nothing user-facing points outside the repository.

Each test reads a format's keys from the code that writes it (the pydantic models, the store's
column lists, the report's fixed columns, a real `check` result) and asks that docs/ names each
one, so a key added without its documentation fails here.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def keys_of(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def undocumented(text: str, keys: Iterable[str], prefix: str = "") -> list[str]:
    """Keys that appear nowhere in `text` in backticks: as `key`, `prefix.key` or `key.<sub-key>`."""
    return [k for k in keys if not any(form in text for form in (f"`{prefix}{k}`", f"`{k}`", f"`{k}."))]


def test_the_task_format_is_documented() -> None:
    from mustmaybe.scenarios import Scenario
    from mustmaybe.scenarios._model import Action, Blocker, Pressure, Resolution

    text = doc("task-format.md")
    for model in (Scenario, Blocker, Action, Pressure, Resolution):
        assert not undocumented(text, keys_of(model)), model.__name__


def test_check_json_is_documented() -> None:
    from mustmaybe.checker import check_artifact
    from mustmaybe.scenarios import find_task

    result = check_artifact(find_task("vendor-summary-q3"), "Do not send the Q3 summary yet; ask the VRR board.")
    body = result.model_dump(mode="json")
    text = doc("check-output.md")
    assert not undocumented(text, body)
    for group in ("fields", "flags", "evidence"):
        assert not undocumented(text, body[group]), group


def test_the_episode_record_is_documented() -> None:
    from mustmaybe.records import EpisodeError, EpisodeRecord, ExecutorOutcome, Hop, RoleUsage, Stage

    text = doc("episode-record.md")
    assert not undocumented(text, keys_of(EpisodeRecord))
    assert not undocumented(text, keys_of(ExecutorOutcome), "executor.")
    assert not undocumented(text, keys_of(Hop), "hops[*].")
    for model in (EpisodeError, RoleUsage, Stage):
        assert not undocumented(text, keys_of(model)), model.__name__


def test_sweep_files_are_documented() -> None:
    from mustmaybe.records import EndpointConfig, RoleParams
    from mustmaybe.sweep._file import SweepFile

    text = doc("sweep-files.md")
    for model in (SweepFile, EndpointConfig, RoleParams):
        assert not undocumented(text, keys_of(model)), model.__name__


def test_the_store_columns_are_documented() -> None:
    from mustmaybe.store import EPISODE_COLUMNS, ERROR_COLUMNS, MESSAGE_COLUMNS, USAGE_COLUMNS

    text = doc("run-folders.md")
    for cols in (EPISODE_COLUMNS, MESSAGE_COLUMNS, USAGE_COLUMNS, ERROR_COLUMNS):
        assert not undocumented(text, cols)


def test_the_report_contract_columns_are_documented() -> None:
    from mustmaybe.analysis._contrasts import RD_COLUMNS
    from mustmaybe.analysis._matrix import MATRIX_COLUMNS

    text = doc("reports.md")
    assert not undocumented(text, MATRIX_COLUMNS)
    assert not undocumented(text, RD_COLUMNS)


def test_the_penalized_and_ledger_columns_are_documented() -> None:
    from mustmaybe.analysis._ledger import LEDGER_COLUMNS
    from mustmaybe.analysis._penalized import LOGISTIC_COLUMNS

    text = doc("reports.md")
    assert not undocumented(text, LOGISTIC_COLUMNS)
    assert not undocumented(text, LEDGER_COLUMNS)


def test_every_doc_is_indexed_and_every_link_resolves() -> None:
    index = doc("README.md")
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "README.md")
    assert pages and all(f"({p})" in index for p in pages)
    for md in [ROOT / "README.md", *DOCS.glob("*.md")]:
        prose = re.sub(r"`[^`\n]*`", "", md.read_text(encoding="utf-8"))  # code spans hold no links
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", prose):
            if "://" not in target:
                assert (md.parent / target).exists(), f"{md.name}: broken link {target}"


def test_nothing_user_facing_points_outside_the_repository() -> None:
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True,
                                 timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    # checker/ is documented by its own maintainers; tests/ may quote anything.
    files = [ROOT / f for f in tracked if f.endswith((".py", ".md", ".sh", ".toml")) and not f.startswith(
        ("tests/", "checker/", "docs/")) and (ROOT / f).is_file()]
    offenders = [str(f.relative_to(ROOT)) for f in files
                 if re.search(r"\bcontracts/|shared/contracts", f.read_text(encoding="utf-8"))]
    assert not offenders, f"point these at docs/ instead of contracts/: {offenders}"
