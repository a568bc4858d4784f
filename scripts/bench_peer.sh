#!/usr/bin/env bash
# mustmaybe side by side with Inspect AI and the bare openai SDK on the peer benchmark's
# fixed-latency workload (/work/shared/bench/README.md): 640 episodes of 3 sequential calls,
# 100 ms endpoint latency, 32 and 64 requests in flight, 3 reps each.
#
#   scripts/bench_peer.sh                 # full run (~10 min); results under $PEER/results/
#   PEER=/tmp/peer scripts/bench_peer.sh  # reuse a scratch folder (and its venv)
#   CONFIGS=64x8 REPS=1 VARIANTS=custom:mustmaybe scripts/bench_peer.sh   # a quick smoke run
#
# The peer venv (inspect-ai, openai, aiohttp) lives in $PEER, outside the repository. mustmaybe
# runs from this repository's .venv as a `--custom` variant: scripts/peer_episodes.py writes a
# G2 sweep (reviewer → summarizer → executor through AutoGen's OpenAI client) with tasks × seeds
# = N, runs `mustmaybe sweep --no-cache` on it, and writes {out_dir}/result.json. Two variants:
# `mustmaybe` (one process, the sweep's defaults: 2 × C episodes in flight, C requests in flight)
# and `mustmaybe-w2` (`workers = 2`: two processes, each with half of the endpoint's limits).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$(cd "$REPO/../shared/bench" 2>/dev/null && pwd || echo /work/shared/bench)}"
PEER="${PEER:-$(mktemp -d -t peerbench-XXXXXX)}"
export PEER
CONFIGS="${CONFIGS:-640x32,640x64}"
REPS="${REPS:-3}"
VARIANTS="${VARIANTS:-bare-openai,inspect-none,custom:mustmaybe,custom:mustmaybe-w2}"
MM_PY="${MM_PY:-$REPO/.venv/bin/python}"
EXTRA="${EXTRA:-}"   # more arguments for peer_episodes.py, e.g. "--in-flight 64"

if [[ ! -x "$PEER/venv/bin/python" ]]; then
  echo "setting up the peer venv in $PEER/venv (inspect-ai, openai, aiohttp)"
  python3 -m venv "$PEER/venv"
  "$PEER/venv/bin/pip" install --quiet --upgrade pip
  "$PEER/venv/bin/pip" install --quiet -r "$BENCH/requirements.txt"
fi
if [[ ! -x "$MM_PY" ]]; then
  echo "no mustmaybe venv at $MM_PY (run 'make install' first)" >&2
  exit 2
fi

echo "load before the run: $(uptime)"
OUT="$PEER/results/$(date +%Y%m%d-%H%M%S)"
"$PEER/venv/bin/python" "$BENCH/peer_bench.py" \
  --configs "$CONFIGS" --reps "$REPS" \
  --variants "$VARIANTS" \
  --custom "mustmaybe=$MM_PY $REPO/scripts/peer_episodes.py --base-url {base_url} -n {n} -c {c} --out-dir {out_dir} $EXTRA" \
  --custom "mustmaybe-w2=$MM_PY $REPO/scripts/peer_episodes.py --base-url {base_url} -n {n} -c {c} --out-dir {out_dir} --workers 2 $EXTRA" \
  --out "$OUT"
echo "load after the run: $(uptime)"
echo "results: $OUT/summary.md and $OUT/results.jsonl"
