"""The run store: one transaction per episode, idempotent writes, secrets kept out, round trips."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mustmaybe.records import EpisodeError, EpisodeRecord
from mustmaybe.scenarios import find_task
from mustmaybe.store import RunStore, load_run_episodes, rescore_record
from mustmaybe.store import _rows as store_rows
from mustmaybe.teams import build_team, episode_spec, run_episode


async def _play(scenario: Any, condition: Any, **kw: Any) -> EpisodeRecord:
    """One episode from loose arguments: resolve the spec, build the team, run it."""
    spec = episode_spec(scenario, condition, **kw)
    return await run_episode(build_team(spec), spec)


MODELS = {"reviewer": "sim", "transformer": "sim", "executor": "sim"}


@pytest.fixture(scope="module")
def records() -> list[EpisodeRecord]:
    s = find_task("vendor-summary-q3")

    async def go() -> list[EpisodeRecord]:
        return [await _play(s, c, models=MODELS, seed=seed) for c in ("P0", "S3") for seed in (1, 2)]

    return asyncio.run(go())


def test_planned_key_is_the_record_key(records: list[EpisodeRecord]) -> None:
    s = find_task("vendor-summary-q3")
    for r in records:
        assert episode_spec(s, r.condition, models=MODELS, seed=r.seed).key == r.key


def test_write_once_and_read_back(tmp_path: Path, records: list[EpisodeRecord]) -> None:
    with RunStore(tmp_path) as store:
        assert [store.put_episode(r) for r in records] == [True] * len(records)
        assert [store.put_episode(r) for r in records] == [False] * len(records)  # INSERT OR IGNORE
        assert store.count() == len(records)
        hops = store.query("SELECT COUNT(*) FROM messages")[0][0]
        assert hops == sum(len(r.hops) for r in records)
        assert store.query("SELECT COUNT(*) FROM usage")[0][0] == 3 * len(records)
        assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    back = load_run_episodes(tmp_path)
    assert [b.model_dump() for b in back] == [r.model_dump() for r in records]


def test_a_failed_write_leaves_no_half_episode(tmp_path: Path, records: list[EpisodeRecord],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import mustmaybe.store._store as store_mod

    def broken(record: EpisodeRecord) -> list[tuple[object, ...]]:
        raise RuntimeError("disk on fire")

    with RunStore(tmp_path) as store:
        monkeypatch.setattr(store_mod, "error_rows", broken)
        with pytest.raises(RuntimeError):
            store.put_episode(records[0])
        monkeypatch.setattr(store_mod, "error_rows", store_rows.error_rows)
        assert store.count() == 0
        assert store.query("SELECT COUNT(*) FROM messages")[0][0] == 0
        assert store.put_episode(records[0])


def test_replace_keeps_one_row_and_counts_attempts(tmp_path: Path, records: list[EpisodeRecord]) -> None:
    r = records[0]
    failed = r.model_copy(update={"errors": [EpisodeError(where="executor", kind="timeout", message="t")]})
    with RunStore(tmp_path) as store:
        store.put_episode(failed)
        assert store.infra_failed_keys() == {r.key}
        assert store.put_episode(r, replace=True)
        assert store.count() == 1
        assert store.infra_failed_keys() == set()
        assert store.query("SELECT attempt FROM episodes")[0][0] == 2
        assert store.query("SELECT COUNT(*) FROM errors")[0][0] == len(r.errors)


def test_secrets_are_redacted(tmp_path: Path, records: list[EpisodeRecord]) -> None:
    secret = "sk-live-DO-NOT-STORE-42"
    leaky = records[0].model_copy(update={
        "errors": [EpisodeError(where="executor", kind="http_401", message=f"Incorrect API key provided: {secret}")]})
    with RunStore(tmp_path, secrets=[secret]) as store:
        store.put_episode(leaky)
        store.put_failure("k", task="t", condition="P0", topology="direct", seed=1, models=MODELS,
                          kind="AuthenticationError", message=f"bad key {secret}")
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert secret.encode() not in data
    assert "***" in load_run_episodes(tmp_path)[0].errors[0].message


def test_rescore_record_reproduces_the_run_scores(records: list[EpisodeRecord]) -> None:
    s = find_task("vendor-summary-q3")
    for r in records:
        again = rescore_record(r, s)
        assert again.model_dump() == r.model_dump()
