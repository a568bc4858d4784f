"""`mustmaybe report` and `mustmaybe compare`: the analysis layer on the command line.

polars, numpy and matplotlib are imported inside the handlers, so other commands never load them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from rich.console import Console

    from mustmaybe.analysis import Calibration, PanelJudgments, ReportTable
    from mustmaybe.records import EpisodeRecord

_BY_CHOICES = ("run", "models", "executor-model", "transformer-model", "reviewer-model", "topology", "substrate")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    r = sub.add_parser("report", help="the paper's tables and figures from your runs (markdown, CSV, PNG, HTML)")
    r.add_argument("runs", nargs="+", metavar="RUN",
                   help="run folder (manifest.json + store.sqlite) or a .jsonl export of episode records")
    r.add_argument("--out", default=None, metavar="DIR",
                   help="report folder (default: RUN/report, or <file>-report beside a .jsonl)")
    r.add_argument("--resamples", type=int, default=1000, help="task-cluster bootstrap resamples (default 1000)")
    r.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    r.add_argument("--title", default="mustmaybe report", help="the report's title (default 'mustmaybe report')")
    r.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    r.add_argument("--json", action="store_true", help="print a JSON summary (files and counts) instead")
    r.add_argument("--calibration", action="append", default=[], metavar="SET[,SET...]",
                   help="labeled sets (repeatable or comma-separated): add P and D corrected for the checker's "
                        "measured error on them (P_adj, D_adj with 95%% intervals)")
    r.add_argument("--panel", default=None, metavar="PANEL_DIR",
                   help="the --out folder of `mustmaybe judge` on these runs: add P and D corrected by the "
                        "checker-vs-panel-majority confusion on the judged sample (P_panel, D_panel with 95%% "
                        "intervals) and show that confusion")
    r.set_defaults(func=cmd_report)

    c = sub.add_parser(
        "compare",
        help="paired contrasts on matched episodes: two runs, or two models / topologies inside runs",
        description="RUN_A RUN_B compares two runs episode by episode. With --by, compares two values of "
                    "one dimension (--a, --b) inside the given runs, matched on everything else.",
    )
    c.add_argument("runs", nargs="+", metavar="RUN", help="run folders or .jsonl exports")
    c.add_argument("--by", choices=_BY_CHOICES, default=None,
                   help="dimension that forms the two arms (default: run, with exactly two runs)")
    c.add_argument("--a", default=None, help="value of --by for arm A (the reference)")
    c.add_argument("--b", default=None, help="value of --by for arm B (differences are B − A)")
    c.add_argument("--resamples", type=int, default=1000, help="task-cluster bootstrap resamples (default 1000)")
    c.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    c.add_argument("--csv", default=None, metavar="FILE", help="also write the contrast table as CSV")
    c.add_argument("--json", action="store_true", help="print the contrasts as JSON")
    c.set_defaults(func=cmd_compare)


# ------------------------------------------------------------------ loading
def _labels(paths: Sequence[str]) -> list[str]:
    names = [Path(p).stem if Path(p).is_file() else Path(p).name for p in paths]
    return [n if names.count(n) == 1 else str(p) for n, p in zip(names, paths, strict=True)]


def load_runs(paths: Sequence[str]) -> dict[str, list[EpisodeRecord]]:
    """Run label → episode records, for run folders and .jsonl exports; user errors raise UserError."""
    from mustmaybe.analysis import load_episodes

    if len(set(paths)) != len(paths):
        raise UserError("the same run is given twice")
    out: dict[str, list[EpisodeRecord]] = {}
    for label, path in zip(_labels(paths), paths, strict=True):
        try:
            out[label] = load_episodes(path)
        except FileNotFoundError as exc:
            raise UserError(str(exc.args[0] if exc.args else exc)) from None
        except ValueError as exc:
            raise UserError(str(exc)) from None
    return out


def _default_out(path: str) -> Path:
    p = Path(path)
    return p / "report" if p.is_dir() else p.with_name(p.stem + "-report")


# ------------------------------------------------------------------ report
def cmd_report(args: argparse.Namespace) -> int:
    if args.resamples < 0:
        raise UserError("--resamples must be 0 or more")
    runs = load_runs(args.runs)
    calibration = load_calibration(args.calibration, run_instrument(runs)) if args.calibration else None
    judged = load_panel(args.panel, runs) if args.panel else None
    from mustmaybe.analysis import build_report, load_domains

    out = Path(args.out) if args.out else _default_out(args.runs[0])
    try:
        summary = build_report(runs, out, resamples=args.resamples, seed=args.seed, title=args.title,
                               figures=not args.no_figures, domains=load_domains(args.runs),
                               calibration=calibration, judged=judged)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({
            "out": str(summary.out_dir), "episodes": summary.n_episodes, "real": summary.n_real,
            "simulated": summary.n_simulated, "failed": summary.n_failed, "duplicates": summary.duplicates,
            "files": [str(f) for f in summary.files], "seconds": round(summary.seconds, 2),
        }, indent=2))
        return 0
    con = _console()
    for note in summary.notes:
        loud = note.startswith(("SIMULATED", "No episodes", "FAILED", "No scored", "MOST EPISODES FAILED",
                                "CHECKER VERSION DIFFERS"))
        con.print(f"[bold red]⚠ {_esc(note)}[/bold red]" if loud else f"[yellow]{_esc(note)}[/yellow]")
    for t in summary.headline:
        con.print(rich_table(t))
    failed = f", [bold red]{summary.n_failed} failed[/bold red] (in no rate)" if summary.n_failed else ""
    con.print(f"[green]report[/green] {summary.out_dir / 'report.html'}  ({summary.n_episodes} episodes: "
              f"{summary.n_real} real, {summary.n_simulated} simulated{failed}; {len(summary.files)} files; "
              f"{summary.seconds:.1f} s)")
    return 0


# ------------------------------------------------------------------ calibration
def run_instrument(runs: Mapping[str, Sequence[EpisodeRecord]], flag: str = "--calibration") -> str:
    """The one instrument that scored these runs (records before instruments were named: the rules).

    Raises:
        UserError: the runs mix instruments, so no one confusion matrix describes their rates.
    """
    from mustmaybe.judges import parse_instrument

    names = {("rules" if parse_instrument(r.checker or "rules").is_rules else (r.checker or "rules"))
             for recs in runs.values() for r in recs}
    if len(names) > 1:
        raise UserError(f"{flag}: the runs were scored by different instruments (" + ", ".join(sorted(names))
                        + "); rescore them with one --checker first")
    return names.pop() if names else "rules"


def load_calibration(values: Sequence[str], spec: str) -> Calibration:
    """`--calibration` values (repeated and/or comma-separated set folders) measured with the run's instrument."""
    from mustmaybe.analysis import Calibration
    from mustmaybe.checker_tools import LabeledSetError, load_labeled_set
    from mustmaybe.judges import instrument_for

    from ._calibrate import calibrate_instrument

    paths = [p.strip() for v in values for p in v.split(",") if p.strip()]
    if not paths:
        raise UserError("--calibration needs at least one labeled set folder")
    if len(set(paths)) != len(paths):
        raise UserError("--calibration: the same labeled set is given twice")
    instrument = instrument_for(spec)
    try:
        sets = [load_labeled_set(p) for p in paths]
    except LabeledSetError as exc:
        raise UserError(f"--calibration: {exc}") from None
    return Calibration.from_result(calibrate_instrument(sets, instrument))


