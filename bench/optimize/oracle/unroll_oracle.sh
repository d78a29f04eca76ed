#!/usr/bin/env bash
# Issue 27's proposer-against-oracle proof, on an NVIDIA GPU, from the repository root:
#   OUT=/some/dir [RPL_BIN_DIR=dir-with-rocm-perf] [KERNELS="stencil matmul ..."] [BUDGET=540] \
#     bash bench/optimize/oracle/unroll_oracle.sh
# For each naive kernel (bench/optimize/naive/K.cu), one after the other:
# 1. proposer: `rocm-perf optimize` as a user runs it (deterministic proposer, defaults, --build rebuilding a copy
#    of the application): what it accepts, with its speedup (a copy of the source is rewritten, never the repo's);
# 2. oracle: every single-loop unroll variant (unroll_variants.py: factors 2-8, 16 and a bare #pragma unroll on
#    every loop of the kernel) measured by the same replay gate (`optimize --candidate ... --dry-run`, the same
#    rounds and iterations as the proposer's run): the best measured speedup among the variants that pass
#    equivalence is the oracle's.
# summarize.py then judges: on each kernel where the oracle gains 3% or more, the accepted speedup must be at least
# 95% of the oracle's; no accepted candidate may be a regression. No new kernel starts past BUDGET seconds.
# Writes $OUT/env.txt, $OUT/oracle.log, $OUT/oracle-summary.txt, $OUT/oracle.tsv and $OUT/unroll-oracle.tar.gz.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
: "${OUT:?set OUT to the output folder}"
W="${WORK:-/tmp/rpl-unroll-oracle}"
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee -a "$OUT/oracle.log") 2>&1
T0=$(date +%s)
BUDGET=${BUDGET:-540}
KERNELS=${KERNELS:-"stencil matmul conv2d transpose layernorm softmax reduction histogram"}
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
pack() {
  (cd "$W" && find . \( -name '*.json' -o -name '*.log' -o -name '*.diff' -o -name '*.tsv' -o -name '*.txt' \) \
      -not -path '*/inputs/*' -not -path '*/dumps/*' -size -4M -print0 | tar --null -czf "$OUT/unroll-oracle.tar.gz" -T -) || true
}
fail() { say "FATAL: $*"; pack; exit 1; }
{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname), $(nproc) cores"
  echo "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
  echo "nvcc: $(nvcc --version 2>&1 | tail -1)"
  echo "command: KERNELS=\"$KERNELS\" BUDGET=$BUDGET bash bench/optimize/oracle/unroll_oracle.sh"
} | tee "$OUT/env.txt"
nvidia-smi -L >/dev/null 2>&1 || fail "nvidia-smi: no NVIDIA GPU visible"
command -v nvcc >/dev/null || fail "nvcc is not on PATH"
ARCH="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')"
if [ -n "${RPL_BIN_DIR:-}" ]; then
  RP="$RPL_BIN_DIR/rocm-perf"
  . "$ROOT/scripts/gpu/staged_commit.sh"
  echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")" | tee -a "$OUT/env.txt"
else
  RP="$ROOT/build/src/cli/rocm-perf"
fi
[ -x "$RP" ] || fail "no rocm-perf at $RP"

for k in $KERNELS; do
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET" ]; then say "$k: skipped (time budget)"; echo "$k" >>"$W/skipped.txt"; continue; fi
  d="$W/$k"; mkdir -p "$d/proposer" "$d/oracle"
  for sub in proposer oracle; do cp "$ROOT/bench/optimize/naive/$k.cu" "$ROOT/bench/optimize/naive/common.cuh" "$d/$sub/"; done
  build="nvcc -O3 -arch=$ARCH -o $d/proposer/app $d/proposer/$k.cu"
  $build >"$d/proposer/app-build.log" 2>&1 || { say "$k: the app does not build"; continue; }
  cp "$d/proposer/app" "$d/oracle/app"
  kernel=$(grep -o '__global__ void [A-Za-z0-9_]*' "$d/oracle/$k.cu" | head -1 | awk '{print $3}')
  say "$k ($kernel): proposer"
  t=$(date +%s.%N)
  timeout 240 "$RP" optimize --source "$d/proposer/$k.cu" --build "$build" --timeout 60 -o "$d/proposer/opt" --json \
    -- "$d/proposer/app" >"$d/proposer/stdout.json" 2>"$d/proposer/optimize.log"
  echo "exit $? after $(awk "BEGIN{print $(date +%s.%N) - $t}") s" >>"$d/proposer/optimize.log"
  [ -f "$d/proposer/$k.cu.orig" ] && diff -u "$d/proposer/$k.cu.orig" "$d/proposer/$k.cu" >"$d/proposer/accepted.diff"
  say "$k: proposer $(tail -1 "$d/proposer/optimize.log")"
  python3 "$ROOT/bench/optimize/oracle/unroll_variants.py" "$d/oracle/$k.cu" "$d/oracle/variants" >/dev/null || fail "unroll_variants.py failed"
  n=$(wc -l <"$d/oracle/variants/variants.tsv")
  cands=(); while IFS=$'\t' read -r f line factor; do cands+=(--candidate "$d/oracle/variants/$f"); done <"$d/oracle/variants/variants.tsv"
  say "$k: oracle, $n variants"
  t=$(date +%s.%N)
  timeout 400 "$RP" optimize --source "$d/oracle/$k.cu" --kernel "(^|[^A-Za-z0-9_])$kernel(<|\\(|\$)" "${cands[@]}" --max-candidates "$n" \
    --dry-run --no-counters --timeout 60 -o "$d/oracle/opt" --json -- "$d/oracle/app" >"$d/oracle/stdout.json" 2>"$d/oracle/optimize.log"
  echo "exit $? after $(awk "BEGIN{print $(date +%s.%N) - $t}") s" >>"$d/oracle/optimize.log"
  cmp -s "$ROOT/bench/optimize/naive/$k.cu" "$d/oracle/$k.cu" || say "ERROR: --dry-run changed the oracle's copy of $k.cu"
  say "$k: oracle $(tail -1 "$d/oracle/optimize.log")"
  rm -rf "$d"/*/opt/inputs "$d"/*/opt/candidates/*/dumps "$d"/*/opt/original/dumps
done
python3 "$ROOT/bench/optimize/oracle/summarize.py" "$W" "$OUT/oracle.tsv" | tee "$OUT/oracle-summary.txt"
say "total $(( $(date +%s) - T0 )) s"
pack
ls -la "$OUT"
