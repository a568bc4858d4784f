"""`mustmaybe judge RUN [RUN...] --judges SPEC;SPEC;… [--sample N] [--seed S] --out DIR`: a blind judge panel.

Several run folders give one panel: the sample is drawn from their finished episodes together (an episode
key held by two runs counts once), and each judgment is cached in the folder of the run it came from.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.records import EpisodeRecord, ModelSpec
    from mustmaybe.scenarios import Scenario


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("judge", help="a blind panel of model judges on a run's final artifacts: agreement tables")
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN",
                   help="run folder (several: one panel drawn across them)")
    p.add_argument("--judges", required=True, metavar="SPEC;SPEC;…",
                   help="judge model specs separated by ';' (e.g. 'sim:judge-lenient;sim:judge-strict'); "
                        "'preset:five-sim' stands for five simulated judges")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="judge N artifacts, stratified by condition, drawn across all the runs (default: all)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="where judgments and tables are written")
    p.add_argument("--concurrency", type=int, default=8, help="judgments in flight (default 8)")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figure")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    from ._judge_options import add_judge_options

    add_judge_options(p)
    p.set_defaults(func=cmd_judge)


def cmd_judge(args: argparse.Namespace) -> int:
    from mustmaybe.agents import ResponseCache
    from mustmaybe.judges import (
        JUDGMENTS_FILE,
        ModelJudge,
        audit_view,
        panel_episodes,
        run_panel,
        stratified_sample,
        write_judgments,
    )

    parsed = _judge_specs(args.judges)
    specs = [s for s, _ in parsed]
    if args.sample is not None and args.sample < 1:
        raise UserError(f"--sample {args.sample}: must be at least 1")
    runs, scenarios, records = _load_runs(args.runs)
    sample = stratified_sample(records, args.sample, args.seed)
    from mustmaybe.judges import judge_endpoints

    endpoints = judge_endpoints([m for _, m in parsed], args)
    # One set of judges per run: each judgment is kept in the cache of the run its episode came from.
    panels = [(run, [r for r in sample if runs[r.key] == run],
               [ModelJudge(s, m, cache=ResponseCache(run / JUDGMENTS_FILE), endpoint=endpoints.get(m.endpoint))
                for s, m in parsed])
              for run in args.runs]
    panels = [p for p in panels if p[1]]
    judges = [j for _, _, js in panels for j in js]

    async def main() -> tuple[list, list[str]]:  # type: ignore[type-arg]
        made: list = []  # type: ignore[type-arg]
        failed: list[str] = []
        try:
            for _, part, js in panels:
                got, bad = await run_panel(part, scenarios, js, concurrency=max(1, args.concurrency))
                made += got
                failed += bad
            return made, failed
        finally:
            for j in judges:
                await j.close()

    from mustmaybe import interrupt

    try:
        judgments, failures = interrupt.run(main())
    except interrupt.Interrupted as stop:
        done = sum(j.calls for j in judges)
        where = ", ".join(str(run / JUDGMENTS_FILE) for run, _, _ in panels)
        print(f"stopped: {done} new judgment(s) kept in {where}; run the same command to resume")
        return stop.exit_code
    # The judgments in episode-key order, each episode's judges in --judges order, as with one run.
    order = {r.key: i for i, r in enumerate(sample)}
    judgments.sort(key=lambda j: (order[j.episode], specs.index(j.judge)))
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

    # What the panel was drawn from, so `report --panel` can say which runs its sample covers.
    drawn = {"runs": [{"run": str(run), "episodes": len(part)} for run, part, _ in panels], "judges": specs,
             "sample": args.sample, "seed": args.seed, "episodes": len(sample)}
    (args.out / "panel.json").write_text(json.dumps(drawn, indent=2), encoding="utf-8")
    summary = {"run": str(args.runs[0]), "runs": [str(r) for r in args.runs], "episodes": len(sample),
               "judges": specs, "simulated": simulated_judges(specs), "judgments": len(judgments),
               "parse_failures": sum(not j.parse_ok for j in judgments), "call_failures": len(failures),
               "model_calls": sum(j.calls for j in judges), "reused": sum(j.cache_hits for j in judges),
               "audit": {"views": audit["views"], "leaks": len(leaks)},
               "files": [str(f) for f in [args.out / "judgments.jsonl", args.out / "audit.json",
                                          args.out / "panel.json", *files]]}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print(summary, args.out)
    return 0


def _judge_specs(text: str) -> list[tuple[str, ModelSpec]]:
    """`--judges` as model specs (presets expanded), each parsed once and checked against this installation:
    (the spec as written, which names the judge, and the parsed spec)."""
    from mustmaybe.agents import check_model_spec
    from mustmaybe.judges import expand_judges
    from mustmaybe.records import ModelSpecError

    specs = expand_judges(text)
    if not specs:
        raise UserError("--judges: name at least one judge model spec")
    if len(set(specs)) != len(specs):
        raise UserError(f"--judges {text}: a judge is listed twice")
    out = []
    for s in specs:
        try:
            out.append((s, check_model_spec(s)))
        except ModelSpecError as exc:
            raise UserError(f"--judges: {exc}") from None
    return out


def _load_runs(paths: Sequence[Path]) -> tuple[dict[str, Path], dict[str, Scenario], list[EpisodeRecord]]:
    """Episode key → its run, the runs' scenarios, and their finished episodes (a key held twice: once)."""
    from mustmaybe.store import RunStore

    if len(set(paths)) != len(paths):
        raise UserError("judge: the same run folder is given twice")
    where: dict[str, Path] = {}
    scenarios: dict[str, Scenario] = {}
    records: list[EpisodeRecord] = []
    for run in paths:
        if not (run / "store.sqlite").exists():
            raise UserError(f"{run}: not a run folder (no store.sqlite)")
        with RunStore(run, readonly=True) as store:
            scenarios.update(store.scenarios())
            for r in store.records():
                if not r.failed and r.key not in where:
                    where[r.key] = run
                    records.append(r)
    if not records:
        raise UserError(f"{', '.join(map(str, paths))}: no finished episode to judge")
    return where, scenarios, records


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
