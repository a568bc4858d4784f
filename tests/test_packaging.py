"""Packaging: every data folder is a listed package (or setuptools warns once per folder on each install)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_data_folder_is_a_listed_package() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    packages = set(setuptools["packages"])
    dirs = {name: ROOT / folder for name, folder in setuptools["package-dir"].items()}
    data_folders = {
        "mustmaybe.agents." + p.name for p in (dirs["mustmaybe.agents"]).iterdir() if p.is_dir() and p.name == "prompts"
    } | {
        "mustmaybe.sim." + p.name for p in (dirs["mustmaybe.sim"]).iterdir() if p.is_dir() and p.name == "profiles"
    } | {
        "mustmaybe.scenarios.library." + p.name for p in (dirs["mustmaybe.scenarios"] / "library").iterdir()
        if p.is_dir() and any(p.glob("*.yaml"))
    }
    assert len(data_folders) >= 8
    assert data_folders <= packages, f"add to [tool.setuptools] packages: {sorted(data_folders - packages)}"



def test_the_checker_ships_its_combiner_weights() -> None:
    # Without the weights an installed (non-editable) checker cannot score anything.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    data = setuptools["package-data"].get("mustmaybe.checker", [])
    shipped = [p.name for pattern in data for p in (ROOT / "checker").glob(pattern)]
    assert "combiner.json" in shipped
    assert "measured_error.json" in shipped  # the report states the measured error from it
