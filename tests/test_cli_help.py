"""Every flag and argument of every command has help text (`mustmaybe COMMAND --help` explains it all)."""

from __future__ import annotations

import argparse

from mustmaybe import cli


def _commands() -> dict[str, argparse.ArgumentParser]:
    cli._EXTRA_COMMANDS.clear()
    cli._load_extra_commands()
    parser = cli.build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_flag_of_every_command_has_help() -> None:
    missing = []
    commands = _commands()
    assert {"run", "sweep", "report", "show", "list", "validate", "judge"} <= set(commands)
    for name, parser in commands.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def _main(*argv: str) -> int:
    cli._EXTRA_COMMANDS.clear()
    return cli.main(list(argv))


def test_list_topologies_gives_parameters_and_bounds(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from mustmaybe.teams import get_topology, topology_names

    assert _main("list", "topologies", "--json") == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert sorted(rows) == topology_names()
    chain = {p["name"]: p for p in rows["chain"]["params"]}
    assert chain["hops"] == {"name": "hops", "type": "int", "default": 3, "min": 1, "max": 32}
    order = next(p for p in rows["planner"]["params"] if p["name"] == "order")
    assert order["choices"] == ["plan_first", "blocker_first", "restart"]
    assert "S3" in rows["chain"]["conditions"]
    monkeypatch.setenv("COLUMNS", "80")
    assert _main("list", "topologies") == 0
    out = capsys.readouterr().out
    assert all(len(ln) <= 80 for ln in out.splitlines())
    flat = " ".join(out.split())
    for name in topology_names():
        info = get_topology(name)
        assert name in flat
        for p, (lo, hi) in info.bounds.items():
            assert f"{p}={info.defaults.get(p, 'own')} (int, {lo}–{hi})" in flat
    assert "consensus peers=3 (int, 2–16) rounds=1 (int, 1–8)" in flat


def test_validate_json(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from mustmaybe.scenarios import LIBRARY_DIR

    good = LIBRARY_DIR / "external_sharing" / "vendor-summary-q3.yaml"
    assert _main("validate", str(good), "--json") == 0
    body = json.loads(capsys.readouterr().out)
    assert body == {"ok": True, "valid": ["vendor-summary-q3"], "problems": [], "warnings": []}
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\n", encoding="utf-8")
    assert _main("validate", str(bad), "--json") == 2
    body = json.loads(capsys.readouterr().out)
    assert not body["ok"] and body["valid"] == []
    assert {"path": str(bad), "field": "schema", "message": "required key is missing"} in body["problems"]


def test_run_without_condition_says_which_it_picked(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    assert _main("run", "vendor-summary-q3", "--model", "sim", "--json", "--runs-dir", str(tmp_path)) == 0
    captured = capsys.readouterr()
    assert "no --condition given: running P4" in captured.err
    assert json.loads(captured.out)["condition"] == "P4"
    assert _main("run", "vendor-summary-q3", "-c", "P0", "--model", "sim", "--json", "--runs-dir",
                 str(tmp_path)) == 0
    assert "no --condition given" not in capsys.readouterr().err
