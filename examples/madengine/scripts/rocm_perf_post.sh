#!/usr/bin/env bash
# madengine post-script of the rocm_perf* tools (tools.json): after `rocm-perf profile -o DIR`, adds the
# representative run's trace in the formats madengine users read, beside profile.json and report.html:
#   DIR/csv/kernel_trace.csv, memory_copy_trace.csv, hip_api_trace.csv (cuda_api_trace.csv on NVIDIA)
#   DIR/trace.pftrace (Perfetto's protobuf format; open in ui.perfetto.dev)
# Usage: rocm_perf_post.sh [DIR] (default ./rocm_perf_output). Needs rocm-perf on PATH (or ROCM_PERF).
set -euo pipefail
dir=${1:-./rocm_perf_output}
rocm_perf=${ROCM_PERF:-rocm-perf}
if [[ ! -f "$dir/profile.json" ]]; then
  echo "rocm_perf_post.sh: $dir/profile.json not found: did rocm-perf profile run?" >&2
  exit 1
fi
# The run whose analysis profile.json reports (the median runtime); timing-only profiles have no trace.
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"]["representative_run"])' "$dir/profile.json" \
      2>/dev/null || echo 1)
mapfile -t dbs < <(find "$dir/runs/run-$run" -name '*.db' 2>/dev/null | sort)
if ((${#dbs[@]} == 0)); then
  echo "rocm_perf_post.sh: no trace databases under $dir/runs/run-$run (a --no-rocprof profile has none)" >&2
  exit 0
fi
"$rocm_perf" export csv "${dbs[@]}" -o "$dir/csv" --quiet
"$rocm_perf" export perfetto --format pftrace "${dbs[@]}" -o "$dir/trace.pftrace" --quiet
echo "rocm_perf_post.sh: $dir/csv/ and $dir/trace.pftrace written from run $run" >&2
