#!/usr/bin/env bash
# GPU proof of `rocm-perf profile --library-trace` on NVIDIA (issue 33): cuBLAS and cuDNN calls found in the NVTX
# ranges the libraries emit, with their GPU work, in library_trace.csv / library_calls.json. Needs PyTorch with
# CUDA and cuDNN on the GPU machine and the staged binaries (scripts/gpu/stage_devbuild.sh: rocm-perf and
# librpl_cuda_collector.so with their libraries).
#   OUT=$OUT RPL_BIN_DIR=$PWD/.devbuild/lib bash bench/cuda/library_trace_gpu.sh
# 1. profiles bench/cuda/library_calls_job.py (5 GEMMs, 4 convolutions, no NVTX range of its own) with
#    `rocm-perf profile --library-trace --runs 1`;
# 2. check_library_trace.py: the files written, cuBLAS and cuDNN calls found (at least as many as made), else the
#    library named in library_calls.json's kernels_without_calls (its kernels ran unmarked), and every marker range
#    name in the trace (what the libraries emitted, if anything). On one H200 (2026-11-29, PyTorch 2.11, CUDA 13)
#    the libraries emitted no range: bench/results/2026-11-29/cuda/library_trace_gpu/.
# Raw outputs in OUT: library_trace_gpu.log, library_trace_checks.jsonl, library_trace_outputs.tar.gz.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and librpl_cuda_collector.so}"
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/rpl-libtrace.XXXXXX)
exec > >(tee -a "$OUT/library_trace_gpu.log") 2>&1
echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
[ -f "$RPL_BIN_DIR/../COMMIT" ] && echo "staged commit: $(cat "$RPL_BIN_DIR/../COMMIT")"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
echo "== rocm-perf profile --library-trace --runs 1 -o \$W/prof -- python3 library_calls_job.py"
"$RPL_BIN_DIR/rocm-perf" profile --library-trace --runs 1 --width 120 -o "$W/prof" -- \
  python3 "$HERE/library_calls_job.py" > "$W/terminal.txt"
rc=$?
cat "$W/terminal.txt"
echo "== profile rc=$rc"
job_out="$W/prof/runs/run-1/app.stdout"
echo "job stdout: ${job_out#$W/}"; cat "$job_out" 2>/dev/null
echo "== check_library_trace.py"
python3 "$HERE/check_library_trace.py" "$W/prof" "$job_out" | tee "$OUT/library_trace_checks.jsonl"
check=${PIPESTATUS[0]}
tar -czf "$OUT/library_trace_outputs.tar.gz" -C "$W" terminal.txt prof/library_calls.json prof/library_trace.csv \
  prof/analysis.json prof/runs 2>/dev/null
echo "== checks rc=$check"
exit "$check"