def load_panel(path: str, runs: Mapping[str, Sequence[EpisodeRecord]]) -> PanelJudgments:
    """`--panel PANEL_DIR` read and checked against the runs: some of its judged episodes must be theirs.

    Raises:
        UserError: one line naming the path (no such folder, no judgments.jsonl, a malformed line, no judged
            episode in these runs, or runs scored by several instruments).
    """
    from mustmaybe.analysis import read_panel

    try:
        judged = read_panel(path)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    keys = {r.key for recs in runs.values() for r in recs if not r.failed}
    if not any(k in keys for k in judged.votes):
        raise UserError(f"--panel {path}: none of its {len(judged.votes)} judged episodes is in these runs "
                        "(was it made by `mustmaybe judge` on them?)")
    run_instrument(runs, "--panel")  # one instrument, or no one confusion describes the checker's side
    return judged


# ------------------------------------------------------------------ compare
def cmd_compare(args: argparse.Namespace) -> int:
    runs = load_runs(args.runs)
    labels = list(runs)
    by, a, b = args.by, args.a, args.b
    if by is None:
        if len(labels) != 2:
            raise UserError("give exactly two runs (RUN_A RUN_B), or --by with --a and --b")
        by = "run"
    if by == "run" and a is None and b is None:
        if len(labels) != 2:
            raise UserError("--by run needs --a and --b when more than two runs are given")
        a, b = labels
    from mustmaybe.analysis import BY_COLUMNS, build_frames, compare

    frames = build_frames(runs, dedupe=False)
    ep = frames.episodes
    if a is None or b is None:
        col = BY_COLUMNS[by]
        values = sorted(v for v in ep[col].unique().to_list() if v is not None)
        raise UserError(f"--by {by} needs --a and --b; values in these runs: {', '.join(values) or 'none'}")
    import numpy as np

    try:
        result = compare(ep, by=by, a=a, b=b, resamples=args.resamples, rng=np.random.default_rng(args.seed))
    except LookupError as exc:
        raise UserError(str(exc.args[0])) from None
    table = result.table
    if args.csv:
        import polars as pl

        table.with_columns(pl.col(pl.Float64).round(2)).write_csv(args.csv)
    sim = bool(ep.filter(ep[BY_COLUMNS[by]].is_in([result.a, result.b]))["simulated"].any()) if ep.height else False
    matched = int(table.filter(table["condition"] != "all")["n_b"].sum()) if table.height else 0
    # Nothing matched is not a comparison: say so, suggest the dimension the arms differ in, exit 1.
    code = 0 if matched else 1
    if args.json:
        print(json.dumps({"by": by, "a": result.a, "b": result.b, "match_on": result.keys, "episodes_a": result.n_a,
                          "episodes_b": result.n_b, "simulated": sim, "rows": table.to_dicts()}, indent=2))
        if not matched:
            sys.stderr.write(f"no matched episodes{_no_match_hint(ep, by, result.a, result.b)}\n")
        return code
    a, b = result.a, result.b
    con = _console()
    if sim:
        con.print("[bold red]⚠ SIMULATED: these arms include sim-backend episodes; their rates are configured "
                  "inputs, not findings.[/bold red]")
    con.print(f"compare --by {by}: A = {_esc(a)} ({result.n_a} episodes), B = {_esc(b)} ({result.n_b} episodes); "
              f"matched on {', '.join(result.keys)}; {matched} B episodes matched")
    if not matched:
        con.print(f"[yellow]No matched episodes: the two arms share no ({', '.join(result.keys)}) cell"
                  f"{_esc(_no_match_hint(ep, by, a, b))}.[/yellow]", soft_wrap=True)
        return code
    con.print(_compare_table(table.to_dicts(), a, b))
    return 0


