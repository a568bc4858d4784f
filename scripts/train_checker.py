"""Retrain the checker's combiner on the tuning sets in tests/labeled/ and write checker/combiner.json.

Usage:
    python scripts/train_checker.py           # retrain, write the weights, print the CV figures
    python scripts/train_checker.py --check   # exit 1 if the shipped weights differ from a retrain

Only sets whose split is `tuning` are read (test sets never shape a weight). The figures printed are
task-grouped cross-validation on the tuning sets; the test sets are measured by `mustmaybe calibrate`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mustmaybe.checker import WEIGHTS_FILE, load_labeled_set, train_combiner

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
    spec = train_combiner(tuning)
    if "--check" in sys.argv:
        shipped = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
        if not _close(shipped, spec):
            print(f"{WEIGHTS_FILE} is stale: retrain with `python scripts/train_checker.py`")
            return 1
        print(f"{WEIGHTS_FILE} matches a retrain on {len(tuning)} tuning sets")
        return 0
    WEIGHTS_FILE.write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    print(f"trained on {sum(s['n'] for s in spec['trained_on'])} artifacts from {len(tuning)} tuning sets "
          f"(skipped {len(sets) - len(tuning)} non-tuning sets); wrote {WEIGHTS_FILE}")
    print("use:", {k: m["use"] for k, m in spec["models"].items()}, "weakened threshold:", spec["weakened_threshold"])
    for name, fig in spec["cv"].items():
        if isinstance(fig, dict) and "fields" in fig:
            fields = " ".join(f"{k[0]} {v:.3f}" for k, v in fig["fields"].items())
            pd, p2d = fig["pd_macro_f1"], fig["preserved_called_deactivated"]
            print(f"  cv {name:12s} P/D {pd:.3f}  P->D {p2d:.3f}  {fields}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
