#!/usr/bin/env bash
# Measured overhead of `rocm-perf profile --preset NAME` (issue 17), in one go on the H100:
#   OUT=/some/dir RPL_BIN_DIR=/staged/lib bash bench/presets/gpu_overhead.sh
# RPL_BIN_DIR: a folder holding rocm-perf, librpl_cuda_collector.so, librpl_cupti_counters.so,
# rpl_cupti_metrics and their libraries (scripts/gpu/stage_all.sh puts them in DEST/lib).
# 1. compiles two testbeds with nvcc (examples/apps/launch_bound.cpp: 20000 tiny launches, launch-bound;
#    gpu_bound.cpp: 20 long kernels), and uses bench/workloads/train_step.py (PyTorch, bf16 transformer);
# 2. `rocm-perf counters list --json` (the CUPTI metric enumeration) and `counters list` as text;
# 3. per workload: the uninstrumented baseline (`profile --no-rocprof --runs 3`) and every preset
#    (`profile --preset P --runs 3`), plus one counter file (`--counters share/counters/sm_90/compute_bound.txt
#    --counter-tool cupti --counter-launches 20`, flags the presets with a counter file get too) on the
#    testbeds. A preset the platform cannot honour exits 17 at once (recorded, not an error);
# 4. summary.txt / overhead.tsv: per workload and preset the median of the 3 runs' in-app loop time and
#    process wall time, their ratio to the baseline's medians, and the whole command's wall time (counter
#    passes and analysis included); raw profile.json, stderr and summaries in presets-raw.tar.gz.
# Under 5 minutes on an H100 (each command has a time limit; the torch workload runs only the presets
# without a counter pass). Subsets and limits: PRESETS="compute full", WORKLOADS="torch", RUNS=1,
# TORCH_COUNTER_PRESETS=1 (counter presets on torch too), TORCH_LIMIT=S (per torch command), TORCH_START_BY=S,
# COUNTER_LAUNCHES=N (launches per kernel the counter pass profiles; default 20).
# DRY=1 runs the same logic against the test doubles on any machine:
#   DRY=1 OUT=/tmp/x RPL_BIN_DIR=build/src/cli DOUBLES=build/tests/doubles/bin bash bench/presets/gpu_overhead.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and its libraries}"
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
RPL_BIN_DIR=$(cd "$RPL_BIN_DIR" && pwd)
W="${WORK:-/tmp/rpl-presets-overhead}"
rm -rf "$W"; mkdir -p "$W/runs"
exec > >(tee -a "$OUT/gpu_overhead.log") 2>&1
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
RP="$RPL_BIN_DIR/rocm-perf"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$RP" ] || { say "FATAL: no rocm-perf in $RPL_BIN_DIR"; exit 1; }
PRESETS=${PRESETS:-"lightweight compute memory communication full perfetto api-overhead pc-sampling"}  # a subset reruns only those
RUNS=${RUNS:-3}

if [ "${DRY:-0}" = 1 ]; then
  # The test doubles (fake rocprofv3 / rocprofv3-avail) stand in for the GPU; the apps are /bin/sh loops.
  : "${DOUBLES:?DRY=1 needs DOUBLES, the bin folder of the test doubles}"
  export PATH="$(cd "$DOUBLES" && pwd):$PATH"
  PLATFORM=rocm; COUNTER_FILE="$ROOT/share/counters/gfx90a/compute_bound.txt"; COUNTER_FLAGS=()
  LB=(/bin/sh -c 'echo "RPL_RESULT app=launch_bound loop_s=0.010"')
  GB=(/bin/sh -c 'echo "RPL_RESULT app=gpu_bound loop_s=0.020"')
  TORCH=(/bin/sh -c 'echo "RPL_RESULT ms_per_step=12.5"')
else
  PLATFORM=cuda; COUNTER_FILE="$ROOT/share/counters/sm_90/compute_bound.txt"
  # The in-process CUPTI pass on the first 20 launches of each kernel: ncu on 20000 launches would take minutes.
  COUNTER_FLAGS=(--counter-tool cupti --counter-launches "${COUNTER_LAUNCHES:-20}")
  say "host $(hostname), $(nproc) cores"
  nvidia-smi -L || { say "FATAL: no NVIDIA GPU visible"; exit 1; }
  CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  for app in launch_bound gpu_bound; do
    nvcc -x cu -O2 -std=c++17 -arch="sm_${CC}" -I"$ROOT/examples/apps" -o "$W/$app" "$ROOT/examples/apps/$app.cpp" \
      >"$W/nvcc-$app.log" 2>&1 || { cat "$W/nvcc-$app.log"; say "FATAL: nvcc $app failed"; exit 1; }
  done
  LB=("$W/launch_bound" 20000)
  GB=("$W/gpu_bound" --launches=20 --inner=16384)
  TORCH=(python3 "$ROOT/bench/workloads/train_step.py" --steps 4 --warmup 1)
