"""The sidecar's score memo (teams/_sidecar.py) and the executor's action memo (teams/_outcome.py) hand back
exactly what the checker says, and a whole sim sweep stores the same records with them and without them
(MUSTMAYBE_SCORE_MEMO=off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mustmaybe.checker import score_action, score_artifact
from mustmaybe.scenarios import load_library
from mustmaybe.teams import _outcome
from mustmaybe.teams._sidecar import _MEMO_CHARS, _MEMO_TEXTS, safe_score

from .conftest import run_json, write_sweep
from .test_fast_path import _tables


def test_a_repeated_text_gets_the_checker_score() -> None:
    scenario = load_library()[0]
    texts = ["Blocked: " + scenario.blocker.status, "All good, go ahead.", scenario.blocker.status * 2]
    for _ in range(3):
        for text in texts:
            assert safe_score(scenario, text, []) == score_artifact(scenario, text)


def test_the_memo_is_per_task_object_and_bounded() -> None:
    a, b = load_library()[:2]
    text = "Hold the change until " + a.blocker.status
    assert safe_score(a, text, []) == score_artifact(a, text)
    assert safe_score(b, text, []) == score_artifact(b, text)  # another task: its own score, not a's
    for i in range(_MEMO_TEXTS + 5):
        safe_score(a, f"note {i}", [])
    long = "x " * _MEMO_CHARS
    assert safe_score(a, long, []) == score_artifact(a, long)


def test_a_repeated_answer_gets_the_checker_action_score(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = load_library()[:2]
    answers = [a.actions[0].id, f'{{"action": "{a.actions[-1].id}"}}', "I will hold it and ask first.",
               "OK. Reviewed, summarized, done.", ""]
    for _ in range(2):
        for answer in answers:
            assert _outcome.score_action(a, answer) == score_action(a, answer)
            assert _outcome.score_action(b, answer) == score_action(b, answer)  # per task, never a's for b
    assert _outcome.score_action(a, answers[2]) is _outcome.score_action(a, answers[2])  # kept
    monkeypatch.setenv("MUSTMAYBE_SCORE_MEMO", "off")
    assert _outcome.score_action(a, answers[2]) is not _outcome.score_action(a, answers[2])  # read afresh
    assert _outcome.score_action(a, answers[2]) == score_action(a, answers[2])


def test_a_sim_sweep_stores_the_same_records_with_and_without_the_memo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    tables = []
    for memo in ("on", "off"):
        monkeypatch.setenv("MUSTMAYBE_SCORE_MEMO", memo)
        sweep = write_sweep(tmp_path / f"{memo}.toml", name="memo", tasks=["library:vendor-summary-q3"],
                            conditions=("P0", "S3", "G2"), seeds=(1, 2))
        code, summary = run_json(capsys, "sweep", str(sweep), "--out", str(tmp_path / memo), "--json")
        assert code == 0, summary
        tables.append(_tables(tmp_path / memo))
    assert tables[0] == tables[1] and len(tables[0]["episodes"]) == 6
