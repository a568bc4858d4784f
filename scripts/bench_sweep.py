#!/usr/bin/env python3
"""Time the paper's main matrix (1,296 episodes) on `sim` as one whole `mustmaybe sweep` process.

    python scripts/bench_sweep.py                 # wall time of the whole process (target: < 60 s)
    python scripts/bench_sweep.py --reps 3        # repeat, report min / median
    python scripts/bench_sweep.py --profile       # one run under cProfile: where the time goes
    python scripts/bench_sweep.py --display       # with the live display, in a pseudo-terminal

Every run writes a fresh run folder in a temporary directory and checks that all planned episodes
were stored. Not a timed test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWEEP = ROOT / "scripts" / "sweeps" / "paper-main-1296.toml"


def _cmd(sweep: Path, out: Path, profile: Path | None, display: bool) -> list[str]:
    args = ["sweep", str(sweep), "--out", str(out)] + ([] if display else ["--json"])
    base = [sys.executable] + (["-m", "cProfile", "-o", str(profile)] if profile else []) + ["-m", "mustmaybe.cli"]
    cmd = base + args
    if display:
        return ["script", "-qfec", "stty cols 140 rows 60; exec " + shlex.join(cmd), "/dev/null"]
    return cmd


def run_once(sweep: Path, workdir: Path, *, profile: Path | None = None, display: bool = False) -> dict[str, float]:
    out = workdir / f"run-{time.monotonic_ns()}"
    t0 = time.monotonic()
    proc = subprocess.run(_cmd(sweep, out, profile, display), capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"sweep failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["counts"]
    if counts["done"] != counts["episodes"]:
        sys.exit(f"only {counts['done']} of {counts['episodes']} episodes stored")
    session = manifest["sessions"][-1]
    return {"wall_s": round(wall, 2), "in_tool_s": session.get("in_tool_s") or 0.0, "episodes": counts["episodes"],
            "with_errors": counts["with_errors"], "store_mb": round((out / "store.sqlite").stat().st_size / 2**20, 1)}


# Inclusive time of synchronous entry points (coroutine frames are split at every await, so
# their cumulative times under cProfile undercount; these are plain functions).
_ENTRY_POINTS = [
    ("planning (load, resolve, keys)", "sweep/_plan.py", "plan_sweep"),
    ("checker: score_artifact (sidecar + artifact)", "checker/_score.py", "score_artifact"),
    ("checker: score_action", "checker/_actions.py", "score_action"),
    ("sim backend: _respond", "sim/_client.py", "_respond"),
    ("executor answer parsing", "agents/_executor.py", "parse_decision"),
    ("executor outcome (rule + Y)", "teams/_outcome.py", "executor_outcome"),
    ("isolation audit", "teams/_isolation.py", "audit"),
    ("run store: put_episode (one transaction)", "store/_store.py", "put_episode"),
    ("tally (display counts)", "sweep/_tally.py", "add_record"),
    ("record JSON (model_dump_json)", "pydantic/main.py", "model_dump_json"),
    ("autogen telemetry trace_block", "autogen_core/_telemetry/_tracing.py", "trace_block"),
]


def print_profile(path: Path, top: int) -> None:
    stats = pstats.Stats(str(path))
    raw = stats.stats  # type: ignore[attr-defined]
    total = max(ct for (_cc, _nc, _tt, ct, _callers) in raw.values())
    print(f"\ncProfile total {total:.2f} s (profiling roughly doubles the time)")
    print("inclusive time of entry points:")
    for label, file, fn in _ENTRY_POINTS:
        ct = sum(v[3] for (f, _line, name), v in raw.items() if f.endswith(file) and name == fn)
        n = sum(v[1] for (f, _line, name), v in raw.items() if f.endswith(file) and name == fn)
        print(f"  {label:<46} {ct:6.2f} s  {100 * ct / total:5.1f}%   ({n} calls)")
    print(f"\ntop {top} functions by self time:")
    stats.sort_stats("tottime").print_stats(top)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweep", type=Path, default=SWEEP)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="one run under cProfile, then the profile")
    ap.add_argument("--display", action="store_true", help="run with the live display in a pseudo-terminal")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mm-bench-") as tmp:
        work = Path(tmp)
        if args.profile:
            prof = work / "sweep.prof"
            r = run_once(args.sweep, work, profile=prof, display=args.display)
            print(json.dumps(r))
            print_profile(prof, args.top)
            return 0
        rows = [run_once(args.sweep, work, display=args.display) for _ in range(args.reps)]
    for r in rows:
        print(json.dumps(r))
    walls = [r["wall_s"] for r in rows]
    n = rows[0]["episodes"]
    print(f"{n} episodes on sim: wall min {min(walls):.2f} s / median {statistics.median(walls):.2f} s"
          f" (target < 60 s); {n / min(walls):.0f} episodes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
