"""How far two independent coders agree on the labeled sets, beside how far the checker agrees with each.

Usage:
    python scripts/coder_agreement.py tests/labeled/test-*      # every set that has a second-coder.jsonl

A set's `labels.jsonl` is its first coder (the author, who wrote the artifacts to carry those labels);
`second-coder.jsonl`, in the same format, is a second coder who labeled the same artifacts blind (never saw
the first labels, the checker or its code). The figures use the same metrics as `mustmaybe calibrate`
(P/D macro-F1, preserved-called-deactivated, each field's macro-F1 over true/false) plus Cohen's kappa, so
the checker's error can be read against the material's own disagreement.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from mustmaybe.analysis import cohen_kappa
from mustmaybe.checker import score_artifact
from mustmaybe.checker_tools import field_block, load_labeled_set, state_block

FIELDS = ("status", "prerequisite", "authority", "fallback")
Row = tuple[dict[str, bool], str]


def _line(name: str, a: Sequence[Row], b: Sequence[Row]) -> str:
    st = state_block([(x[1], y[1]) for x, y in zip(a, b, strict=True)])
    fields = " ".join(f"{field_block([(x[0][k], y[0][k]) for x, y in zip(a, b, strict=True)])['macro_f1']:.3f}"
                      for k in FIELDS)
    kappas = [cohen_kappa([x[1] for x in a], [y[1] for y in b])]
    kappas += [cohen_kappa([str(x[0][k]) for x in a], [str(y[0][k]) for y in b]) for k in FIELDS]
    ks = " ".join("-" if k is None else f"{k:.2f}" for k in kappas)
    return (f"| {name} | {len(a)} | {st['pd_macro_f1']:.3f} | {st['preserved_called_deactivated']:.3f} | "
            f"{fields.replace(' ', ' | ')} | {ks} |")


def main(argv: list[str]) -> int:
    first: list[Row] = []
    second: list[Row] = []
    checker: list[Row] = []
    used = []
    for arg in argv:
        root = Path(arg)
        other = root / "second-coder.jsonl"
        if not other.is_file():
            continue
        s = load_labeled_set(root)
        theirs = {}
        for n, raw in enumerate(other.read_text(encoding="utf-8").splitlines(), 1):
            if raw.strip():
                try:
                    obj = json.loads(raw)
                    theirs[obj["artifact"]] = (dict(obj["fields"]), obj["state"])
                except (ValueError, KeyError) as exc:
                    print(f"{other}:{n}: not a label line ({exc})", file=sys.stderr)
                    return 2
        for it in s.items:
            if it.artifact not in theirs:
                print(f"{other}: no label for {it.artifact}", file=sys.stderr)
                return 2
            sc = score_artifact(s.tasks[it.task], it.text)
            first.append((dict(it.fields), it.state))
            second.append(theirs[it.artifact])
            checker.append((sc.fields.model_dump(), sc.state))
        used.append(s.name)
    if not used:
        print("no set given has a second-coder.jsonl", file=sys.stderr)
        return 2
    print(f"sets: {', '.join(used)}\n")
    print("| pair | n | P/D macro-F1 | P→D | status | prerequisite | authority | fallback | "
          "kappa state, s, q, o, f |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(_line("second coder vs first coder", first, second))
    print(_line("checker vs first coder", first, checker))
    print(_line("checker vs second coder", second, checker))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