fi
"$RP" --version

say "counters list"
timeout 120 "$RP" counters list --platform "$PLATFORM" --json >"$W/counters-list.json" 2>"$W/counters-list.err"
echo "exit $?" >>"$W/counters-list.err"
timeout 120 "$RP" counters list --platform "$PLATFORM" >"$W/counters-list.txt" 2>>"$W/counters-list.err"
head -5 "$W/counters-list.txt"; tail -2 "$W/counters-list.err"
gzip -c "$W/counters-list.json" >"$OUT/counters-list.json.gz"

# One profile command; its wall time and exit status beside its outputs.
measure() {  # WORKLOAD VARIANT LIMIT_S PROFILE_FLAGS... -- APP...
  local wl=$1 variant=$2 limit=$3; shift 3
  local dir="$W/runs/$wl/$variant"
  mkdir -p "$dir"
  local t0 t1 rc ms
  t0=$(date +%s%N)
  timeout "$limit" "$RP" profile --platform "$PLATFORM" --runs "$RUNS" -o "$dir/out" "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
  rc=$?
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  printf '{"workload": "%s", "variant": "%s", "exit": %d, "command_wall_s": %d.%03d}\n' "$wl" "$variant" "$rc" \
    $((ms / 1000)) $((ms % 1000)) >"$dir/result.json"
  say "$wl $variant: exit $rc, $((ms / 1000)).$((ms % 1000 / 100)) s"
  [ "$rc" = 0 ] || [ "$rc" = 17 ] || tail -5 "$dir/stderr.txt"
}

for wl in ${WORKLOADS:-launch_bound gpu_bound torch}; do
  # The 5-minute budget: the torch workload (4 variants x 3 runs of ~10 s) starts only with time for it.
  if [ "$wl" = torch ] && [ $(( $(date +%s) - T0 )) -gt "${TORCH_START_BY:-170}" ]; then say "skipping torch: time budget"; break; fi
  case $wl in
    launch_bound) APP=("${LB[@]}"); LIMIT=90 ;;
    gpu_bound) APP=("${GB[@]}"); LIMIT=90 ;;
    torch) APP=("${TORCH[@]}"); LIMIT=${TORCH_LIMIT:-100} ;;
  esac
  measure "$wl" baseline "$LIMIT" --no-rocprof -- "${APP[@]}"
  for p in $PRESETS; do
    # The torch workload: only presets without a counter pass (a counter pass replays its hundreds of
    # kernels, minutes on its own); the others are refused or measured on the testbeds.
    # TORCH_COUNTER_PRESETS=1 measures them on torch too (give TORCH_LIMIT for the counter pass).
    if [ "$wl" = torch ] && [ "${TORCH_COUNTER_PRESETS:-0}" != 1 ] &&
       [[ " compute memory communication full " == *" $p "* ]]; then continue; fi
    # Presets with a counter file get the same bounded counter pass as the counter-file run below.
    extra=(); [[ " compute memory communication full " == *" $p "* ]] && extra=("${COUNTER_FLAGS[@]}")
    measure "$wl" "$p" "$LIMIT" --preset "$p" "${extra[@]}" -- "${APP[@]}"
  done
  [ "$wl" = torch ] || measure "$wl" counters-file "$LIMIT" --counters "$COUNTER_FILE" "${COUNTER_FLAGS[@]}" -- "${APP[@]}"
done

say "summary"
python3 "$ROOT/bench/presets/summarize_overhead.py" "$W/runs" "$OUT/overhead.tsv" | tee "$OUT/summary.txt"
(cd "$W" && find . \( -name 'profile.json' -o -name 'stderr.txt' -o -name 'stdout.txt' -o -name 'result.json' \
    -o -name 'app.stdout' -o -name 'counters-list.*' -o -name 'nvcc-*.log' \) -size -4M -print0 |
  tar --null -czf "$OUT/presets-raw.tar.gz" -T -)
say "done"
ls -la "$OUT"
