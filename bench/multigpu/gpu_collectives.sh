#!/usr/bin/env bash
# GPU proof of collectives by communicator (issue 31) on 4 GPUs (tensor-parallel groups of 2, data parallel
# across) or on 2 (groups of 1). The GPU machine has no rocm-perf (its libclang/LLVM do not fit what can be
# carried there), so this script does on it what `rocm-perf profile` does for a CUDA job and nothing more:
# it records the topology into <trace>/<host>/gpu_topology.txt (the commands of
# collectors::nvidia_topology_commands), then runs the job with our CUDA collector (CUDA_INJECTION64_PATH) and
# our NCCL profiler plugin (NCCL_PROFILER_PLUGIN); each rank's collector writes its rocpd database at exit
# and stores the plugin's calls and the topology in it (collectors::attach_nccl_records). The databases are
# analysed back on the build machine (bench/multigpu/check_collectives.py).
#   (1) baseline:  the job, last group with 4 more GEMMs per step
#   (2) rerun:     the same job with half the GEMMs (the what-if "GEMMs twice as fast", for real)
#   (3) loop:      nccl-tests' measurement of the same calls and sizes, unprofiled
# With fewer GPUs than ranks (RANKS=4 on one GPU), NCCL_MULTI_RANK_GPU_ENABLE=1 lets NCCL (where it has that
# setting) put several ranks on one GPU; JOB_ARGS are added to every run (smaller sizes there).
#   OUT=$OUT COLL_LIB=.devbuild-coll [RANKS=4] [JOB_ARGS=...] bash bench/multigpu/gpu_collectives.sh [GPUS]
set -u
: "${OUT:?set OUT to the output folder}"
HERE=$(cd "$(dirname "$0")" && pwd)  # this script's folder: the job and collectives_common.sh beside it
LIB=$(cd "${COLL_LIB:?set COLL_LIB to the folder holding the collector and the plugin}" && pwd)
GPUS=${1:-4}
N=${RANKS:-$GPUS}
TP=2; [ "$N" -lt 4 ] && TP=1
HOSTS=()
# More ranks than GPUs: NCCL >= 2.30 allows it with NCCL_MULTI_RANK_GPU_ENABLE; older NCCL refuses two ranks of one
# host on one GPU, so each rank gets its own NCCL_HOSTID (network transport between them, over loopback).
[ "$N" -gt "$GPUS" ] && export NCCL_MULTI_RANK_GPU_ENABLE=1 && HOSTS=(--host-per-rank)
if command -v torchrun >/dev/null; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_collectives.log") 2>&1
. "$HERE/collectives_common.sh"
run_header "$LIB"
echo "gpus $GPUS ranks $N tp $TP job_args ${JOB_ARGS:-} NCCL_MULTI_RANK_GPU_ENABLE=${NCCL_MULTI_RANK_GPU_ENABLE:-}"

run() {  # name, profiled (1/0), job arguments...
  local name=$1 profiled=$2; shift 2
  local dir="$OUT/$name" env=()
  mkdir -p "$dir/trace"
  if [ "$profiled" = 1 ]; then
    record_topology "$dir/trace"
    env=(CUDA_INJECTION64_PATH="$LIB/librpl_cuda_collector.so" RPL_TRACE_DIR="$dir/trace"
         NCCL_PROFILER_PLUGIN="$LIB/librpl_nccl_profiler.so")
  fi
  local cmd=("${TR[@]}" --standalone --nproc-per-node "$N" "$HERE/tp_dp_collectives.py" --tp "$TP"
             --out-dir "$dir/log" "${HOSTS[@]}" "$@" ${JOB_ARGS:-})
  echo "== $name: ${env[*]} ${cmd[*]}" | sed "s|$HERE/|bench/multigpu/|g; s|$LIB|\$COLL_LIB|g; s|$OUT|\$OUT|g"
  local t0=$(date +%s%N)
  env "${env[@]}" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT timeout "${RUN_TIMEOUT:-240}" "${cmd[@]}" >"$dir/stdout" 2>"$dir/stderr"
  echo "   rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  grep -i "profiler" "$dir/stderr" | sort | uniq -c | head -5 | sed 's/^/   | /'
  grep -v "NCCL INFO" "$dir/stderr" | tail -5 | sed 's/^/   | /'
  find "$dir/trace" -type f | sed "s|$OUT/||; s/^/   /"
}
run baseline 1 --steps 30 --gemms 6 --slow-extra 4
run rerun 1 --steps 30 --gemms 3 --slow-extra 2
run loop 0 --mode loop --iters 20
# The databases and logs flat under $OUT/files (what comes back from the GPU machine keeps only shallow paths).
for name in baseline rerun loop; do
  mkdir -p "$OUT/files/$name"
  cp "$OUT/$name"/log/*.json "$OUT/files/$name/" 2>/dev/null
  cp "$OUT/$name"/trace/*/* "$OUT/files/$name/" 2>/dev/null
  grep -h "NCCL INFO.*\(PROFILER\|NCCL version\)\|^[^v]" "$OUT/$name/stdout" "$OUT/$name/stderr" 2>/dev/null |
    sort | uniq -c | sort -rn | head -40 > "$OUT/files/$name/output_summary.txt"
done
ls -la "$OUT"/files/*