def _no_match_hint(ep: Any, by: str, a: str, b: str) -> str:
    """Which other dimension the two arms differ in, as the `--by` to try (empty when none tells them apart)."""
    import polars as pl

    from mustmaybe.analysis import BY_COLUMNS

    col = BY_COLUMNS[by]
    arm_a, arm_b = ep.filter(pl.col(col) == a), ep.filter(pl.col(col) == b)
    for dim, other in BY_COLUMNS.items():
        if dim in (by, "run") or other == col:
            continue
        va, vb = set(arm_a[other].drop_nulls().to_list()), set(arm_b[other].drop_nulls().to_list())
        if va and vb and not va & vb:
            return (f" (they differ in {dim}: try --by {dim} --a '{sorted(va)[0]}' --b '{sorted(vb)[0]}', "
                    f"with both runs given)")
    return " (try --by with the dimension the runs differ in: " + ", ".join(d for d in BY_COLUMNS if d != by) + ")"


def _compare_table(rows: Sequence[Mapping[str, Any]], a: str, b: str):  # type: ignore[no-untyped-def]
    from mustmaybe.analysis import fmt

    from ._fit import FitTable

    cells = []
    for r in rows:
        row = [str(r["panel"]), str(r["condition"]), f"{r['n_a']}/{r['n_b']}"]
        for o in ("P", "D", "unsafe"):
            row.append(f"{fmt(r[f'{o}_a'])} → {fmt(r[f'{o}_b'])}")
            row.append(f"{fmt(r[f'd{o}'])} [{fmt(r[f'd{o}_lo'])}, {fmt(r[f'd{o}_hi'])}]")
        cells.append([_esc(c) for c in row])
    return FitTable(["panel", "condition", "n A/B", "P  A → B", "dP", "D  A → B", "dD", "unsafe  A → B", "dY"], cells,
                    title=_esc(f"B − A in percentage points, task-cluster 95% intervals (A = {a}, B = {b})"),
                    label_columns=2)


# ------------------------------------------------------------------ console helpers
def rich_table(t: ReportTable):  # type: ignore[no-untyped-def]
    """A ReportTable for the console: a table where it fits, one block per row where not (`FitTable`)."""
    from ._fit import FitTable

    return FitTable([_esc(h) for h in t.header], [[_esc(c) for c in row] for row in t.rows], title=_esc(t.title),
                    caption=_esc(t.coverage), label_columns=_label_columns(t))


def _label_columns(t: ReportTable) -> int:
    """The leading columns that name a row (their cells are not numbers, intervals or dashes)."""
    import re

    number = re.compile(r"^[\s\d.,\[\]–+%/-]*$")
    k = 0
    for i in range(len(t.header)):
        if not t.rows or all(number.match(row[i]) for row in t.rows):
            break
        k += 1
    return max(k, 1)


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)
