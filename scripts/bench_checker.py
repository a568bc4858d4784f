"""Checker throughput on the labeled sets: artifacts scored per second (one process, warm caches).

Usage: python scripts/bench_checker.py [ROUNDS]   (default 3)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from mustmaybe.checker import load_labeled_set, score_artifact

ROOT = Path(__file__).resolve().parent.parent / "tests" / "labeled"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    items = []
    for p in sorted(ROOT.iterdir()):
        if (p / "labels.jsonl").is_file():
            ls = load_labeled_set(p)
            items += [(ls.tasks[it.task], it.text) for it in ls.items]
    chars = sum(len(t) for _, t in items)
    for task, text in items[:20]:  # compile every task's matchers before timing
        score_artifact(task, text)
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for task, text in items:
            score_artifact(task, text)
        rates.append(len(items) / (time.perf_counter() - t0))
    print(f"{len(items)} artifacts, mean {chars / len(items):.0f} characters; "
          f"{statistics.median(rates):.0f} artifacts/s median of {rounds} rounds "
          f"(min {min(rates):.0f}, max {max(rates):.0f})")


if __name__ == "__main__":
    main()
