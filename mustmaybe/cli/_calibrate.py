"""`mustmaybe calibrate SET... [--checker SPEC] [--json]`: measure an instrument on labeled sets."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mustmaybe.errors import UserError

if TYPE_CHECKING:
    from mustmaybe.checker_tools import LabeledSet
    from mustmaybe.judges import Instrument


def cmd_calibrate(args: argparse.Namespace) -> int:
    from mustmaybe.checker_tools import LabeledSetError, load_labeled_set
    from mustmaybe.judges import instrument_for

    instrument = instrument_for(args.checker, args=args)
    sets, problems = [], []
    for p in args.sets:  # every problem of every set at once
        try:
            sets.append(load_labeled_set(p))
        except LabeledSetError as exc:
            problems += exc.problems
    if problems:
        raise UserError(problems[0] if len(problems) == 1 else
                        f"{len(problems)} problems in the labeled sets:\n" + "\n".join(f"  {x}" for x in problems))
    result = calibrate_instrument(sets, instrument, by_family=args.by == "family")
    if args.json:
        print(json.dumps(result))
        return 0
    _print_tables(result)
    return 0


def calibrate_instrument(sets: Sequence[LabeledSet], instrument: Instrument, *,
                         by_family: bool = False) -> dict[str, Any]:
    """`calibrate()` for any instrument: judges' items are scored concurrently first, then compared.

    A judge that gave no usable answer leaves the rules' score on that item and is counted in
    `instrument.judge_failures`, so a figure is never silently the rules' under a judge's name.
    """
    from mustmaybe.checker import score_artifact
    from mustmaybe.checker_tools import calibrate
    from mustmaybe.judges import score_all

    if instrument.is_rules:
        return calibrate(sets, score_artifact, instrument.name, by_family=by_family)
    items = [(ls.tasks[it.task], it.text) for ls in sets for it in ls.items]
    scores = score_all(instrument, items)
    table = {(sc.id, text): s for (sc, text), s in zip(items, scores, strict=True)}
    result = calibrate(sets, lambda sc, text: table[(sc.id, text)], instrument.name, by_family=by_family)
    result["instrument"] = {**instrument.stats.as_dict(), "model_calls": instrument.model_calls}
    return result


def _row(label: str, split: str, block: dict[str, Any]) -> list[str]:
    st = block["state"]
    return [label, split, str(block["n"]), f"{st['pd_macro_f1']:.2f}", f"{st['macro_f1']:.2f}",
            *(f"{block['fields'][f]['macro_f1']:.2f}" for f in ("status", "prerequisite", "authority", "fallback")),
            f"{st['preserved_called_deactivated']:.0%}", f"{st['deactivated_called_preserved']:.0%}"]


def _print_tables(result: dict[str, Any]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False)
    table = Table(title=f"calibration of {result['checker']}", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False, padding=(0, 1))
    for col in ("set", "split", "n", "P/D", "state", "s", "q", "o", "f", "P→D", "D→P"):
        table.add_column(col, justify="left" if col in ("set", "split") else "right", no_wrap=col != "set")
    for s in result["sets"]:
        table.add_row(*_row(s["set"], s["split"], s))
    for split, block in result["splits"].items():
        table.add_row(*_row(f"all {split}", split, block), style="bold")
    table.add_row(*_row("all", "", result), style="bold")
    out.print(table)
    if "families" in result:
        fam = Table(title="by family", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
        for col in ("family", "splits", "n", "P/D", "state", "s", "q", "o", "f", "P→D", "D→P"):
            fam.add_column(col, justify="left" if col in ("family", "splits") else "right", no_wrap=col != "family")
        for name, block in result["families"].items():
            fam.add_row(*_row(name, ",".join(block["splits"]), block))
        out.print(fam)
    for split, block in [*result["splits"].items(), ("all", result)]:
        su = block["sureness"]
        out.print(f"{split}: {su['sure_share']:.0%} of items sure (unsure empty), their state right "
                  f"{su['sure_accuracy']:.1%}; the unsure ones right {su['unsure_accuracy']:.1%}")
    for split, block in result["splits"].items():
        iv = block.get("intervals") or {}
        if iv.get("pd_macro_f1"):
            fields = " ".join(f"{k[0]} {block['fields'][k]['macro_f1']:.2f} [{lo:.2f}, {hi:.2f}]"
                              for k, (lo, hi) in iv["fields"].items())
            lo, hi = iv["pd_macro_f1"]
            plo, phi = iv["preserved_called_deactivated"]
            out.print(f"all {split}, 95% over {iv['tasks']} tasks: P/D {block['state']['pd_macro_f1']:.3f} "
                      f"[{lo:.3f}, {hi:.3f}]  P→D {block['state']['preserved_called_deactivated']:.1%} "
                      f"[{plo:.1%}, {phi:.1%}]  {fields}", soft_wrap=True)
    tune, test = result["splits"].get("tuning"), result["splits"].get("test")
    if tune and test:
        gap = tune["state"]["pd_macro_f1"] - test["state"]["pd_macro_f1"]
        verdict = "the rules memorize their tuning material" if gap > 0.05 else "within 0.05"
        out.print(f"tuning − test P/D macro-F1 gap: {gap:+.3f} ({verdict})")
    ins = result.get("instrument")
    if ins:
        decided = ", ".join(f"{k} {v}" for k, v in sorted(ins["decided_by"].items()))
        out.print(f"decided by: {decided}; judge failures (rules' score stood): {ins['judge_failures']}; "
                  f"unverified quotes dropped: {ins['unverified_quotes']}; model calls: {ins['model_calls']}")
    out.print("P/D: macro-F1 over preserved/deactivated; state: over all three states; s q o f: the fields' "
              "macro-F1 over true/false; P→D: share of gold-preserved notes scored deactivated; D→P: of "
              "gold-deactivated notes scored preserved. --json lists every miss.")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("calibrate", help="measure the checker on labeled sets (confusion matrices, F1s, misses)")
    p.add_argument("sets", nargs="+", metavar="SET", help="labeled set folders (labels.jsonl, tasks/, artifacts/)")
    p.add_argument("--checker", default="rules", metavar="SPEC", help="the instrument to measure (default: rules)")
    p.add_argument("--json", action="store_true", help="print the calibration JSON")
    p.add_argument("--by", choices=("family",), default=None,
                   help="also break the figures down by the labels' family (the kind of text)")
    from ._judge_options import add_judge_options

    add_judge_options(p)
    p.set_defaults(func=cmd_calibrate)
