#!/usr/bin/env bash
# The GPU time of NVTX ranges on an NVIDIA GPU (issue 29), in under a minute:
#   RPL_BIN_DIR=DEST/lib OUT=/tmp/out bash bench/cuda/nvtx_range_gpu.sh
# RPL_BIN_DIR: rocm-perf and librpl_cuda_collector.so with their libraries (scripts/gpu/stage_devbuild.sh DEST puts
# them in DEST/lib, and this folder in DEST/bench/cuda). APP: a prebuilt bench/cuda/nvtx_ranges.cu; without it the
# program is compiled here with nvcc (sm_80 and sm_90).
# 1. profiles the program (`rocm-perf profile --runs 1`), whose ranges launch known kernels (serial, concurrent
#    on two streams, none, nested, on a second thread while the main thread's range launches nothing);
# 2. check_nvtx_ranges.py: each range's kernel count as launched, and its GPU busy time equal to an independent
#    recomputation from the rocpd database (correlation id -> API call on the range's thread inside it).
# Raw outputs in OUT: nvtx_range_gpu.log (everything printed), nvtx_range_checks.jsonl (one line per check),
# nvtx_range_outputs.tar.gz (analysis.json, range_stats.csv, the terminal summary, the database).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and librpl_cuda_collector.so}"
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/rpl-nvtx.XXXXXX)
exec > >(tee -a "$OUT/nvtx_range_gpu.log") 2>&1
echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
[ -f "$RPL_BIN_DIR/../COMMIT" ] && echo "staged commit: $(cat "$RPL_BIN_DIR/../COMMIT")"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
APP=${APP:-}
if [ -z "$APP" ]; then
  APP="$W/nvtx_ranges"
  echo "== nvcc $HERE/nvtx_ranges.cu"
  nvcc -O2 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -o "$APP" \
    "$HERE/nvtx_ranges.cu" || { echo "FATAL: nvcc failed"; exit 1; }
fi
echo "== rocm-perf profile --runs 1 -o $W/prof -- $APP"
"$RPL_BIN_DIR/rocm-perf" profile --runs 1 --width 120 -o "$W/prof" -- "$APP" > "$W/terminal.txt"
rc=$?
cat "$W/terminal.txt"
echo "== profile rc=$rc"
[ "$rc" = 0 ] || exit 1
echo "== check_nvtx_ranges.py"
python3 "$HERE/check_nvtx_ranges.py" "$W/prof" | tee "$OUT/nvtx_range_checks.jsonl"
check=${PIPESTATUS[0]}
tar -czf "$OUT/nvtx_range_outputs.tar.gz" -C "$W" terminal.txt prof/analysis.json prof/range_stats.csv prof/runs
echo "== checks rc=$check"
exit "$check"
