"""Fixtures for the sweep tests: the scripted fake endpoint and sweep files written on the fly."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import FakeOpenAI

from mustmaybe import cli

TASKS = ["library:vendor-summary-q3", "library:board-minutes-draft"]


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    srv = FakeOpenAI(hang_s=3.0, retry_after="0.05")
    yield srv
    srv.close()


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(value)


def sweep_text(
    *,
    name: str = "t",
    tasks: Sequence[str] = TASKS,
    conditions: Sequence[str] = ("P0", "P4"),
    seeds: Sequence[int] = (1,),
    roles: Mapping[str, Sequence[str]] | None = None,
    combine: str = "product",
    topologies: Sequence[str] | None = None,
    endpoints: Sequence[Mapping[str, Any]] = (),
    params: Mapping[str, Any] | None = None,
    extra: str = "",
) -> str:
    roles = roles or {"reviewer": ["sim"], "transformer": ["sim"], "executor": ["sim"]}
    lines = [
        'schema = "mustmaybe/sweep@1"',
        f"name = {_toml(name)}",
        f"tasks = {_toml(list(tasks))}",
        f"conditions = {_toml(list(conditions))}",
        f"seeds = {_toml(list(seeds))}",
        f"combine = {_toml(combine)}",
    ]
    if topologies is not None:
        lines.append(f"topologies = {_toml(list(topologies))}")
    lines.append(extra)
    lines.append("[roles]")
    lines += [f"{r} = {_toml(list(v))}" for r, v in roles.items()]
    if params:
        lines.append("[params]")
        lines += [f"{k} = {_toml(v)}" for k, v in params.items()]
    for ep in endpoints:
        lines.append("[[endpoints]]")
        lines += [f"{k} = {_toml(v)}" for k, v in ep.items()]
    return "\n".join(lines) + "\n"


def write_sweep(path: Path, **kw: Any) -> Path:
    path.write_text(sweep_text(**kw), encoding="utf-8")
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    cli._EXTRA_COMMANDS.clear()  # main() registers the extra subcommands again on every call
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run_cli(capsys, *argv)
    assert out.strip(), f"no JSON on stdout (exit {code}); stderr: {err}"
    return code, json.loads(out)


def endpoint(fake: FakeOpenAI, **kw: Any) -> dict[str, Any]:
    ep: dict[str, Any] = {"base_url": fake.base_url, "concurrency": 4, "timeout_s": 0.5, "max_retries": 1,
                          "structured_output": "json_schema"}
    ep.update(kw)
    return ep


def db_rows(run: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(run / "store.sqlite")
    try:
        return list(con.execute(sql, params))
    finally:
        con.close()
