#!/usr/bin/env bash
# The part of the collectives proof (issue 31) one GPU allows: NCCL 2.28 refuses two ranks on one GPU, so
# no cross-rank matching can run there; what runs is our CUDA collector and NCCL profiler plugin inside a
# process making real NCCL calls (bench/multigpu/nccl_self_p2p.py: send/receive to oneself on two
# one-rank communicators), so that its rocpd database shows whether the plugin loads into PyTorch's NCCL,
# what it records, and whether the calls are stored and linked to the SendRecv kernels.
#   OUT=$OUT COLL_LIB=.devbuild-coll bash bench/multigpu/gpu_collectives_1gpu.sh
set -u
: "${OUT:?set OUT to the output folder}"
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=$(cd "${COLL_LIB:?}" && pwd)
mkdir -p "$OUT/self_p2p/trace"
exec > >(tee "$OUT/gpu_collectives_1gpu.log") 2>&1
. "$HERE/collectives_common.sh"
run_header "$LIB"
record_topology "$OUT/self_p2p/trace"
echo "== CUDA_INJECTION64_PATH=\$COLL_LIB/librpl_cuda_collector.so RPL_TRACE_DIR=\$OUT/self_p2p/trace NCCL_PROFILER_PLUGIN=\$COLL_LIB/librpl_nccl_profiler.so python3 bench/multigpu/nccl_self_p2p.py --iters 10 --mib 16 --log \$OUT/self_p2p/log"
CUDA_INJECTION64_PATH="$LIB/librpl_cuda_collector.so" RPL_TRACE_DIR="$OUT/self_p2p/trace" \
  NCCL_PROFILER_PLUGIN="$LIB/librpl_nccl_profiler.so" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT RPL_CUDA_VERBOSE=1 \
  timeout 120 python3 "$HERE/nccl_self_p2p.py" --iters 10 --mib 16 --log "$OUT/self_p2p/log" \
  >"$OUT/self_p2p/stdout" 2>"$OUT/self_p2p/stderr"
echo "rc=$?"
cat "$OUT/self_p2p/stdout"
grep -ih "profiler\|rpl-" "$OUT/self_p2p/stdout" "$OUT/self_p2p/stderr" | head -12
find "$OUT/self_p2p" -type f | sed "s|$OUT/||"
