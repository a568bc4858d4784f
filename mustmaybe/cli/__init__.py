"""The `mustmaybe` command. Handlers parse arguments, call one library function and print the result.

Imports happen inside the handlers so `check` and `validate` never load AutoGen, and `run` never
loads matplotlib.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from mustmaybe.errors import UserError

Handler = Callable[[argparse.Namespace], int]


def _console(stderr: bool = False):  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


# ---------------------------------------------------------------- validate / list / check
def cmd_validate(args: argparse.Namespace) -> int:
    from mustmaybe.scenarios import Problem, validate_paths

    warnings: list[Problem] = []
    scenarios, problems = validate_paths(args.paths, warnings)
    if args.json:
        def items(ps: list[Problem]) -> list[dict[str, str]]:
            return [{"path": p.path, "field": p.field, "message": p.message} for p in ps]

        print(json.dumps({"ok": not problems, "valid": [s.id for s in scenarios], "problems": items(problems),
                          "warnings": items(warnings)}, indent=2))
        return 2 if problems else 0
    out = _console()
    for p in problems:
        out.print(f"[red]error[/red] {_esc(str(p))}", soft_wrap=True)
    if problems:
        out.print(f"[red]{len(problems)} problem(s)[/red]; {len(scenarios)} task file(s) valid")
        return 2
    for w in warnings:
        out.print(f"[yellow]warning[/yellow] {_esc(str(w))}", soft_wrap=True)
    out.print(f"[green]ok[/green] {len(scenarios)} task file(s) valid"
              + (f"; {len(warnings)} warning(s)" if warnings else ""))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from ._lists import conditions_view, tasks_table

    out = _console()
    if args.what == "topologies" and args.export is not None:
        from ._lists import export_team

        return export_team(args.export, args.condition, args.task, args.out)
    if args.export is not None:
        raise UserError("--export goes with `list topologies`")
    if args.what == "topologies":
        from ._lists import topologies_view, topology_rows

        rows = topology_rows()
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        out.print(topologies_view(rows))
        return 0
    if args.what == "wordings":
        from ._lists import wording_rows

        wrows = wording_rows()
        if args.json:
            print(json.dumps(wrows, indent=2))
            return 0
        for r in wrows:
            what = (f"the shipped prompts and task files ({len(r['tasks'])} tasks)" if r["id"] == "base" else
                    f"reworded prompts; reworded text for {len(r['tasks'])} task(s): {', '.join(r['tasks'])}")
            out.print(f"[bold cyan]{r['id']}[/bold cyan]  {what}", soft_wrap=True)
        return 0
    if args.what == "tasks":
        from mustmaybe.scenarios import load_library

        tasks = load_library(args.library)
        if args.json:
            print(json.dumps([{"id": s.id, "domain": s.domain, "title": s.title} for s in tasks], indent=2))
            return 0
        out.print(tasks_table(tasks, out.width))
        return 0
    from mustmaybe.scenarios import CONDITIONS

    if args.json:
        print(json.dumps([c.model_dump(mode="json") for c in CONDITIONS.values()], indent=2))
        return 0
    out.print(conditions_view(CONDITIONS.values(), out.width))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from mustmaybe.checker import CHECKER_VERSION, MAX_ARTIFACT_CHARS, CheckResult
    from mustmaybe.judges import instrument_for, score_all
    from mustmaybe.scenarios import ScenarioError, load_scenario

    try:
        instrument = instrument_for(args.checker, args=args)
        scenario = load_scenario(args.task)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    where = "standard input" if args.artifact == "-" else args.artifact
    try:
        # Bytes, decoded here, so a file and standard input fail the same way on text that is not UTF-8.
        raw = sys.stdin.buffer.read() if args.artifact == "-" else Path(args.artifact).read_bytes()
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it
    except OSError as exc:
        raise UserError(f"{where}: cannot read artifact: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{where}: artifact is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if not text.strip():
        raise UserError(f"{where}: the artifact is empty (nothing but white space): there is nothing to score")
    if len(text) > MAX_ARTIFACT_CHARS:
        raise UserError(f"{where}: the artifact has {len(text):,} characters; check scores at most "
                        f"{MAX_ARTIFACT_CHARS:,} (a handoff that long is not one message: score its parts)")
    [score] = score_all(instrument, [(scenario, text)])
    if not instrument.is_rules and "judge" in score.unsure:
        # One artifact asked of a judge that gave nothing usable: say so; never show the rules' label instead.
        raise UserError(f"--checker {args.checker}: {score.unsure['judge']}")
    result = CheckResult(task=scenario.id, checker_version=CHECKER_VERSION,
                         **{**dict(score), "checker": score.checker or instrument.name})
    if args.json:
        body = result.model_dump(mode="json")
        if body.get("unverified_quotes") is None:  # a judges-only key
            body.pop("unverified_quotes", None)
        # Key order as the contract prints it: task first, checker_version last.
        ordered = {"task": body.pop("task"), **{k: v for k, v in body.items() if k != "checker_version"},
                   "checker_version": body["checker_version"]}
        print(json.dumps(ordered))
        return 0
    from ._render import render_check

    _console().print(render_check(result, text))
    return 0


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# ---------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mustmaybe",
        description="Does a binding safety blocker survive LLM agent handoffs?",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    v = sub.add_parser("validate", help="check scenario files; every error names file and field")
    v.add_argument("paths", nargs="+", help="task files or folders")
    v.add_argument("--json", action="store_true",
                   help="print {ok, valid, problems, warnings} (each problem: path, field, message) instead")
    v.set_defaults(func=cmd_validate)

    ls = sub.add_parser("list", help="list library tasks, the conditions registry or the topologies")
    ls.add_argument("what", choices=["tasks", "conditions", "topologies", "wordings"],
                    help="tasks (the library), conditions (the registry), topologies (with parameters and bounds) "
                         "or wordings (the paraphrase panel's variants)")
    ls.add_argument("--library", default=None, help="a task folder instead of the shipped library")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.add_argument("--export", metavar="TOPOLOGY", default=None,
                    help="with `topologies`: write one of ours (NAME[:param=value,...] or default) as an AutoGen team "
                         "component JSON, without our reviewer, to run back with --topology team:FILE")
    ls.add_argument("--condition", "-c", default=None, help="with --export: the condition whose prompts its agents "
                                                             "get (default: the first that uses the topology)")
    ls.add_argument("--task", default="vendor-summary-q3",
                    help="with --export: the task whose material its prompts hold (default vendor-summary-q3)")
    ls.add_argument("--out", default=None, help="with --export: the file to write (default: standard output)")
    ls.set_defaults(func=cmd_list)

    c = sub.add_parser("check", help="score one handoff artifact against a task's blocker")
    c.add_argument("task", help="task file (YAML)")
    c.add_argument("artifact", help="artifact text file, or - for standard input")
    c.add_argument("--json", action="store_true", help="print the contract JSON (with evidence spans)")
    c.add_argument("--checker", default="rules", metavar="SPEC",
                   help="rules (default), judge:<model>, panel:<m>;<m>;…, routed:<judge or panel>")
    from ._judge_options import add_judge_options

    add_judge_options(c)
    c.set_defaults(func=cmd_check)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return p


def _version() -> str:
    from mustmaybe import __version__

    return f"mustmaybe {__version__}"


# Further subcommands register themselves here (run, sweep, report, …) from their own modules.
_EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = []  # type: ignore[type-arg]


def _load_extra_commands() -> None:
    import importlib

    if _EXTRA_COMMANDS:  # main() may run more than once in one process (tests)
        return

    for name in ("run", "sweep", "report", "calibrate", "judge", "show"):
        _EXTRA_COMMANDS.append(importlib.import_module(f"mustmaybe.cli._{name}").register)


def _quiet_autogen_logs() -> None:
    # A failing model call is recorded on its episode (errors) and shown there; AutoGen's runtime
    # would also print its traceback to stderr, which buries the console output.
    import logging

    for name in ("autogen_core", "autogen_agentchat"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


_EXIT_FREEZE: list[bool] = []


def _freeze_heap_at_exit() -> None:
    """Spare the interpreter's closing garbage collections (once per process).

    When Python exits it clears every module and runs the cyclic collector over the whole heap while
    it does, several passes over the ~140,000 objects that AutoGen, the openai SDK and pydantic
    import: about 0.3 s of CPU after every command that loaded them (measured on the peer benchmark).
    Nothing a command leaves needs those passes: stores are committed and closed, files are written
    unbuffered or closed, and the modules' own objects are still freed as their references go.
    `gc.freeze()` at exit (atexit runs before the interpreter's teardown) moves the heap out of the
    collector's reach; it changes nothing while the command runs.
    """
    if not _EXIT_FREEZE:
        import atexit
        import gc

        atexit.register(gc.freeze)
        _EXIT_FREEZE.append(True)


def main(argv: Sequence[str] | None = None) -> int:
    _freeze_heap_at_exit()
    _quiet_autogen_logs()
    _load_extra_commands()
    args = build_parser().parse_args(argv)
    handler: Handler = args.func
    from mustmaybe.scenarios import ScenarioError
    try:
        return handler(args)
    except UserError as exc:
        _console(stderr=True).print(f"[red]error:[/red] {_esc(str(exc))}", soft_wrap=True)
        return exc.exit_code
    except (ScenarioError, LookupError) as exc:
        msg = exc.args[0] if isinstance(exc, LookupError) and exc.args else str(exc)
        _console(stderr=True).print(f"[red]error:[/red] {_esc(str(msg))}", soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`mustmaybe … | head`): stop quietly, as other command-line tools do.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
