"""`mustmaybe judge RUN --judges SPEC;SPEC;… [--sample N] [--seed S] --out DIR`: a blind judge panel on a run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mustmaybe.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("judge", help="a blind panel of model judges on a run's final artifacts: agreement tables")
    p.add_argument("run", type=Path, help="run folder")
    p.add_argument("--judges", required=True, metavar="SPEC;SPEC;…",
                   help="judge model specs separated by ';' (e.g. 'sim:judge-lenient;sim:judge-strict')")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="judge N artifacts, stratified by condition (default: all)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="where judgments and tables are written")
    p.add_argument("--concurrency", type=int, default=8, help="judgments in flight (default 8)")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figure")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    from mustmaybe.judges import add_judge_options

    add_judge_options(p)
    p.set_defaults(func=cmd_judge)


def cmd_judge(args: argparse.Namespace) -> int:
    from mustmaybe.agents import ModelSpecError, ResponseCache, check_model_spec
    from mustmaybe.judges import (
        JUDGMENTS_FILE,
        ModelJudge,
        audit_view,
        panel_episodes,
        run_panel,
        stratified_sample,
        write_judgments,
    )
    from mustmaybe.store import RunStore

    if not (args.run / "store.sqlite").exists():
        raise UserError(f"{args.run}: not a run folder (no store.sqlite)")
    if args.sample is not None and args.sample < 1:
        raise UserError(f"--sample {args.sample}: must be at least 1")
    specs = [s.strip() for s in args.judges.split(";") if s.strip()]
    if not specs:
        raise UserError("--judges: name at least one judge model spec")
    if len(set(specs)) != len(specs):
        raise UserError(f"--judges {args.judges}: a judge is listed twice")
    for s in specs:
        try:
            check_model_spec(s)
        except ModelSpecError as exc:
            raise UserError(f"--judges: {exc}") from None
    with RunStore(args.run, readonly=True) as store:
        scenarios = store.scenarios()
        records = [r for r in store.records() if not r.failed]
    if not records:
        raise UserError(f"{args.run}: no finished episode to judge")
    sample = stratified_sample(records, args.sample, args.seed)
    cache = ResponseCache(args.run / JUDGMENTS_FILE)
    from mustmaybe.judges import judge_endpoints
    from mustmaybe.records import parse_model_spec

    endpoints = judge_endpoints(specs, args)
    judges = [ModelJudge(s, cache=cache, endpoint=endpoints.get(parse_model_spec(s).endpoint)) for s in specs]

    async def main() -> tuple[list, list[str]]:  # type: ignore[type-arg]
        try:
            return await run_panel(sample, scenarios, judges, concurrency=max(1, args.concurrency))
        finally:
            for j in judges:
                await j.close()

    from mustmaybe import interrupt

    try:
        judgments, failures = interrupt.run(main())
    except interrupt.Interrupted as stop:
        done = sum(j.calls for j in judges)
        print(f"stopped: {done} new judgment(s) kept in {args.run / JUDGMENTS_FILE}; run the same command to resume")
        return stop.exit_code
    by_key = {r.key: r for r in sample}
    leaks = {j.episode + " " + j.judge: p for j in judgments
             if (p := audit_view(j.view, by_key[j.episode], scenarios[by_key[j.episode].task_hash]))}
    args.out.mkdir(parents=True, exist_ok=True)
    write_judgments(args.out / "judgments.jsonl", judgments)
    from mustmaybe.analysis import write_judge_tables

    files = write_judge_tables(args.out, judgments, panel_episodes(sample), figures=not args.no_figures)
    audit = {"views": len(judgments), "clean": len(judgments) - len(leaks), "leaks": leaks}
    (args.out / "audit.json").write_text(json.dumps(audit, indent=2), encoding="utf-8")
    from mustmaybe.analysis import simulated_judges

    summary = {"run": str(args.run), "episodes": len(sample), "judges": specs,
               "simulated": simulated_judges(specs), "judgments": len(judgments),
               "parse_failures": sum(not j.parse_ok for j in judgments), "call_failures": len(failures),
               "model_calls": sum(j.calls for j in judges), "reused": sum(j.cache_hits for j in judges),
               "audit": {"views": audit["views"], "leaks": len(leaks)},
               "files": [str(f) for f in [args.out / "judgments.jsonl", args.out / "audit.json", *files]]}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print(summary, args.out)
    return 0


def _print(summary: dict, out: Path) -> None:  # type: ignore[type-arg]
    from rich.console import Console
    from rich.markup import escape

    c = Console(highlight=False)
    if summary["simulated"]:
        from mustmaybe.analysis import simulated_note

        c.print(f"[bold red]⚠ {escape(simulated_note(summary['simulated']))}[/bold red]")
    c.print(f"judged {summary['episodes']} artifacts with {len(summary['judges'])} judge(s): "
            f"{summary['model_calls']} model calls, {summary['reused']} judgments reused, "
            f"{summary['parse_failures']} answers unparsed, {summary['call_failures']} calls failed")
    c.print(f"audit: {summary['audit']['views']} views, {summary['audit']['leaks']} with material that must "
            f"not be there")
    md = out / "judge_summary.md"
    if md.exists():
        c.print(md.read_text(encoding="utf-8"))
    c.print(f"[dim]written to {out}[/dim]")
