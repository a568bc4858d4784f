#!/usr/bin/env python3
"""mustmaybe on the peer benchmark's workload (/work/shared/bench): N episodes of 3 sequential calls.

Writes a sweep file for one single-transformer condition (G2: reviewer → summarizer → executor,
3 model calls through AutoGen's OpenAI client) with tasks × seeds = N, runs `mustmaybe sweep`
in this process (no response cache, so every call reaches the endpoint; every message and score
is recorded in the run store), and writes {out_dir}/result.json with the sweep's own timing:

    {"wall_in_tool_s": first episode start → last episode stored, "episodes": N, ...}

Used by scripts/bench_peer.sh as peer_bench.py's `--custom mustmaybe=...` variant:

    python scripts/peer_episodes.py --base-url {base_url} -n {n} -c {c} --out-dir {out_dir}
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path


def _tasks_and_seeds(n: int, available: int) -> tuple[int, int]:
    """k tasks × s seeds = n exactly, with k the largest divisor of n that the library has."""
    k = max(d for d in range(1, min(n, available) + 1) if n % d == 0)
    return k, n // k


def sweep_toml(base_url: str, n: int, c: int, in_flight: int | None, condition: str, task_ids: list[str],
               workers: int = 1) -> str:
    k, seeds = _tasks_and_seeds(n, len(task_ids))
    model = f"openai:fake-model@{base_url}"
    key_env = "FAKE_API_KEY" if os.environ.get("FAKE_API_KEY") else None
    lines = [
        'schema = "mustmaybe/sweep@1"',
        f'name = "peer-{n}x{c}"',
        f"tasks = {json.dumps(['library:' + t for t in task_ids[:k]])}",
        f'conditions = ["{condition}"]',
        f"seeds = {json.dumps(list(range(1, seeds + 1)))}",
        *([f"max_in_flight = {in_flight}"] if in_flight else []),  # default: 2 × the endpoint's concurrency
        f"workers = {workers}",
        "[roles]",
        f'reviewer = ["{model}"]',
        f'transformer = ["{model}"]',
        f'executor = ["{model}"]',
        "[[endpoints]]",
        f'base_url = "{base_url}"',
        f"concurrency = {c}",
        "timeout_s = 60",
        "max_retries = 2",
        'structured_output = "prompt"',
    ]
    if key_env:
        lines.append(f'api_key_env = "{key_env}"')
    return "\n".join(lines) + "\n"


def endpoint_problem(base_url: str, timeout_s: float = 5.0) -> str | None:
    """Why no OpenAI-compatible endpoint answers at `base_url` (GET {base_url}/models), or None."""
    import urllib.error
    import urllib.request

    if not base_url.startswith(("http://", "https://")):
        return f"--base-url must start with http:// or https://, got {base_url!r}"
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=timeout_s) as resp:
            resp.read(1 << 16)
    except urllib.error.HTTPError:
        return None  # something HTTP answers; the sweep reports what it says to chat calls
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"nothing answers at {base_url} ({reason})"
    return None


def main() -> int:
    t_start = time.monotonic()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("-n", type=int, required=True, help="episodes")
    ap.add_argument("-c", type=int, required=True, help="requests in flight (the endpoint's concurrency)")
    ap.add_argument("--in-flight", type=int, default=None,
                    help="episodes in flight (default: the sweep's own, 2 × c); requests in flight stay ≤ c")
    ap.add_argument("--condition", default="G2")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (the endpoint's limits are split)")
    ap.add_argument("--out-dir", type=Path, required=True)
    args = ap.parse_args()

    problem = endpoint_problem(args.base_url)
    if problem:
        print(f"peer_episodes.py: {problem}. It needs a running OpenAI-compatible endpoint: the peer harness's "
              "fake_endpoint.py (peer_bench.py starts it and passes its URL; see scripts/bench_peer.sh) or "
              "any server, e.g. --base-url http://127.0.0.1:8000/v1", file=sys.stderr)
        return 2
    try:
        from mustmaybe.cli import main as cli_main
        from mustmaybe.scenarios import load_library
    except ModuleNotFoundError as exc:
        print(f"peer_episodes.py needs mustmaybe installed ({exc.name} is missing): run it with the repository's "
              ".venv/bin/python after `make install`", file=sys.stderr)
        return 2

    ids = [s.id for s in load_library()]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    sweep = args.out_dir / "sweep.toml"
    sweep.write_text(sweep_toml(args.base_url, args.n, args.c, args.in_flight, args.condition, ids,
                                args.workers))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli_main(["sweep", str(sweep), "--out", str(args.out_dir / "run"), "--json", "--no-cache"])
    summary = json.loads(buf.getvalue() or "{}")
    result = {
        "wall_in_tool_s": summary.get("in_tool_s"),
        "episodes": summary.get("done"),
        "with_errors": summary.get("with_errors"),
        "error_kinds": summary.get("error_kinds"),
        "calls_by_endpoint": summary.get("calls_by_endpoint"),
        "process_s": round(time.monotonic() - t_start, 3),
        "exit": code,
    }
    (args.out_dir / "result.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result))
    return code


if __name__ == "__main__":
    sys.exit(main())
