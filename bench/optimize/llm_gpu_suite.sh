#!/usr/bin/env bash
# The GPU proof of the LLM proposer (issue 16), in one go on an NVIDIA GPU (H100, CUDA, 16 cores, no network):
#   OUT=/some/dir bash bench/optimize/llm_gpu_suite.sh
# Replays the hand-written model replies of tests/data/llm_responses (cases.tsv: 8 genuine improvements of
# the naive-kernel suite, 8 reward hacks) through the guard of `rocm-perf optimize`:
#  - where `rocm-perf optimize` has `--proposer llm` (the optimize command wired to src/optimize/llm), through
#    the whole loop: `rpl-llm-replay serve` is the OpenAI-compatible endpoint, serving the case's reply;
#  - otherwise through `optimize --candidate FILE` with the candidate the LLM proposer takes from the reply
#    (`rpl-llm-replay extract`, the same code).
# Genuine cases run one at a time on copies under $OUT (their speedups are measured); hacks run with --dry-run,
# 4 at a time. Writes $OUT/llm-suite.log, $OUT/llm-summary.txt and $OUT/llm-suite.tar.gz. No case starts after
# BUDGET_END seconds (default 430), so a call stays under 8 minutes; KINDS=hack or KINDS=genuine runs only those
# (two calls cover everything when one is not enough; each prints which cases it skipped).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the output folder}"
W="$OUT/llm-suite"
rm -rf "$W"; mkdir -p "$W"
exec > >(tee -a "$OUT/llm-suite.log") 2>&1
T0=$(date +%s)
BUDGET_END=${BUDGET_END:-430}   # seconds after start: no new case starts past this
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
pack() {
  (cd "$W" && find . \( -name '*.json' -o -name '*.jsonl' -o -name '*.log' -o -name '*.diff' -o -name '*.cu' -o -name '*.txt' \) \
      -not -path '*/inputs/*' -not -path '*/dumps/*' -size -4M -print0 | tar --null -czf "$OUT/llm-suite.tar.gz" -T -) || true
  ls -la "$OUT"
}
fail() { say "FATAL: $*"; pack; exit 1; }

say "host $(hostname), $(nproc) cores"
nvidia-smi -L || fail "nvidia-smi: no NVIDIA GPU visible"
command -v nvcc >/dev/null || fail "nvcc is not on PATH"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
ARCH="sm_${CC}"
if [ -n "${RPL_BIN_DIR:-}" ]; then  # prebuilt (scripts/gpu/stage_all.sh): the GPU machine has no dev packages
  RP="$RPL_BIN_DIR/rocm-perf"; REPLAY="$RPL_BIN_DIR/rpl-llm-replay"
else
  BUILD="${RPL_BUILD_DIR:-$ROOT/build-gpu}"
  say "building in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" 2>&1 || { tail -40 "$W/cmake.log"; fail "cmake failed"; }
  cmake --build "$BUILD" -j16 --target rocm-perf rpl_cuda_collector rpl_cuda_capture rpl_replay_cuda rpl-llm-replay \
    >"$W/build.log" 2>&1 || { grep -E 'error|FAILED' "$W/build.log" | head -40; fail "build failed (build.log)"; }
  RP="$BUILD/src/cli/rocm-perf"
  REPLAY="$BUILD/src/optimize/llm/rpl-llm-replay"
fi
[ -x "$RP" ] && [ -x "$REPLAY" ] || fail "no rocm-perf or rpl-llm-replay ($RP, $REPLAY)"
"$RP" optimize --help >"$W/optimize-help.txt" 2>&1 || fail "rocm-perf optimize --help failed"
if grep -q -- "--llm-url" "$W/optimize-help.txt"; then MODE=loop; else MODE=candidate; fi
say "mode: $MODE ($( [ $MODE = loop ] && echo 'optimize --proposer llm against the replay server' || echo 'optimize --candidate on the extracted reply'))"
echo "$MODE" >"$W/mode.txt"

