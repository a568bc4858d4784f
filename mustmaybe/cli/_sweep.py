"""`mustmaybe sweep | rescore | export | watch`: run a sweep file, and work with its run folder.

Handlers parse their arguments, call one library function and print the result; `--json` prints
the contract shape (docs/sweep-files.md). User-fixable problems raise UserError (exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mustmaybe.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    s = sub.add_parser("sweep", help="run a sweep file (mustmaybe/sweep@1) into a run folder")
    s.add_argument("file", help="the sweep file (TOML)")
    s.add_argument("--out", type=Path, default=None, help="run folder (default: runs/<name>-<timestamp>/)")
    s.add_argument("--resume", action="store_true",
                   help="continue the sweep recorded in --out DIR (finished episodes are kept)")
    s.add_argument("--dry-run", action="store_true", help="print the episode count and model calls; call nothing")
    s.add_argument("--no-cache", action="store_true", help="do not read or write the response cache")
    s.add_argument("--json", action="store_true", help="print a JSON summary instead of the live display")
    s.add_argument("--runs-dir", type=Path, default=Path("runs"), help="parent of new run folders (default: runs/)")
    s.add_argument("--trace", action="store_true",
                   help="export OpenTelemetry spans (also `trace = true` in the file): OTLP when "
                        "OTEL_EXPORTER_OTLP_ENDPOINT is set, else RUN/traces.jsonl (docs/traces.md)")
    s.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the episodes on Ray workers (the optional extra `ray`): the cluster at ADDRESS "
                        "(HOST:PORT, ray://HOST:PORT; auto: the one running here; local: a new one here), else "
                        "RAY_ADDRESS's or the one running here, else a new one; endpoint limits hold for the whole "
                        "cluster (docs/ray.md)")
    s.set_defaults(func=cmd_sweep)

    r = sub.add_parser("rescore", help="re-score a run's stored messages with an instrument (no episode re-runs)")
    r.add_argument("run", type=Path, help="run folder")
    r.add_argument("--checker", default="rules", metavar="SPEC",
                   help="rules (default; no model calls), judge:<model>, panel:<m>;<m>;…, routed:<judge or panel>; "
                        "judgments are kept in RUN/judgments.sqlite and never asked twice")
    from ._judge_options import add_judge_options

    add_judge_options(r)
    r.add_argument("--json", action="store_true", help="print a JSON summary")
    r.set_defaults(func=cmd_rescore)

    e = sub.add_parser("export", help="write a run's episodes and messages as parquet, csv, jsonl or Inspect logs")
    e.add_argument("run", type=Path, help="run folder")
    e.add_argument("--format", choices=["parquet", "csv", "jsonl", "inspect"], default="jsonl",
                   help="default: jsonl; inspect: Inspect AI eval logs for `inspect view` (extra 'inspect')")
    e.add_argument("--out", type=Path, default=None,
                   help="jsonl: the file; parquet/csv: a folder, or NAME.<ext> (default: RUN/export/); "
                        "inspect: a folder (default: RUN/export/inspect/)")
    e.set_defaults(func=cmd_export)

    w = sub.add_parser("watch", help="follow a sweep in progress from another terminal")
    w.add_argument("run", type=Path, help="run folder")
    w.add_argument("--once", action="store_true", help="print one snapshot and exit")
    w.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    w.add_argument("--json", action="store_true", help="print the final (or --once) counts as JSON")
    w.set_defaults(func=cmd_watch)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


# ---------------------------------------------------------------- sweep
def cmd_sweep(args: argparse.Namespace) -> int:
    from mustmaybe._collector import startup_paused

    # The imports and the plan run with the cyclic collector off; the episodes' lean runtime freezes what
    # they built and turns it back on (mustmaybe/_collector.py).
    with startup_paused():
        return _sweep(args)


def _sweep(args: argparse.Namespace) -> int:
    from mustmaybe.sweep import SweepError, SweepOptions, execute_sweep, plan_sweep

    plan = plan_sweep(args.file)
    key_problems = plan.key_problems()
    if "local" in plan.calls_by_endpoint:
        from mustmaybe.agents import check_local_backend

        check_local_backend()  # a llama.cpp that crashes this CPU: one line and exit 2, before any episode
    if args.dry_run:
        # A key may be exported between the dry run and the sweep, so here it is a warning, not an error.
        if args.json:
            for k in key_problems:
                _console(stderr=True).print(f"warning: {k}", soft_wrap=True, markup=False)
            print(json.dumps({"episodes": len(plan.episodes), "calls_by_endpoint": dict(plan.calls_by_endpoint)}))
            return 0
        _print_plan(plan, key_problems)
        return 0
    if key_problems:  # before the first episode: otherwise every episode would fail on the same missing key
        raise SweepError(str(plan.path), key_problems)
    trace = args.trace or plan.file.trace
    if trace:
        from mustmaybe.tracing import check_tracing

        check_tracing()  # a missing extra: one line, before any model call
    if args.resume and args.out is None:
        raise UserError("--resume needs --out DIR: the run folder to continue")
    from mustmaybe.store import folder_problem

    flag, target = ("--out", args.out) if args.out is not None else ("--runs-dir", args.runs_dir)
    if (where := folder_problem(target)) is not None:  # before any model call, never a traceback after
        raise UserError(f"{flag} {target}: {where}")
    if args.ray is not None:
        from mustmaybe.sweep import connect_ray

        connect_ray(args.ray or None)  # before the run folder exists: a missing extra or cluster is one line
    opts = SweepOptions(out=args.out, resume=args.resume, use_cache=not args.no_cache, json=args.json,
                        runs_dir=args.runs_dir, trace=trace, ray=args.ray)
    code, summary = execute_sweep(plan, opts)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        failed = (f", [bold red]{summary['failed']} FAILED[/bold red] (neither safe nor unsafe; --resume runs them "
                  f"again)") if summary["failed"] else ""
        _console(stderr=True).print(
            f"[bold]{summary['status']}[/bold]: {summary['done']:,}/{summary['episodes']:,} episodes scored in "
            f"{summary['run']} ({summary.get('parse_errors', 0)} parse errors, {summary['with_errors']} with "
            f"recorded errors{failed})")
        if summary.get("trace"):
            _console(stderr=True).print(f"traces: {summary['trace']}", soft_wrap=True, markup=False)
    return code


def _print_plan(plan: Any, key_problems: list[str]) -> None:
    from collections import Counter

    from rich.markup import escape
    from rich.table import Table

    out = _console()
    sim = "  [black on yellow] SIMULATED [/]" if plan.simulated else ""
    out.print(f"[bold]{escape(plan.name)}[/bold]: {len(plan.episodes):,} episodes "
              f"({len(plan.scenarios)} tasks){sim}")
    calls = Table(title="model calls by endpoint")
    calls.add_column("endpoint")
    calls.add_column("calls", justify="right")
    calls.add_column("limits")
    for ep, n in sorted(plan.calls_by_endpoint.items()):
        cfg = plan.endpoints.get(ep)
        limits = (f"concurrency {cfg.concurrency}, rpm {cfg.requests_per_minute or '–'}, timeout {cfg.timeout_s:g} s, "
                  f"key {cfg.api_key_env or '–'}, {cfg.structured_output}") if cfg else "–"
        calls.add_row(escape(ep), f"{n:,}", escape(limits))
    out.print(calls)
    per = Counter((e.condition.id, str(e.topology)) for e in plan.episodes)
    table = Table(title="episodes by condition and topology")
    for col in ("condition", "topology", "episodes"):
        table.add_column(col, justify="right" if col == "episodes" else "left")
    for (c, t), n in per.items():
        table.add_row(c, escape(t), str(n))
    out.print(table)
    out.print(f"at most {plan.max_in_flight} episodes in flight")
    for s in plan.skipped:
        out.print(f"[dim]skipped[/dim] {escape(s)}")
    for w in [*plan.warnings, *key_problems]:
        out.print(f"[yellow]warning:[/yellow] {escape(w)}")


# ---------------------------------------------------------------- rescore / export
def cmd_rescore(args: argparse.Namespace) -> int:
    from mustmaybe.judges import JUDGMENTS_FILE, instrument_for
    from mustmaybe.store import rescore_run

    if not (args.run / "store.sqlite").exists():
        raise UserError(f"{args.run}: not a run folder (no store.sqlite)")
    instrument = instrument_for(args.checker, judgments=args.run / JUDGMENTS_FILE, args=args)
    try:
        result = rescore_run(args.run, None if instrument.is_rules else instrument)
    except (FileNotFoundError, ValueError) as exc:
        raise UserError(str(exc)) from None
    if not instrument.is_rules:
        result["instrument"] = {**instrument.stats.as_dict(), "model_calls": instrument.model_calls,
                                "cached_judgments": sum(j.cache_hits for j in instrument.judges)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    _console().print(
        f"rescored {result['episodes']:,} episodes in {result['run']} with {result['checker']} "
        f"(before: {', '.join(result['previous_checker_versions']) or '–'}): artifact state changed in "
        f"{result['state_changed']}, forbidden in {result['forbidden_changed']}, "
        f"hop states in {result['hop_states_changed']}")
    ins = result.get("instrument")
    if ins:
        _console().print(f"judge model calls: {ins['model_calls']}, judgments reused: {ins['cached_judgments']}, "
                         f"judge failures (the rules' score stood): {ins['judge_failures']}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from mustmaybe.store import export_run

    paths = export_run(args.run, args.format, args.out)
    for p in paths:
        print(p)
    return 0


# ---------------------------------------------------------------- watch
def cmd_watch(args: argparse.Namespace) -> int:
    from mustmaybe.sweep import render, watch_run

    console = _console()
    code, tally = watch_run(args.run, once=args.once, interval=args.interval, live=not args.json, console=console)
    if args.json:
        print(json.dumps({"run": str(args.run), **tally.summary()}, indent=2))
    elif args.once or not console.is_terminal:
        console.print(render(tally, source="watch"))
    return code
