"""Reading the JSON object out of a model answer (the executor's decision, a judge's answer)."""

from __future__ import annotations

import json

import pytest

from mustmaybe.agents import first_json_object


@pytest.mark.parametrize("obj", [
    {"action": "hold", "rationale": 'she wrote "not yet"'},          # an escaped quote inside a string
    {"action": "hold", "rationale": 'path C:\\tmp\\ and a "quote"'},  # escaped backslashes, then a quote
    {"action": "hold", "rationale": 'braces {inside} "}" a string'},  # braces and a quoted brace
    {"evidence": {"status": ['keep it internal\\"}']}},               # a backslash then a quote and a brace
])
def test_the_object_is_found_whatever_its_strings_hold(obj: dict[str, object]) -> None:
    raw = json.dumps(obj)
    assert first_json_object(f"Here is my answer:\n```json\n{raw}\n```\nThanks.") == obj


def test_no_object_is_none() -> None:
    assert first_json_object("no braces here") is None
    assert first_json_object('{"cut": "off') is None
