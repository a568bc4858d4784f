"""Shared fixtures for the checker tests: the shipped example task and the small fixture tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from mustmaybe.scenarios import LIBRARY_DIR, Scenario, load_scenario

FIXTURES = Path(__file__).resolve().parent / "fixtures"
VENDOR_PATH = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"


@pytest.fixture(scope="session")
def vendor() -> Scenario:
    return load_scenario(VENDOR_PATH)


@pytest.fixture(scope="session")
def wire() -> Scenario:
    return load_scenario(FIXTURES / "wire-batch.yaml")


@pytest.fixture(scope="session")
def crm() -> Scenario:
    return load_scenario(FIXTURES / "crm-export.yaml")
