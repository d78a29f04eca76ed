#!/usr/bin/env bash
# GPU proof of `rocm-perf profile --library-trace` on NVIDIA from the libraries' own API logs (issue 33): cuBLAS,
# cuBLASLt and cuDNN calls (CUBLAS_LOGINFO_DBG, CUBLASLT_LOG_LEVEL=5, CUDNN_LOGLEVEL_DBG=3, set by the collector)
# listed in library_trace.csv / library_calls.json with their arguments and linked to the kernels they launched.
# The earlier proof, bench/cuda/library_trace_gpu.sh, found no NVTX range from either library on one H200.
# Needs PyTorch with CUDA and cuDNN and the staged binaries (scripts/gpu/stage_all.sh: rocm-perf and
# librpl_cuda_collector.so with their libraries).
#   OUT=$OUT RPL_BIN_DIR=$PWD/.devbuild/lib bash bench/cuda/library_trace_logging_gpu.sh
# 1. profiles bench/cuda/library_logging_job.py (matmul, linear with bias, conv2d; fp32 and bf16; 4 calls each;
#    no NVTX range of its own) with `rocm-perf profile --library-trace --runs 1`;
# 2. check_library_logging.py: logs written, calls listed and linked per library family, data types named;
# 3. `rocm-perf export csv` of the run's database writes the same library_trace.csv as profile (logs found beside it).
# Raw outputs in OUT: library_logging_gpu.log, library_logging_checks.jsonl, library_logging_outputs.tar.gz (the
# profile's files and run folder, the libraries' logs included), library_logs_head/ (the first 300 lines of each
# log, for the tests' excerpts).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and librpl_cuda_collector.so}"
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/rpl-liblog.XXXXXX")
exec > >(tee -a "$OUT/library_logging_gpu.log") 2>&1
echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ) TZ=${TZ:-unset} $(date +%z)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
. "$HERE/../../scripts/gpu/staged_commit.sh"
echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
unset CUBLAS_LOGINFO_DBG CUBLAS_LOGDEST_DBG CUBLASLT_LOG_LEVEL CUBLASLT_LOG_MASK CUBLASLT_LOG_FILE \
  CUDNN_LOGLEVEL_DBG CUDNN_LOGDEST_DBG CUDNN_LOGINFO_DBG
echo "== rocm-perf profile --library-trace --runs 1 -o \$W/prof -- python3 library_logging_job.py"
t0=$(date +%s)
"$RPL_BIN_DIR/rocm-perf" profile --library-trace --runs 1 --width 120 -o "$W/prof" -- \
  python3 "$HERE/library_logging_job.py" > "$W/terminal.txt"
rc=$?
cat "$W/terminal.txt"
echo "== profile rc=$rc after $(( $(date +%s) - t0 )) s"
job_out="$W/prof/runs/run-1/app.stdout"
echo "job stdout: ${job_out#$W/}"; cat "$job_out" 2>/dev/null
logs="$W/prof/runs/run-1/library_logs"
echo "== library_logs:"; ls -la "$logs" 2>/dev/null; cat "$logs/clock.txt" 2>/dev/null
mkdir -p "$OUT/library_logs_head"
for f in "$logs"/*.log; do [ -f "$f" ] && head -n 300 "$f" > "$OUT/library_logs_head/$(basename "$f")"; done
echo "== library_trace.csv (first 60 rows)"; head -n 61 "$W/prof/library_trace.csv" 2>/dev/null
echo "== library_calls.json"; cat "$W/prof/library_calls.json" 2>/dev/null
echo "== check_library_logging.py"
python3 "$HERE/check_library_logging.py" "$W/prof" "$job_out" | tee "$OUT/library_logging_checks.jsonl"
check=${PIPESTATUS[0]}
# 3. export csv of the run's database finds the logs beside it and writes the same library_trace.csv as profile.
echo "== rocm-perf export csv of the run's database (library_logs/ beside it)"
db=$(ls "$W"/prof/runs/run-1/rocpd/*/*_results.db 2>/dev/null | head -1)
export_rc=1
if [ -n "$db" ] && "$RPL_BIN_DIR/rocm-perf" export csv "$db" -o "$W/exported"; then
  if cmp "$W/exported/library_trace.csv" "$W/prof/library_trace.csv"; then
    echo "PASS: export csv's library_trace.csv equals profile's ($(( $(wc -l < "$W/prof/library_trace.csv") - 1 )) calls)"
    export_rc=0
  else echo "FAIL: export csv's library_trace.csv differs from profile's"; fi
else echo "FAIL: export csv of '${db:-no database}' failed"; fi
[ "$check" -eq 0 ] && check=$export_rc
tar -czf "$OUT/library_logging_outputs.tar.gz" -C "$W" terminal.txt prof/library_calls.json prof/library_trace.csv \
  prof/analysis.json prof/runs 2>/dev/null
ls -la "$OUT"
echo "== checks rc=$check (profile rc=$rc)"
[ "$rc" -eq 0 ] || exit "$rc"
exit "$check"
