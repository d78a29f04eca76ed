#!/usr/bin/env bash
# Issue 27's GPU proof of `rocm-perf optimize`, on an NVIDIA GPU (H200, CUDA 13), from the repository root:
#   OUT=/some/dir [RPL_BIN_DIR=dir-with-rocm-perf] [SUITES="corpus hostile timing"] [PARALLEL=3] \
#     bash scripts/gpu/optimizer_corpus.sh
# 1. corpus: the correct optimizations of bench/optimize/corpus (make_corpus.py; CORPUS_DIR another such folder), each checked with
#    `optimize --candidate FILE --dry-run` on its application; each should pass every gate up to performance and
#    be reported with its speedup (zero wrong rejects: no failure at signature, structure, compile, binary or
#    equivalence). PARALLEL runs at a time (default 3; the performance gate's noise grows with it, said in the log);
# 2. hostile: the adversarial candidates of bench/optimize/hostile (make_candidates.py), 8 at a time; each must be
#    rejected by the gate named in cases.tsv (zero wrong accepts);
# 3. timing: the deterministic proposer's 8 unroll candidates on one naive kernel (bench/optimize/naive/stencil.cu),
#    wall time of the whole run and per candidate (issue 27 section 3's target: within 60 s).
# Writes $OUT/env.txt (date, device, driver, nvcc, commit), $OUT/suite.log, $OUT/corpus.tsv, $OUT/hostile.tsv,
# $OUT/timing.json, $OUT/summary.txt and $OUT/optimizer-corpus.tar.gz (every optimize.json, log and diff).
# No new naive or corpus case starts past BUDGET seconds (default 540) so that one device call of 600 s holds it.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the output folder}"
W="${WORK:-/tmp/rpl-optimizer-corpus}"
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee -a "$OUT/suite.log") 2>&1
T0=$(date +%s)
BUDGET=${BUDGET:-540}
SUITES=${SUITES:-"corpus hostile timing"}
PARALLEL=${PARALLEL:-3}
# CORPUS_DIR: a folder laid out as bench/optimize/corpus (the apps, candidates/NAME.cu with their //@ lines)
CORPUS_DIR=$(cd "${CORPUS_DIR:-$ROOT/bench/optimize/corpus}" && pwd)
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
pack() {
  (cd "$W" && find . \( -name '*.json' -o -name '*.log' -o -name '*.diff' -o -name '*.tsv' -o -name '*.cu' -o -name '*.cuh' \
      -o -name '*.txt' -o -name '*.stderr' \) -not -path '*/inputs/*' -not -path '*/dumps/*' -not -path '*.keep/*' -size -4M -print0 |
    tar --null -czf "$OUT/optimizer-corpus.tar.gz" -T -) || true
}
fail() { say "FATAL: $*"; pack; exit 1; }

{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname), $(nproc) cores"
  echo "checkout: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo "${RPL_COMMIT:-not a git checkout; set RPL_COMMIT}")"
  echo "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
  echo "nvcc: $(nvcc --version 2>&1 | tail -1)"
  echo "cuobjdump: $(command -v cuobjdump || echo none)"
  echo "command: SUITES=\"$SUITES\" PARALLEL=$PARALLEL BUDGET=$BUDGET bash scripts/gpu/optimizer_corpus.sh"
} | tee "$OUT/env.txt"
nvidia-smi -L >/dev/null 2>&1 || fail "nvidia-smi: no NVIDIA GPU visible"
command -v nvcc >/dev/null || fail "nvcc is not on PATH"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
ARCH="sm_${CC}"

if [ -n "${RPL_BIN_DIR:-}" ]; then
  RP="$RPL_BIN_DIR/rocm-perf"
  . "$ROOT/scripts/gpu/staged_commit.sh"
  say "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
  echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")" >>"$OUT/env.txt"
