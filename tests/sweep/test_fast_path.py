"""The fast path changes no stored byte: the same sweep with and without the dependency patches, the
endpoint's shared AutoGen client and the thin request path stores the same records, sends the same
request bodies and counts the same usage and retries (timings aside)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI
from openai.resources.chat.completions import AsyncCompletions

from mustmaybe.agents import _openai, _patches, _thin
from mustmaybe.store import record_dict

from .conftest import TASKS, endpoint, run_json, write_sweep

# What differs from run to run whatever the code does: clocks, and the session's own time stamps.
TIMING = {"duration_s", "started_at", "finished_at", "latency_s", "created", "created_at", "updated_at",
          "wall_s", "elapsed_s"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _tables(run: Path) -> dict[str, list[Any]]:
    """Every row of every table of the run's store, timings left out, JSON columns parsed; the episodes'
    `record` as it was written (what the store keeps as a reference restored, store/_refs.py)."""
    con = sqlite3.connect(run / "store.sqlite")
    try:
        out: dict[str, list[Any]] = {}
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in sorted(names):
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            rows = []
            for row in con.execute(f"SELECT * FROM {table}"):
                item = {}
                for col, val in zip(cols, row, strict=True):
                    if col in TIMING:
                        continue
                    if table == "episodes" and col == "record":
                        val = _strip(record_dict(val))
                    elif isinstance(val, str) and val[:1] in "{[":
                        try:
                            val = _strip(json.loads(val))
                        except ValueError:
                            pass
                    item[col] = val
                rows.append(item)
            out[table] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))
        return out
    finally:
        con.close()


class _Spy:
    """Counts the AutoGen clients built and remembers which patches each sweep applied."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sdk_clients = 0
        self.thin_posts = 0  # calls the thin path was asked to serve
        self.sdk_posts = 0  # calls that went through the SDK's own request path (a fallback, or the SDK path)
        self.applied: list[list[str]] = []
        build, apply, thin = _openai._sdk_client, _patches.apply_patches, _thin._ThinCompletions.create
        sdk_create = AsyncCompletions.create

        async def thin_create(completions: Any, **kwargs: Any) -> Any:
            self.thin_posts += 1
            return await thin(completions, **kwargs)

        async def counted_sdk_create(completions: Any, *args: Any, **kwargs: Any) -> Any:
            self.sdk_posts += 1
            return await sdk_create(completions, *args, **kwargs)

        def sdk_client(*args: Any) -> Any:
            self.sdk_clients += 1
            return build(*args)

        def apply_patches() -> list[str]:
            self.applied.append(apply())
            return self.applied[-1]

        monkeypatch.setattr(_openai, "_sdk_client", sdk_client)
        monkeypatch.setattr(_patches, "apply_patches", apply_patches)
        monkeypatch.setattr(_thin._ThinCompletions, "create", thin_create)
        monkeypatch.setattr(AsyncCompletions, "create", counted_sdk_create)


def _sweep(fake: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
           ) -> tuple[dict[str, list[Any]], Counter[str], dict[str, Any]]:
    fake.reset()
    url = fake.base_url
    roles = {"reviewer": [f"openai:ok@{url}"], "transformer": [f"openai:ok@{url}"],
             # one that needs a retry on every call, one that fails after its retry: per-episode retry
             # and failure counts must stay each episode's own with one client per endpoint
             "executor": [f"openai:ok@{url}", f"openai:flaky-500@{url}", f"openai:fault-500@{url}"]}
    sweep = write_sweep(tmp_path / f"{name}.toml", conditions=("P0", "P4", "G2"), seeds=(1, 2), roles=roles,
                        endpoints=[endpoint(fake, concurrency=3, max_retries=1)])
    code, summary = run_json(capsys, "sweep", str(sweep), "--out", str(tmp_path / name), "--json", "--no-cache")
    assert code in (0, 1), summary
    bodies = Counter(fake._seen_bodies)
    summary.pop("in_tool_s", None)
    summary.pop("run", None)  # the folder's own name
    return _tables(tmp_path / name), bodies, _strip(summary)


@pytest.mark.slow  # the same sweep twice, through both request paths (about 10 s)
def test_same_records_with_and_without_the_fast_path(fake: FakeOpenAI, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    fast, fast_bodies, fast_summary = _sweep(fake, tmp_path, capsys, "fast")
    assert spy.applied == [[p.key for p in _patches.PATCHES]]  # every patch fits and was on
    assert not _patches._applied  # the sweep restored every original
    assert spy.sdk_clients == 3  # one per model of the endpoint, for 36 episodes
    # Every request took the thin path, none fell back to the SDK's (AutoGen passes `timeout` with each call).
    assert spy.thin_posts == sum(fast_bodies.values()) and spy.sdk_posts == 0, (spy.thin_posts, spy.sdk_posts)
    spy.sdk_clients = spy.thin_posts = spy.sdk_posts = 0

    monkeypatch.setenv(_patches.PATCHES_ENV, "off")
    monkeypatch.setattr(_openai, "SHARE_SDK_CLIENTS", False)
    monkeypatch.setenv(_thin.PATH_ENV, "sdk")
    slow, slow_bodies, slow_summary = _sweep(fake, tmp_path, capsys, "slow")
    assert spy.applied == [[p.key for p in _patches.PATCHES]], spy.applied  # no second apply: patches off
    assert spy.sdk_clients == 12 * (2 + 3 + 3), spy.sdk_clients  # one per agent: P0 has 2, P4 and G2 3
    assert spy.thin_posts == 0 and spy.sdk_posts == sum(slow_bodies.values())

    assert fast_bodies == slow_bodies  # the same requests on the wire, retries included
    assert fast_summary == slow_summary
    assert fast.keys() == slow.keys()
    for table in fast:
        assert fast[table] == slow[table], table
    episodes = fast["episodes"]
    assert len(episodes) == len(TASKS) * 3 * 2 * 3
    retried = [e for e in fast["usage"] if e["retries"]]
    assert retried and all(e["retries"] == 1 for e in retried)  # each flaky call retried once, in its own episode
