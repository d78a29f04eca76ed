#!/usr/bin/env bash
# madengine post-script of the rocm_perf_multinode tool (tools.json): after every rank ran
# `rocm-perf profile --rank-wrapper -o DIR` (each into DIR/ranks/rank-<R>/), analyses the job across its ranks and
# exports each rank's trace in the formats madengine users read:
#   DIR/analysis/multi_rank.json, multi_rank.html (the job across ranks: rocm-perf analyze DIR)
#   DIR/csv/rank-<R>/kernel_trace.csv, ... (rocm-perf export csv of the rank's databases; rccl_api_trace.csv,
#   scratch_memory_trace.csv and library_trace.csv when the rank recorded them)
# Usage: rocm_perf_ranks_post.sh [DIR] (default ./rocm_perf_output). Needs rocm-perf on PATH (or ROCM_PERF).
# Run it once, after the last rank: on SLURM, in the job step after `srun`.
set -euo pipefail
dir=${1:-./rocm_perf_output}
rocm_perf=${ROCM_PERF:-rocm-perf}
if [[ ! -d "$dir/ranks" ]]; then
  echo "rocm_perf_ranks_post.sh: $dir/ranks not found: did rocm-perf profile --rank-wrapper run?" >&2
  exit 1
fi
"$rocm_perf" analyze "$dir" -o "$dir/analysis" --quiet > "$dir/analysis.quiet.txt"
for rank_dir in "$dir"/ranks/rank-*; do
  mapfile -t dbs < <(find "$rank_dir" -name '*_results.db' | sort)
  ((${#dbs[@]} > 0)) || continue
  "$rocm_perf" export csv "${dbs[@]}" -o "$dir/csv/$(basename "$rank_dir")" --quiet
done
echo "rocm_perf_ranks_post.sh: $dir/analysis/ and $dir/csv/rank-*/ written" >&2
