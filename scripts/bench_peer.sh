#!/usr/bin/env bash
# mustmaybe side by side with Inspect AI and the bare openai SDK on the peer benchmark's
# fixed-latency workload: 640 episodes of 3 sequential calls, 100 ms endpoint latency, 32 and 64
# requests in flight, 3 reps each. The peer harness (peer_bench.py and its endpoint, kept outside
# this repository) is found through BENCH; the script says what is missing when it is not there.
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
# The peer harness is not part of this repository: it is the folder that holds peer_bench.py (the
# runner), fake_endpoint.py (the fixed-latency OpenAI-compatible endpoint), bare_episodes.py and
# inspect_episodes.py (the other tools' variants) and requirements.txt (inspect-ai, openai, aiohttp).
missing=()
for f in peer_bench.py fake_endpoint.py bare_episodes.py inspect_episodes.py requirements.txt; do
  [[ -f "$BENCH/$f" ]] || missing+=("$f")
done
if (( ${#missing[@]} )); then
  {
    echo "scripts/bench_peer.sh needs the peer benchmark harness, which is not part of this repository."
    echo "Looked in BENCH=$BENCH; missing: ${missing[*]}."
    echo "It is a folder with peer_bench.py, fake_endpoint.py, bare_episodes.py, inspect_episodes.py and"
    echo "requirements.txt; point BENCH at it:  BENCH=/path/to/bench scripts/bench_peer.sh"
    echo "(mustmaybe's own side, scripts/peer_episodes.py, runs against any OpenAI-compatible endpoint:"
    echo " .venv/bin/python scripts/peer_episodes.py --base-url URL -n 64 -c 8 --out-dir DIR)"
  } >&2
  exit 2
fi
PEER="${PEER:-$(mktemp -d -t peerbench-XXXXXX)}"
export PEER
CONFIGS="${CONFIGS:-640x32,640x64}"
REPS="${REPS:-3}"
VARIANTS="${VARIANTS:-bare-openai,inspect-none,custom:mustmaybe,custom:mustmaybe-w2}"
MM_PY="${MM_PY:-$REPO/.venv/bin/python}"
EXTRA="${EXTRA:-}"   # more arguments for peer_episodes.py, e.g. "--in-flight 64"

if [[ ! -x "$MM_PY" ]]; then
  echo "no mustmaybe venv at $MM_PY (run 'make install' first)" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "scripts/bench_peer.sh needs python3 (with venv and pip) to build the peer venv in $PEER/venv" >&2
  exit 2
fi

if [[ ! -x "$PEER/venv/bin/python" ]]; then
  echo "setting up the peer venv in $PEER/venv (inspect-ai, openai, aiohttp)"
  python3 -m venv "$PEER/venv"
  "$PEER/venv/bin/pip" install --quiet --upgrade pip
  if ! "$PEER/venv/bin/pip" install --quiet -r "$BENCH/requirements.txt"; then
    echo "could not install the peer tools ($BENCH/requirements.txt: inspect-ai, openai, aiohttp) into" \
         "$PEER/venv; the peer benchmark needs them (and a package index to install them from)" >&2
    exit 2
  fi
fi

# mustmaybe is installed editable, so its own modules are byte-compiled only where Python may write
# __pycache__; with PYTHONDONTWRITEBYTECODE set (as on the shared machines) every mustmaybe process would
# compile ~140 modules from source at start-up (0.1-0.2 s), while pip byte-compiled every installed
# package, the peer tools' included. Compile them once here, as an installed mustmaybe would be.
"$MM_PY" -m compileall -q -j 0 "$REPO/mustmaybe" "$REPO/agents" "$REPO/checker" "$REPO/scenarios" \
  "$REPO/sim" "$REPO/teams" >/dev/null

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
