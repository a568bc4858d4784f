"""Retrain the checker's combiner on the tuning sets in tests/labeled/ and write checker/combiner.json.

Usage:
    python scripts/train_checker.py           # retrain, write the weights, print the CV figures
    python scripts/train_checker.py --check   # exit 1 if the shipped weights differ from their sets' refit
    python scripts/train_checker.py --full-check   # exit 1 if they differ from a whole retrain (minutes)

Only sets whose split is `tuning` are read (test and open sets never shape a weight). Every choice is
made on leave-one-family-out cross-validation on the tuning sets (a whole kind of text held out per fold);
the task-grouped figures are printed beside them. `--check` refits the final models with the recorded
choices and compares (the test suite runs it); `--full-check` repeats the cross-validation too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mustmaybe.checker import WEIGHTS_FILE
from mustmaybe.checker_tools import load_labeled_set, refit_combiner, train_combiner

ROOT = Path(__file__).resolve().parent.parent / "tests" / "labeled"


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-5
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def main() -> int:
    sets = [load_labeled_set(p) for p in sorted(ROOT.iterdir()) if (p / "labels.jsonl").is_file()]
    tuning = [s for s in sets if s.split == "tuning"]
    if "--check" in sys.argv or "--full-check" in sys.argv:
        shipped = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        spec = refit_combiner(tuning, shipped) if "--check" in sys.argv else train_combiner(tuning)
        if not _close(shipped, spec):
            print(f"{WEIGHTS_FILE} is stale: retrain with `python scripts/train_checker.py`")
            return 1
        print(f"{WEIGHTS_FILE} matches a {'refit' if '--check' in sys.argv else 'retrain'} on {len(tuning)} "
              "tuning sets")
        return 0
    spec = train_combiner(tuning)
    WEIGHTS_FILE.write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    print(f"trained on {sum(s['n'] for s in spec['trained_on'])} artifacts from {len(tuning)} tuning sets "
          f"(skipped {len(sets) - len(tuning)} non-tuning sets); wrote {WEIGHTS_FILE}")
    print("use:", {k: m["use"] for k, m in spec["models"].items()}, "weakened threshold:", spec["weakened_threshold"])
    print("sure margin:", spec["sure_margin"], "selected on CV grouped by", spec["cv"]["grouped_by"])
    for name, fig in spec["cv"].items():
        if isinstance(fig, dict) and "fields" in fig:
            _line(f"cv {name}", fig)
    print(f"leave-family-out ({spec['cv']['folds']} folds of whole families), per held-out family "
          f"({len(spec['cv']['families'])} families):")
    for name, fig in spec["cv"]["families"].items():
        _line(name, fig)
    return 0


def _line(name: str, fig: dict) -> None:
    fields = " ".join(f"{k[0]} {v:.3f}" for k, v in fig["fields"].items())
    print(f"  {name:28s} n {fig['n']:4d}  P/D {fig['pd_macro_f1']:.3f}  P->D {fig['preserved_called_deactivated']:.3f}"
          f"  D->P {fig['deactivated_called_preserved']:.3f}  sure {fig['sure_share']:.0%} right "
          f"{fig['sure_accuracy']:.1%}  {fields}")


if __name__ == "__main__":
    sys.exit(main())
