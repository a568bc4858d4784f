"""Store shards merge into a run's store by episode key: idempotently, keeping the later attempt of an
episode a resume would run again; and the Ray sweep's coordinator holds each endpoint's limits for
every worker together (run here in one event loop, without Ray: the class is plain Python)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from mustmaybe._coordinator import _GRACE_S, SweepCoordinator
from mustmaybe.store import RunStore, merge_shards, shard_dir, shard_paths

from .conftest import run_json, write_sweep


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: list(con.execute(f"SELECT rowid, * FROM {t} ORDER BY rowid")) for t in tables}
    finally:
        con.close()


@pytest.fixture
def source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A finished local sim sweep (4 episodes) whose store the shards are made from."""
    f = write_sweep(tmp_path / "s.toml", conditions=["P0", "P4"])
    code, _ = run_json(capsys, "sweep", str(f), "--out", str(tmp_path / "src"), "--json")
    assert code == 0
    return tmp_path / "src"


def test_merge_is_idempotent_and_keeps_the_later_attempt(tmp_path: Path, source: Path) -> None:
    run = tmp_path / "run"
    keys = [r[0] for r in sqlite3.connect(source / "store.sqlite").execute("SELECT key FROM episodes ORDER BY rowid")]
    assert len(keys) == 4
    k = keys[0]
    for w in (0, 1):
        d = shard_dir(run, 1, w)
        d.mkdir(parents=True)
        shutil.copyfile(source / "store.sqlite", d / "store.sqlite")
    w0 = sqlite3.connect(shard_dir(run, 1, 0) / "store.sqlite")
    # Worker 0's attempt at k failed (an endpoint down); worker 1 ran k again later and only k.
    w0.execute("UPDATE episodes SET failed = 1, infra_error = 1, finished_at = '2000-01-01T00:00:00' WHERE key = ?",
               (k,))
    w0.commit()
    w0.close()
    w1 = sqlite3.connect(shard_dir(run, 1, 1) / "store.sqlite")
    for t in ("messages", "usage", "errors", "episodes"):
        w1.execute(f"DELETE FROM {t} WHERE key != ?", (k,))
    w1.commit()
    w1.close()
    (run / "shards" / "s1-w2").mkdir()  # a worker killed before it opened its shard leaves an empty folder

    with RunStore(run) as store:
        assert len(shard_paths(run)) == 2
        first = merge_shards(store)
        assert (first.shards, first.added, first.replaced) == (2, 4, 1)
        rows = {key: (failed, attempt) for key, failed, attempt in
                store.query("SELECT key, failed, attempt FROM episodes")}
        assert set(rows) == set(keys) and rows[k] == (0, 2)
        hops = store.query("SELECT COUNT(*) FROM messages WHERE key = ?", (k,))[0][0]
        assert hops == len(next(store.records([k])).hops) > 0
        assert store.query("SELECT COUNT(*) FROM messages")[0][0] == \
            sqlite3.connect(source / "store.sqlite").execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    before = _dump(run / "store.sqlite")
    with RunStore(run) as store:
        again = merge_shards(store)
    assert again.changed == 0 and _dump(run / "store.sqlite") == before  # a second merge changes nothing

    # In the other order the same episodes are kept: worker 1's good attempt is never replaced by the failure.
    other = tmp_path / "other"
    with RunStore(other) as store:
        merge_shards(store, list(reversed(shard_paths(run))))
        assert {key: f for key, f in store.query("SELECT key, failed FROM episodes")} == {key: 0 for key in keys}


def _run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_coordinator_holds_the_limit_across_workers_and_frees_a_lost_one() -> None:
    url = "http://127.0.0.1:9/v1"

    async def main() -> None:
        c = SweepCoordinator([["a", "b"], ["c"]], {url: (3, None, 60.0)})
        in_flight = 0
        peak = 0

        async def call(worker: int, i: int) -> None:
            nonlocal in_flight, peak
            assert await c.acquire(url + "/", worker, str(i), 3, None, 60.0)  # the same endpoint, however written
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            await c.release(url, worker, str(i))

        await asyncio.gather(*(call(w, i) for w in range(2) for i in range(10)))
        stats = (await c.stats())["endpoints"][url]
        assert peak == 3 and stats["max_in_flight"] == 3 and stats["requests"] == 20 and stats["in_flight"] == 0

        # Worker 0 dies waiting for a slot: its waiting call is refused, and it is granted nothing more.
        for i in range(3):
            assert await c.acquire(url, 1, f"x{i}", 3, None, 60.0)
        waiting = asyncio.create_task(c.acquire(url, 0, "y", 3, None, 60.0))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        lost = await c.lost(0)
        assert lost["freed_slots"] == {url: 0} and lost["held_slots"] == {url: 0}
        assert await asyncio.wait_for(waiting, 1.0) is False
        assert await c.acquire(url, 0, "z", 3, None, 60.0) is False  # a lost worker is granted nothing
        for i in range(3):
            await c.release(url, 1, f"x{i}")
        # A cancel that arrives before its acquire: the acquire takes no slot.
        await c.cancel(url, 1, "early")
        assert await c.acquire(url, 1, "early", 3, None, 60.0) is False
        # The work queue: groups in order, then nothing; a lost worker gets none.
        assert await c.take(0) == []
        assert await c.take(1) == ["a", "b"]
        await c.stop()
        assert await c.take(1) == []

    _run(main())


