#!/usr/bin/env python3
"""CPU per chat call of the request path alone: the openai SDK's, the SDK's with the sweep's dependency
patches, and the thin path (agents/_thin.py), on the peer benchmark's workload without AutoGen.

N episodes of 3 sequential calls (each prompt holds the previous answer), C in flight, one
`AsyncOpenAI` on one httpx pool, against any OpenAI-compatible endpoint (the peer harness's
fake_endpoint.py answers after a fixed latency). Prints one line per path: CPU ms per call
(process user+sys over the calls only) and wall against the ideal N·3·L/C.

    python scripts/bench_request_path.py --base-url http://127.0.0.1:8765/v1 -n 640 -c 64 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time

PATHS = ("sdk", "sdk+patches", "thin+patches")


async def _run(base_url: str, path: str, n: int, c: int) -> tuple[float, float]:
    import openai

    from mustmaybe.agents._openai import checked_http_client
    from mustmaybe.agents._thin import ThinOpenAI

    sdk = openai.AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0,
                             http_client=checked_http_client(60.0))
    client = ThinOpenAI(sdk) if path.startswith("thin") else sdk
    slots = asyncio.Semaphore(c)

    async def episode(i: int) -> None:
        text = f"task {i}"
        for _ in range(3):
            async with slots:
                r = await client.chat.completions.create(
                    model="fake-model", stream=False, temperature=0.7, max_tokens=256, seed=1,
                    messages=[{"role": "system", "content": "You review."}, {"role": "user", "content": text}])
            text = f"Previous: {r.choices[0].message.content}"

    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await asyncio.gather(*(episode(i) for i in range(n)))
    r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await sdk.close()
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return cpu * 1000 / (3 * n), t1 - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("-n", type=int, default=640, help="episodes of 3 calls")
    ap.add_argument("-c", type=int, default=64, help="calls in flight")
    ap.add_argument("--latency-ms", type=float, default=100.0, help="the endpoint's latency, for the ideal wall")
    ap.add_argument("--rounds", type=int, default=3, help="each path this many times, interleaved")
    args = ap.parse_args()
    if not args.base_url.startswith(("http://", "https://")):
        print(f"--base-url must start with http:// or https://, got {args.base_url!r}", file=sys.stderr)
        return 2
    from mustmaybe.agents import dependency_patches

    ideal = 3 * args.n * args.latency_ms / 1000 / args.c
    for _ in range(args.rounds):
        for path in PATHS:
            with dependency_patches(enabled=path.endswith("+patches")):
                try:
                    ms, wall = asyncio.run(_run(args.base_url, path, args.n, args.c))
                except Exception as exc:  # an endpoint that does not answer: say so, no traceback
                    print(f"{path}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                    return 1
            print(f"{path:14s} cpu/call {ms:6.3f} ms   wall {wall:6.2f} s ({wall / ideal:4.2f} x ideal {ideal:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