R="$ROOT/tests/data/llm_responses"
run_case() {  # name app kernel kind expected reply
  local name=$1 app=$2 kernel=$3 kind=$4 reply=$6
  local d="$W/cases/$name" stem=${2%.cu}
  mkdir -p "$d"
  cp "$ROOT/bench/optimize/naive/$app" "$ROOT/bench/optimize/naive/common.cuh" "$d/"
  local build="nvcc -O3 -arch=$ARCH -o $d/app $d/$app"
  $build >"$d/app-build.log" 2>&1 || { echo "the naive app does not build" >"$d/error.txt"; return; }
  local dry=(); [ "$kind" = hack ] && dry=(--dry-run)
  local common=(--source "$d/$app" --build "$build" --kernel "$kernel" --max-candidates 1 --runs 3 --perf-rounds 4
                --perf-iterations 10 --timeout 60 -o "$d/opt" --json "${dry[@]}")
  if [ "$MODE" = loop ]; then
    "$REPLAY" serve --port-file "$d/port" "$R/$reply" 2>"$d/replay-server.log" &
    local spid=$!
    for _ in $(seq 50); do [ -s "$d/port" ] && break; sleep 0.1; done
    timeout 200 "$RP" optimize "${common[@]}" --proposer llm --llm-url "http://127.0.0.1:$(cat "$d/port")/v1" \
      --llm-model recorded-replies --llm-candidates 1 --llm-repair-rounds 0 -- "$d/app" >"$d/stdout.json" 2>"$d/optimize.log"
    echo "exit $?" >>"$d/optimize.log"
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  else
    "$REPLAY" extract --source "$d/$app" --kernel "$kernel" --reply "$R/$reply" -o "$d/candidate.cu" >"$d/extraction.json" 2>"$d/extract.log" ||
      { echo "no usable code: $(cat "$d/extract.log")" >"$d/error.txt"; return; }
    timeout 200 "$RP" optimize "${common[@]}" --candidate "$d/candidate.cu" -- "$d/app" >"$d/stdout.json" 2>"$d/optimize.log"
    echo "exit $?" >>"$d/optimize.log"
  fi
  [ -f "$d/$app.orig" ] && diff -u "$d/$app.orig" "$d/$app" >"$d/accepted.diff"
  rm -rf "$d/opt/inputs" "$d/opt/dumps" "$d/opt/candidates"/*/dumps
}
export -f run_case
export W R RP REPLAY MODE ARCH ROOT

KINDS=${KINDS:-hack genuine}
CASES=${CASES:-}  # e.g. CASES="matmul_tiled transpose_tiled": only these cases of cases.tsv
only() { [ -z "$CASES" ] || [[ " $CASES " == *" $1 "* ]]; }
say "hacks: 4 at a time, --dry-run"
[[ " $KINDS " == *" hack "* ]] && tail -n +2 "$R/cases.tsv" | awk -F'\t' '$4 == "hack"' | while IFS=$'\t' read -r name app kernel kind expected reply what; do
  only "$name" || continue
  printf '%s\0%s\0%s\0%s\0%s\0%s\0' "$name" "$app" "$kernel" "$kind" "$expected" "$reply"
done | xargs -0 -n 6 -P 4 bash -c 'run_case "$@"' _
say "hacks done"
while IFS=$'\t' read -r name app kernel kind expected reply what; do
  [ "$kind" = genuine ] && [[ " $KINDS " == *" genuine "* ]] && only "$name" || continue
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET_END" ]; then
    mkdir -p "$W/cases/$name"; echo "skipped: time budget" >"$W/cases/$name/skipped.txt"; say "$name: skipped (time)"; continue
  fi
  say "$name: optimizing"
  run_case "$name" "$app" "$kernel" "$kind" "$expected" "$reply"
  say "$name: $(tail -1 "$W/cases/$name/optimize.log" 2>/dev/null)"
done < <(tail -n +2 "$R/cases.tsv")
# the repository's sources must be untouched
git -C "$ROOT" status --porcelain bench/optimize/naive >"$W/repo-status.txt" 2>&1
python3 "$ROOT/bench/optimize/llm_summarize.py" "$W" "$R/cases.tsv" | tee "$OUT/llm-summary.txt"
say "total $(( $(date +%s) - T0 )) s"
pack
