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
R="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__sass_data_bytes_mem_shared.sum"
for p in d f h; do for op in add mul fma; do R="$R,smsp__sass_thread_inst_executed_op_${p}${op}_pred_on.sum"; done; done
T="sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp64.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum"
B="sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,sm__inst_issued.avg.pct_of_peak_sustained_active,smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
st() { local out=""; for r in "$@"; do out="$out,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done; echo "${out#,}"; }
ALL=$(st barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait)
MEM=$(st long_scoreboard lg_throttle tex_throttle short_scoreboard mio_throttle membar drain imc_miss)
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