else
  for cand in "$ROOT/build-gpu/src/cli/rocm-perf" "$ROOT/build/src/cli/rocm-perf"; do [ -x "$cand" ] && RP=$cand && break; done
  if [ -z "${RP:-}" ]; then
    say "no build found: building rocm-perf and the CUDA libraries in build-gpu"
    cmake -S "$ROOT" -B "$ROOT/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" 2>&1 || fail "cmake failed (cmake.log)"
    cmake --build "$ROOT/build-gpu" -j"$(nproc)" --target rocm-perf rpl_cuda_collector rpl_cuda_capture rpl_replay_cuda \
      rpl_cupti_counters >"$W/build.log" 2>&1 || { grep -E 'error|FAILED' "$W/build.log" | head -20; fail "build failed"; }
    RP="$ROOT/build-gpu/src/cli/rocm-perf"
  fi
fi
[ -x "$RP" ] || fail "no rocm-perf at $RP"
"$RP" optimize --help >"$W/optimize-help.txt" 2>&1 || fail "rocm-perf optimize --help failed"
grep -q "not in this build" "$W/optimize-help.txt" && fail "rocm-perf was built without libclang: optimize is not available"
say "rocm-perf: $RP; GPU architecture $ARCH"
kernel_regex() { echo "(^|[^A-Za-z0-9_])$1(<|\\(|\$)"; }

# ------------------------------------------------------------------------------------------------ corpus
if [[ " $SUITES " == *" corpus "* ]]; then
  C="$W/corpus"; mkdir -p "$C/apps" "$C/runs"
  python3 "$ROOT/bench/optimize/corpus/make_corpus.py" "$C/candidates" "$CORPUS_DIR" || fail "make_corpus.py failed"
  APPS=$(cut -f2 "$C/candidates/cases.tsv" | sort -u | sed 's/\.cu$//')
  for app in $APPS; do
    cp "$CORPUS_DIR/$app.cu" "$C/apps/"
    nvcc -O3 -arch="$ARCH" -o "$C/apps/$app" "$C/apps/$app.cu" >"$C/apps/$app-build.log" 2>&1 || fail "corpus app $app does not build"
    "$C/apps/$app" >"$C/apps/$app-run.log" 2>&1 || fail "corpus app $app fails on its own"
  done
  corpus_case() {
    local name=$1 app=$2 kernel=$3 file=$4 rtol=$5
    if [ $(( $(date +%s) - T0 )) -gt "$BUDGET" ]; then echo "skipped: time budget" >"$C/runs/$name.log"; return; fi
    local tol=(); [ -n "$rtol" ] && tol=(--rtol "$rtol")
    local t=$(date +%s.%N)
    timeout 240 "$RP" optimize --source "$C/apps/${app%.cu}.cu" --kernel "$(kernel_regex "$kernel")" --candidate "$file" --dry-run \
      --runs 1 --perf-rounds 5 --perf-iterations 20 --max-candidates 1 --timeout 60 "${tol[@]}" -o "$C/runs/$name" --json \
      -- "$C/apps/${app%.cu}" >"$C/runs/$name.stdout.json" 2>"$C/runs/$name.log"
    local rc=$?
    echo "exit $rc after $(awk "BEGIN{print $(date +%s.%N) - $t}") s" >>"$C/runs/$name.log"
    # files of 4 MiB and more (captures, replay dumps: about 2 GB a case on the probe's apps), which pack leaves
    # out anyway: kept, 50 cases filled a 64 GiB disk on 2026-11-30
    find "$C/runs/$name" -type f -size +4M -delete 2>/dev/null
  }
  export -f corpus_case kernel_regex
  export RP C T0 BUDGET
  say "corpus: $(wc -l <"$C/candidates/cases.tsv") candidates, $PARALLEL at a time"
  # Tabs are whitespace to `read`, which would merge an empty rtol column into the next: split on \x1f instead.
  tr '\t' '\037' <"$C/candidates/cases.tsv" | while IFS=$'\037' read -r name app kernel file rtol what; do
    [ -z "${CASES:-}" ] || [[ " $CASES " == *" $name "* ]] || continue  # CASES="a b": only these corpus cases
    printf '%s\0%s\0%s\0%s\0%s\0' "$name" "$app" "$kernel" "$file" "$rtol"
  done | xargs -0 -n 5 -P "$PARALLEL" bash -c 'corpus_case "$@"' _
  for app in $APPS; do cmp -s "$CORPUS_DIR/$app.cu" "$C/apps/$app.cu" || say "ERROR: --dry-run changed $app.cu"; done
  say "corpus done"
