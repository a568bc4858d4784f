"""Checker throughput on the labeled sets: artifacts scored per second (one process, warm caches).

Usage: python scripts/bench_checker.py [ROUNDS]   (default 3)
       python scripts/bench_checker.py --long       (seconds per artifact from 25 KB up to the size limit, and
                                                     what `check` says past it: scoring must stay linear)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from mustmaybe.checker import score_artifact
from mustmaybe.checker_tools import load_labeled_set

ROOT = Path(__file__).resolve().parent.parent / "tests" / "labeled"


def _long() -> None:
    import subprocess

    from mustmaybe.checker import MAX_ARTIFACT_CHARS
    from mustmaybe.scenarios import find_task

    task = find_task("vendor-summary-q3")
    unit = ("Northwind asked again about the Q3 summary. Do not send the Q3 summary outside yet; the Vendor Risk "
            "Review board must approve the Q3 version. Share the internal preview meanwhile.\n")
    size = 25_000
    while size <= MAX_ARTIFACT_CHARS:
        text = unit * (size // len(unit))
        t0 = time.perf_counter()
        score_artifact(task, text)
        dt = time.perf_counter() - t0
        print(f"{len(text):>9,} characters: {dt:6.2f} s  ({dt / len(text) * 1e6:.1f} us per character)")
        size *= 2
    big = unit * (5_000_000 // len(unit))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mustmaybe.cli", "check",
                           "scenarios/library/external_sharing/vendor-summary-q3.yaml", "-"], input=big.encode(),
                          capture_output=True, cwd=ROOT.parent.parent)
    print(f"check on {len(big):,} characters: exit {done.returncode} in {time.perf_counter() - t0:.2f} s: "
          f"{done.stderr.decode().strip()}")


def main() -> None:
    if "--long" in sys.argv:
        _long()
        return
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
