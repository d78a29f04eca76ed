# The ncu/CUPTI metric lists the counter-pass benchmarks compose their sets from (sourced by ncu_passes.sh,
# cupti_counters.sh and cupti_sets.sh). The same names as analysis::ncu_roofline_metrics / ncu_deep_metrics.
BYTES="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__sass_data_bytes_mem_shared.sum"
FP=""; for p in d f h; do for op in add mul fma; do FP="$FP,smsp__sass_thread_inst_executed_op_${p}${op}_pred_on.sum"; done; done; FP=${FP#,}
TENSOR="sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp64.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum"
TENSOR_SCREEN=sm__inst_executed_pipe_tensor.sum
# The deep analysis's non-stall metrics as ncu gets them, and the classifier's inputs among them.
BASIC="sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,sm__inst_issued.avg.pct_of_peak_sustained_active,smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
CLASSIFIER="sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum"
HIT_RATES="l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
LAT=smsp__average_warp_latency_per_inst_issued.ratio
st() { local out=""; for r in "$@"; do out="$out,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done; echo "${out#,}"; }
MEM=$(st long_scoreboard lg_throttle tex_throttle short_scoreboard mio_throttle membar drain imc_miss)
ALL=$(st barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait)