fi

# ------------------------------------------------------------------------------------------------ hostile
if [[ " $SUITES " == *" hostile "* ]]; then
  H="$W/hostile"; mkdir -p "$H/src" "$H/runs"
  cp "$ROOT/bench/optimize/hostile/app.cu" "$ROOT/bench/optimize/hostile/helpers.cuh" "$H/src/"
  nvcc -O3 -arch="$ARCH" -o "$H/src/app" "$H/src/app.cu" >"$H/app-build.log" 2>&1 || fail "the hostile app does not build"
  "$H/src/app" >"$H/app-run.log" 2>&1 || fail "the hostile app fails on its own"
  python3 "$ROOT/bench/optimize/hostile/make_candidates.py" "$H/candidates" || fail "make_candidates.py failed"
  hostile_case() {
    local name=$1 kernel=$2 file=$3
    timeout 200 "$RP" optimize --source "$H/src/app.cu" --kernel "$(kernel_regex "$kernel")" --candidate "$file" --dry-run --runs 1 \
      --perf-rounds 3 --perf-iterations 5 --max-candidates 1 --timeout 60 -o "$H/runs/$name" --json \
      -- "$H/src/app" >"$H/runs/$name.stdout.json" 2>"$H/runs/$name.log"
    echo "exit $?" >>"$H/runs/$name.log"
    find "$H/runs/$name" -type f -size +4M -delete 2>/dev/null
  }
  export -f hostile_case kernel_regex
  export RP H
  say "hostile: $(wc -l <"$H/candidates/cases.tsv") candidates, 8 at a time"
  while IFS=$'\t' read -r name kernel gate file what; do printf '%s\0%s\0%s\0' "$name" "$kernel" "$file"; done \
    <"$H/candidates/cases.tsv" | xargs -0 -n 3 -P 8 bash -c 'hostile_case "$@"' _
  cmp -s "$ROOT/bench/optimize/hostile/app.cu" "$H/src/app.cu" || say "ERROR: --dry-run changed the hostile app's source"
  say "hostile done"
fi

# ------------------------------------------------------------------------------------------------ timing
if [[ " $SUITES " == *" timing "* ]]; then
  T="$W/timing"; mkdir -p "$T"
  cp "$ROOT/bench/optimize/naive/stencil.cu" "$ROOT/bench/optimize/naive/common.cuh" "$T/"
  nvcc -O3 -arch="$ARCH" -o "$T/stencil" "$T/stencil.cu" >"$T/build.log" 2>&1 || fail "the timing app does not build"
  say "timing: 8 deterministic candidates on stencil (dry run)"
  t=$(date +%s.%N)
  timeout 300 "$RP" optimize --source "$T/stencil.cu" --max-candidates 8 --runs 2 --dry-run --timeout 60 -o "$T/opt" --json \
    -- "$T/stencil" >"$T/stdout.json" 2>"$T/optimize.log"
  rc=$?
  echo "{\"exit\": $rc, \"wall_s\": $(awk "BEGIN{print $(date +%s.%N) - $t}")}" >"$T/wall.json"
  say "timing done: $(cat "$T/wall.json")"
fi

python3 "$ROOT/bench/optimize/corpus/summarize_corpus.py" "$W" "$OUT" | tee "$OUT/summary.txt"
say "total $(( $(date +%s) - T0 )) s"
pack
ls -la "$OUT"
