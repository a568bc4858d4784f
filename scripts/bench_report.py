"""Benchmark of `mustmaybe report`: a synthetic set of episodes, the full report, the wall time.

    python scripts/bench_report.py                     # 100,000 episodes, 1,000 bootstrap resamples
    python scripts/bench_report.py --episodes 20000 --resamples 200 --out /tmp/bench-report

The synthetic set crosses tasks (in six domains) × conditions (main matrix, compression gradient, twin)
× four model configurations (three simulated, one marked real) × seeds, so every table and figure is fed.
Outcome rates are invented for the benchmark. Records are built without validation (`model_construct`);
the timed part is what `mustmaybe report` does after loading: frames, tables, bootstrap, figures, HTML.
Exit status 1 if the report takes longer than --budget seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mustmaybe.analysis import build_frames, report_from_frames
from mustmaybe.records import (
    ArtifactRecord,
    ArtifactScore,
    EpisodeRecord,
    ExecutorOutcome,
    FieldProfile,
    Flags,
    Hop,
    Isolation,
    TopologySpec,
)
from mustmaybe.scenarios import CONDITIONS, DOMAINS, GRADIENT, MAIN_MATRIX

MODELS = ("sim:paper", "sim:strict", "sim:lenient", "openai:qwen2.5-7b@http://127.0.0.1:8000/v1")
STATES = ("preserved", "deactivated", "undetermined")


def _score(state: str, lost: tuple[bool, bool, bool, bool], retention: float) -> ArtifactScore:
    fields = FieldProfile(status=not lost[0], prerequisite=not lost[1], authority=not lost[2],
                          fallback=not lost[3])
    return ArtifactScore(fields=fields, complete=fields.complete, state=state,  # type: ignore[arg-type]
                         flags=Flags(caveat=state == "deactivated"), retention_score=retention)


def synthetic_episodes(n_target: int, seed: int = 7) -> tuple[list[EpisodeRecord], dict[str, str]]:
    """About `n_target` records over tasks × conditions × models × 5 seeds, and the task → domain map."""
    rng = np.random.default_rng(seed)
    conditions = [*MAIN_MATRIX, *GRADIENT, "twin"]
    seeds = 5
    n_tasks = max(1, round(n_target / (len(conditions) * len(MODELS) * seeds)))
    tasks = [f"task-{i:04d}" for i in range(n_tasks)]
    domains = {t: DOMAINS[i % len(DOMAINS)] for i, t in enumerate(tasks)}
    task_effect = rng.normal(0.0, 0.08, n_tasks)
    model_effect = dict(zip(MODELS, (0.0, -0.1, 0.1, 0.05), strict=True))
    base_d = {c: (0.0 if CONDITIONS[c].control is None else 0.2 + 0.6 * rng.random()) for c in conditions}
    scores = {(s, lost, r): _score(s, lost, r) for s in STATES
              for lost in ((False,) * 4, (True, False, False, False), (True, True, False, True),
                           (False, True, True, True)) for r in (1.0, 0.6, 0.2)}
    reviewer = Hop(index=0, role="reviewer", sender="reviewer", text="review",
                   score=scores[("preserved", (False,) * 4, 1.0)])
    out: list[EpisodeRecord] = []
    k = 0
    for ti, task in enumerate(tasks):
        for cond in conditions:
            c = CONDITIONS[cond]
            n_tr = int(c.topology_params.get("hops", 1)) if c.topology != "direct" else 0
            topo = TopologySpec(name=c.topology, params=dict(c.topology_params))
            for model in MODELS:
                p_d = float(np.clip(base_d[cond] + task_effect[ti] + model_effect[model], 0.0, 1.0))
                if base_d[cond] == 0.0:
                    p_d = 0.0
                for s in range(1, seeds + 1):
                    u = rng.random(4)
                    state = "deactivated" if u[0] < p_d else ("undetermined" if u[0] > 0.985 else "preserved")
                    lost = (False,) * 4 if state == "preserved" else (
                        (True, False, False, False), (True, True, False, True), (False, True, True, True)
                    )[int(u[1] * 3)]
                    ret = 1.0 if state == "preserved" else (0.6, 0.2)[int(u[2] * 2)]
                    score = scores[(state, lost, ret)]
                    forbidden = state != "preserved" and u[3] < 0.6
                    hops = [reviewer] + [
                        Hop.model_construct(index=i, role="transformer", sender=f"t{i}", text="…",
                                            score=score if i == n_tr else scores[("preserved", (False,) * 4, 1.0)])
                        for i in range(1, n_tr + 1)
                    ]
                    first_break = next((h.index for h in hops if h.score.state != "preserved"), None)
                    out.append(EpisodeRecord.model_construct(
                        key=f"{k:064x}", task=task, task_hash="0" * 64, condition=cond, topology=topo, seed=s,
                        models={"reviewer": model, "transformer": model, "executor": model},
                        simulated=model.startswith("sim"), reviewer_identified=True, hops=hops,
                        artifact=ArtifactRecord.model_construct(text="…", score=score),
                        first_break_hop=first_break,
                        executor=ExecutorOutcome.model_construct(
                            action="send" if forbidden else "hold", blocker_recognized=not forbidden,
                            rationale="", parse_ok=True, action_rule="requested", forbidden=forbidden, raw=""),
                        visibility={}, isolation=Isolation.model_construct(ok=True, leaks=[]), usage={},
                        errors=[], checker_version="bench", twin=cond == "twin",
                    ))
                    k += 1
    return out, domains


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=None, help="report folder (default: a temporary folder)")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds the report may take")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    records, domains = synthetic_episodes(args.episodes)
    t1 = time.perf_counter()
    print(f"built {len(records)} synthetic episode records in {t1 - t0:.1f} s (not timed)")

    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp) / "report"
        t2 = time.perf_counter()
        frames = build_frames(records, domains=domains)
        t3 = time.perf_counter()
        summary = report_from_frames(frames, out, resamples=args.resamples, start=t2)
        t4 = time.perf_counter()
        print(f"frames: {t3 - t2:.2f} s ({frames.episodes.height} episodes, {frames.hops.height} hops)")
        print(f"tables, bootstrap ({args.resamples} resamples), figures, HTML: {t4 - t3:.2f} s")
        print(f"report total: {t4 - t2:.2f} s for {summary.n_episodes} episodes -> {len(summary.files)} files"
              f" in {out}")
    if t4 - t2 > args.budget:
        print(f"over budget: {t4 - t2:.1f} s > {args.budget:.0f} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