def test_a_lost_workers_sent_requests_keep_their_slots_until_the_endpoint_timeout() -> None:
    # The endpoint keeps serving a request after its client's process is SIGKILLed, so a dead worker's
    # slots whose request was sent stay taken until that request's start + the endpoint's timeout_s
    # (+ grace): freeing them when the driver reports the death let a survivor's request in on top and
    # the endpoint held concurrency + 1 (test_ray's fake once saw 4 against 3). A slot still waiting for
    # out the endpoint's Retry-After pause (its request never sent) frees at once.
    url = "http://127.0.0.1:9/v1"
    timeout_s = 0.3
    bound = timeout_s + _GRACE_S

    async def main() -> None:
        c = SweepCoordinator([], {url: (3, None, timeout_s)})
        started = time.monotonic()
        assert await c.acquire(url, 0, "a", 3, None, timeout_s)  # sent: the endpoint is serving it
        assert await c.acquire(url, 1, "b", 3, None, timeout_s)  # worker 1's (it lives)
        await c.defer(url, 0.5)  # a 429's Retry-After: the next slot is held while its request waits
        unsent = asyncio.create_task(c.acquire(url, 0, "c", 3, None, timeout_s))
        await asyncio.sleep(0.05)
        assert not unsent.done() and (await c.stats())["endpoints"][url]["in_flight"] == 3
        survivor = asyncio.create_task(c.acquire(url, 1, "d", 3, None, timeout_s))
        await asyncio.sleep(0.05)
        assert not survivor.done()

        lost = await c.lost(0)
        # The freed (unsent) slot goes to the survivor; worker 0's sent "a" still counts: 3 in flight.
        assert await asyncio.wait_for(survivor, 5.0) is True
        nxt = asyncio.create_task(c.acquire(url, 1, "e", 3, None, timeout_s))
        await asyncio.sleep(0.1)
        assert not nxt.done()  # the endpoint may still be serving worker 0's "a": no fourth request
        assert (await c.stats())["endpoints"][url]["in_flight"] == 3
        assert lost["freed_slots"] == {url: 1} and lost["held_slots"] == {url: 1}
        assert await asyncio.wait_for(unsent, 5.0) is False  # its request is never sent
        assert await asyncio.wait_for(nxt, bound + 5.0) is True
        assert time.monotonic() - started >= bound  # not one moment before a's start + timeout_s + grace
        stats = (await c.stats())["endpoints"][url]
        assert stats["max_in_flight"] == 3 and stats["in_flight"] == 3  # b, d, e; a's slot is free
        for t in ("b", "d", "e"):
            await c.release(url, 1, t)
        assert (await c.stats())["endpoints"][url]["in_flight"] == 0

    _run(main())


def test_coordinator_rate_is_shared_by_every_worker() -> None:
    url = "http://127.0.0.1:9/v1"

    async def main() -> float:
        c = SweepCoordinator([], {url: (100, 1200.0, 60.0)})  # 20 requests a second for the cluster, burst 20
        start = time.monotonic()

        async def call(worker: int, i: int) -> None:
            assert await c.acquire(url, worker, str(i), 100, 1200.0, 60.0)
            await c.release(url, worker, str(i))

        await asyncio.gather(*(call(w, i) for w in range(2) for i in range(25)))
        return time.monotonic() - start

    elapsed = _run(main())
    # 50 requests from two workers: 20 at once, then 30 more at 20 a second (with a bucket per worker: 0.25 s).
    assert isinstance(elapsed, float) and elapsed >= 1.4


def test_a_ray_worker_that_cannot_see_the_run_folder_or_a_key_says_so(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mustmaybe.store import MANIFEST
    from mustmaybe.sweep import plan_sweep
    from mustmaybe.sweep._ray_worker import SweepWorker

    f = write_sweep(tmp_path / "s.toml", roles={"reviewer": ["sim"], "transformer": ["sim"],
                                                "executor": ["openai:m@http://127.0.0.1:9/v1"]},
                    endpoints=[{"base_url": "http://127.0.0.1:9/v1", "api_key_env": "MM_TEST_KEY"}])
    plan = plan_sweep(f)
    run = tmp_path / "run"
    info = _run(SweepWorker(1, 2, plan, str(run), 1, None, None).start())
    assert isinstance(info, dict) and "Ray worker 1" in info["problem"]
    assert "cannot see the run folder" in info["problem"]
    run.mkdir()
    (run / MANIFEST).write_text("{}")
    monkeypatch.delenv("MM_TEST_KEY", raising=False)
    info = _run(SweepWorker(1, 2, plan, str(run), 1, None, None).start())
    assert isinstance(info, dict) and "MM_TEST_KEY" in info["problem"] and not (run / "shards").exists()
