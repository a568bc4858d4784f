"""The checker's measured error on the labeled measurement sets, shipped with the package for the report.

Usage: python scripts/measured_error.py [--labeled DIR] [--out FILE] [--check]

Scores every artifact of the labeled sets in DIR (default tests/labeled) whose split is not `tuning`
(`test`, `open` or any other word: material nobody wrote a rule against) with the rules checker, as
`mustmaybe calibrate` does, and writes the figures the report states beside its rates to FILE
(default checker/measured_error.json, installed as mustmaybe/checker/measured_error.json). tests/labeled
is not shipped, so the report reads this file instead of measuring. `--check` writes nothing and exits 1
when FILE differs from a fresh measurement (rerun without it after any change to the checker).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mustmaybe.checker import CHECKER_NAME, CHECKER_VERSION, score_artifact
from mustmaybe.checker_tools import LabeledSet, LabeledSetError, calibrate, load_labeled_set

ROOT = Path(__file__).resolve().parent.parent
LABELED = ROOT / "tests" / "labeled"
OUT = ROOT / "checker" / "measured_error.json"
FORMAT = 1


def split_word(root: Path) -> str:
    """A set's split as its folder says it: the `split` file's word, else the name's prefix (as the loader)."""
    marker = root / "split"
    if marker.is_file():
        return marker.read_text(encoding="utf-8").strip().lower() or "unspecified"
    if root.name.startswith(("tune-", "tuning-", "legacy-")):
        return "tuning"
    if root.name.startswith("test-"):
        return "test"
    return "unspecified"


def _load(root: Path) -> LabeledSet:
    """The set, whatever its split word: a loader that does not know the word reads a copy without it."""
    try:
        return load_labeled_set(root)
    except LabeledSetError:
        if not (root / "split").is_file() or split_word(root) in ("tuning", "test"):
            raise
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("split"))
        ls = load_labeled_set(copy)
    return ls.model_copy(update={"path": root})


def measurement_sets(labeled: Path = LABELED) -> list[tuple[LabeledSet, str]]:
    """Every labeled set under `labeled` whose split is not tuning, with its split word."""
    out = []
    for p in sorted(labeled.iterdir()):
        if (p / "labels.jsonl").is_file() and split_word(p) != "tuning":
            out.append((_load(p), split_word(p)))
    return out


def measure(labeled: Path = LABELED) -> dict[str, Any]:
    """The measured-error object (docs/reports.md, "The instrument's measured error")."""
    chosen = measurement_sets(labeled)
    if not chosen:
        raise SystemExit(f"{labeled}: no labeled set outside the tuning split")
    # Pooled as one measurement split, so calibrate's task bootstrap gives the intervals over all of them.
    res = calibrate([ls.model_copy(update={"split": "test"}) for ls, _ in chosen], score_artifact, CHECKER_NAME)
    pooled = res["splits"]["test"]
    iv = pooled["intervals"]
    conf = pooled["state"]["confusion"]
    gold_d = sum(conf["deactivated"].values())
    return {
        "format": FORMAT,
        "checker": CHECKER_NAME,
        "checker_version": CHECKER_VERSION,
        "made_by": "python scripts/measured_error.py",
        "n": pooled["n"],
        "tasks": iv["tasks"],
        "sets": [{"name": ls.name, "n": len(ls.items), "split": word} for ls, word in chosen],
        "state": {
            "confusion": conf,
            "accuracy": pooled["state"]["accuracy"],
            "macro_f1": pooled["state"]["macro_f1"],
            "pd_macro_f1": pooled["state"]["pd_macro_f1"],
            "pd_macro_f1_ci": iv["pd_macro_f1"],
            "preserved_called_deactivated": pooled["state"]["preserved_called_deactivated"],
            "preserved_called_deactivated_ci": iv["preserved_called_deactivated"],
            "deactivated_called_preserved": round(conf["deactivated"]["preserved"] / gold_d, 4) if gold_d else 0.0,
        },
        "fields": {f: {"macro_f1": b["macro_f1"], "macro_f1_ci": iv["fields"][f]}
                   for f, b in pooled["fields"].items()},
        "intervals": {"method": iv["method"], "resamples": iv["resamples"]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labeled", type=Path, default=LABELED, help="folder of labeled sets (default tests/labeled)")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON to write (default checker/measured_error.json)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if --out differs from a fresh run")
    args = ap.parse_args(argv)
    text = json.dumps(measure(args.labeled), indent=2) + "\n"
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'STALE: rerun python scripts/measured_error.py'}")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
