"""Test tiers: `slow` marks the long tests (the combiner's refit, runs on the embedded local model, long
sweeps). `make test` runs the fast tier and then the slow tier, so CI runs everything; `make test-fast`
runs the fast tier alone (README, "Tests")."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A test on the embedded model (`local`) loads llama.cpp and runs real inference: always the slow tier.
    for item in items:
        if item.get_closest_marker("local") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
