#!/usr/bin/env bash
# The GPU proof of `rocm-perf optimize` (issue 15), in one go on an NVIDIA GPU (H100, CUDA, 16 cores):
#   OUT=/some/dir bash bench/optimize/gpu_suite.sh
# 1. builds rocm-perf and its CUDA collector, capture library and replay runner (or uses RPL_BIN_DIR, a folder
#    holding a ready rocm-perf and its libraries),
# 2. hostile suite: 13 adversarial candidates (bench/optimize/hostile/make_candidates.py), each checked with
#    `optimize --candidate FILE --dry-run`; each must be rejected by the gate named in cases.tsv,
# 3. naive suite: 8 naive kernels (bench/optimize/naive/*.cu) optimized with the deterministic proposer
#    (--build rebuilds the app; the source copies under $OUT are rewritten, never the repository's),
# 4. prints both tables (summary.txt) and tars logs, optimize.json files, diffs and sources into
#    $OUT/optimize-suite.tar.gz (work folder: $WORK, default /tmp/rpl-optimize-suite). Finishes in under 9 minutes
#    (naive kernels are skipped past a time budget; SUITES=naive or SUITES=hostile runs one suite).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the output folder}"
W="${WORK:-/tmp/rpl-optimize-suite}"   # captures and dumps are large: only the summary, log and a tar go to $OUT
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee -a "$OUT/suite.log") 2>&1
T0=$(date +%s)
BUDGET_NAIVE_END=${BUDGET_NAIVE_END:-450}   # seconds after start: no new naive kernel starts past this
SUITES=${SUITES:-"hostile naive"}             # e.g. SUITES=naive to rerun only the naive suite
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
pack() {
  (cd "$W" && find . \( -name '*.json' -o -name '*.log' -o -name '*.stderr' -o -name '*.diff' -o -name '*.tsv' -o -name '*.cu' \
      -o -name '*.cuh' -o -name '*.txt' \) -not -path '*/inputs/*' -not -path '*/dumps/*' -size -4M -print0 |
    tar --null -czf "$OUT/optimize-suite.tar.gz" -T -) || true
  ls -la "$OUT"
}
fail() { say "FATAL: $*"; pack; exit 1; }

say "host $(hostname), $(nproc) cores"
nvidia-smi -L || fail "nvidia-smi: no NVIDIA GPU visible"
command -v nvcc >/dev/null || fail "nvcc is not on PATH"
nvcc --version | tail -2
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
ARCH="sm_${CC}"
say "GPU architecture $ARCH"

if [ -n "${RPL_BIN_DIR:-}" ]; then
  RP="$RPL_BIN_DIR/rocm-perf"
else
  BUILD="$ROOT/build-gpu"
  say "configuring ($BUILD)"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" 2>&1 ||
    { tail -40 "$W/cmake.log"; fail "cmake configure failed (cmake.log); a prebuilt folder can be given as RPL_BIN_DIR"; }
  say "building rocm-perf, the CUDA collector, capture library and replay runner"
  cmake --build "$BUILD" -j16 --target rocm-perf rpl_cuda_collector rpl_cuda_capture rpl_replay_cuda >"$W/build.log" 2>&1 ||
    { grep -E 'error|FAILED' "$W/build.log" | head -40; fail "build failed (build.log)"; }
  RP="$BUILD/src/cli/rocm-perf"
fi
[ -x "$RP" ] || fail "no rocm-perf at $RP"
for f in librpl_cuda_collector.so librpl_cuda_capture.so rpl_replay_cuda; do
  [ -e "$(dirname "$RP")/$f" ] || fail "$f is missing beside $RP"
done
"$RP" optimize --help >"$W/optimize-help.txt" 2>&1 || fail "rocm-perf optimize --help failed (optimize-help.txt)"
grep -q "not in this build" "$W/optimize-help.txt" && fail "rocm-perf was built without libclang (libclang-15-dev): optimize is not available"
say "build done"

# ---------------------------------------------------------------- hostile suite
H="$W/hostile"
if [[ " $SUITES " == *" hostile "* ]]; then
mkdir -p "$H/src" "$H/runs"
cp "$ROOT/bench/optimize/hostile/app.cu" "$H/src/app.cu"
nvcc -O3 -arch="$ARCH" -o "$H/src/app" "$H/src/app.cu" >"$H/app-build.log" 2>&1 || { cat "$H/app-build.log"; fail "the hostile app does not build"; }
"$H/src/app" || fail "the hostile app fails on its own"
python3 "$ROOT/bench/optimize/hostile/make_candidates.py" "$H/candidates" || fail "make_candidates.py failed"
hostile_case() {
  local name=$1 kernel=$2 file=$4
  timeout 200 "$RP" optimize --source "$H/src/app.cu" --kernel "$kernel" --candidate "$file" --dry-run --runs 1 \
    --perf-rounds 3 --perf-iterations 5 --max-candidates 1 --timeout 60 -o "$H/runs/$name" --json \
    -- "$H/src/app" >"$H/runs/$name.stdout.json" 2>"$H/runs/$name.log"
  echo "exit $?" >>"$H/runs/$name.log"
}
export -f hostile_case
export RP H
say "hostile suite: $(wc -l <"$H/candidates/cases.tsv") candidates, 8 at a time"
while IFS=$'\t' read -r name kernel gate file what; do
  printf '%s\0%s\0%s\0%s\0' "$name" "$kernel" "$gate" "$file"
done <"$H/candidates/cases.tsv" | xargs -0 -n 4 -P 8 bash -c 'hostile_case "$@"' _
say "hostile suite done"
# the original app source must be untouched by --dry-run
cmp -s "$ROOT/bench/optimize/hostile/app.cu" "$H/src/app.cu" || say "ERROR: --dry-run changed the hostile app's source"
fi

# ---------------------------------------------------------------- naive suite
N="$W/naive"
[[ " $SUITES " == *" naive "* ]] && mkdir -p "$N"
[[ " $SUITES " == *" naive "* ]] && for src in "$ROOT"/bench/optimize/naive/*.cu; do
  name=$(basename "$src" .cu)
  d="$N/$name"
  mkdir -p "$d"
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET_NAIVE_END" ]; then
    echo "skipped: time budget" >"$d/skipped.txt"; say "naive $name: skipped (time budget)"; continue
  fi
  cp "$src" "$ROOT/bench/optimize/naive/common.cuh" "$d/"
  build="nvcc -O3 -arch=$ARCH -o $d/app $d/$name.cu"
  $build >"$d/app-build.log" 2>&1 || { say "naive $name: the app does not build"; continue; }
  say "naive $name: optimizing"
  timeout 150 "$RP" optimize --source "$d/$name.cu" --build "$build" --max-candidates 2 --runs 2 --perf-rounds 4 \
    --perf-iterations 10 --timeout 60 -o "$d/opt" --json -- "$d/app" >"$d/stdout.json" 2>"$d/optimize.log"
  echo "exit $?" >>"$d/optimize.log"
  [ -f "$d/$name.cu.orig" ] && diff -u "$d/$name.cu.orig" "$d/$name.cu" >"$d/accepted.diff"
  rm -rf "$d/opt/inputs" "$d/opt/dumps" "$d/opt/candidates"/*/dumps
  say "naive $name: $(tail -1 "$d/optimize.log")"
done

python3 "$ROOT/bench/optimize/summarize.py" "$W" | tee "$OUT/summary.txt"
say "total $(( $(date +%s) - T0 )) s"
pack
