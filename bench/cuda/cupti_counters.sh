#!/usr/bin/env bash
# The NVIDIA counter pass two ways, side by side in one run on one app: ncu (what `profile --roofline` ran
# before) and librpl_cupti_counters.so (CUPTI range profiler, kernel replay, in process), with the same metric
# metrics where the tools differ (below). Reports wall ms per kernel instance above a plain run of the app, and per metric the median over
# instances from each tool and their ratio (cupti / ncu).
#   [LIB=.devbuild-R/lib/librpl_cupti_counters.so] [BATCHES="1 64"] [METRICS=a,b] bench/cuda/cupti_counters.sh APP [ARGS...]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
LIB=${LIB:-$(pwd)/.devbuild-R/lib/librpl_cupti_counters.so}
source "$(dirname "$0")/metric_lists.sh"
R="$BYTES,$FP"; T=$TENSOR; B=$BASIC
# What each tool gets from `profile --roofline`: ncu all 19 stall reasons; the CUPTI pass the memory reasons,
# selected, not_selected and the warp latency per instruction (analysis::cupti_deep_metrics).
M=${METRICS:-$R,$T,$B,$ALL}
MC=${CUPTI_METRICS:-$R,$T,$B,$MEM,$(st selected not_selected),smsp__average_warp_latency_per_inst_issued.ratio}
W=$(mktemp -d)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
t0=$(date +%s%N); "$@" >/dev/null 2>&1; base=$(ms $t0)
t0=$(date +%s%N); "$@" >/dev/null 2>&1; base2=$(ms $t0)
[ $base2 -lt $base ] && base=$base2
echo "app: $*"
echo "plain run: $base ms (best of 2); metrics: $(echo "$M" | tr ',' '\n' | wc -l)"
t0=$(date +%s%N)
"$NCU" --csv --page raw --print-units base --replay-mode kernel --cache-control all --clock-control none \
  --metrics "$M" --log-file "$W/ncu.csv" "$@" >/dev/null 2>"$W/ncu.err"
echo "ncu wall: $(ms $t0) ms"
ncu_wall=$(ms $t0)
for b in ${BATCHES:-1}; do
  mkdir -p "$W/cupti-$b"
  t0=$(date +%s%N)
  CUDA_INJECTION64_PATH="$LIB" RPL_COUNTERS_METRICS="$MC" RPL_COUNTERS_OUT="$W/cupti-$b" RPL_COUNTERS_BATCH=$b \
    RPL_COUNTERS_VERBOSE=1 "$@" >/dev/null 2>"$W/cupti-$b.err"
  echo "cupti batch $b wall: $(ms $t0) ms (rc $?)"; tail -3 "$W/cupti-$b.err"
  echo "$(ms $t0)" > "$W/cupti-$b.wall"
done
python3 "$HERE/compare_counters.py" "$W" "$base" "$ncu_wall" ${BATCHES:-1}
rm -rf "$W"
