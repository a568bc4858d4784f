"""One manifest shape for runs and sweeps (docs/run-folders.md): schema `mustmaybe/run@1`, the same
common keys, each kind's own keys beside them; a single run's manifest written before it had a schema
still reads, watches, exports and rescores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mustmaybe import cli
from mustmaybe.records import RUN_SCHEMA, RunManifest
from mustmaybe.store import read_manifest

from .conftest import run_cli, write_sweep

COMMON = set(RunManifest.model_fields) - {"schema_"} | {"schema"}


def _single(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run_cli(capsys, "run", "vendor-summary-q3", "-c", "P4", "--runs-dir", str(tmp_path / "runs"),
                           "--json")
    assert code == 0, err
    (run,) = (tmp_path / "runs").iterdir()
    return run


def test_a_run_and_a_sweep_write_the_same_schemad_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _single(tmp_path, capsys)
    sweep = write_sweep(tmp_path / "s.toml", tasks=["library:vendor-summary-q3"], conditions=["P0", "P4"])
    code, _, err = run_cli(capsys, "sweep", str(sweep), "--out", str(tmp_path / "sweep"), "--json")
    assert code == 0, err
    one, many = read_manifest(run), read_manifest(tmp_path / "sweep")
    for m, kind in ((one, "run"), (many, "sweep")):
        assert m["schema"] == RUN_SCHEMA and m["kind"] == kind
        assert COMMON <= set(m), sorted(COMMON - set(m))
        assert RunManifest.of(m).kind == kind
    # The same common keys hold the same kinds of value.
    assert one["checker"] == many["checker"] and one["checker_version"] == many["checker_version"]
    assert one["tasks"] == many["tasks"] == one["task_hashes"]
    assert one["counts"] == {"episodes": 1, "done": 1, "failed": 0, "with_errors": 0, "infra_errors": 0,
                             "parse_errors": 0}
    assert set(one["counts"]) == set(many["counts"])
    assert list(one)[:len(COMMON)] == [k for k in one if k in COMMON]  # common keys first


def test_an_old_single_run_manifest_still_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _single(tmp_path, capsys)
    m = read_manifest(run)
    old = {k: m[k] for k in ("kind", "command", "status", "checker_version", "simulated", "episodes", "keys",
                              "task_hashes", "versions", "git", "started_at", "ended_at")}
    (run / "manifest.json").write_text(json.dumps(old, indent=2) + "\n", encoding="utf-8")
    read = RunManifest.of(read_manifest(run))
    assert read.schema_ is None and read.tasks == old["task_hashes"] and read.checker is None
    cli._EXTRA_COMMANDS.clear()
    for argv in (["watch", str(run)], ["export", str(run), "--format", "jsonl", "--out", str(tmp_path / "x")],
                 ["rescore", str(run)]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 0, (argv, err)
    assert "schema" not in read_manifest(run)  # a rescore adds its entry, it does not rewrite the shape


def test_a_manifest_of_no_known_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        RunManifest.of({"schema": RUN_SCHEMA, "kind": "batch", "status": "finished"})
