#!/usr/bin/env bash
# GPU proof of `rocm-perf profile --preset communication` on NVIDIA (issue 33): NCCL's calls through our NCCL
# profiler plugin, the sm_90 communication_bound.txt counters, NVML samples, in both forms of profile:
#   launcher: rocm-perf profile --preset communication --runs 1 -- torchrun ... (2 GPUs) / python3 ... (1 GPU)
#   rank:     torchrun --no-python rocm-perf profile --rank-wrapper --preset communication -- python3 ... (2 GPUs;
#             on 1 GPU two ranks share it, each with its own one-rank communicators)
# and checks each result with bench/multigpu/check_comm_preset.py (PASS/FAIL per check, exit 1 on a FAIL).
# The job: bench/multigpu/tp_dp_collectives.py (2 ranks, data parallel; real NCCL calls) on 2 GPUs;
# bench/multigpu/nccl_self_p2p.py (send/receive to itself) on 1 GPU, where NCCL refuses two ranks.
# Needs the staged binaries (scripts/gpu/stage_all.sh: rocm-perf, librpl_cuda_collector.so,
# librpl_nccl_profiler.so, librpl_cupti_counters.so, rpl_cupti_metrics and their libraries in one folder),
# PyTorch with NCCL >= 2.26 on the GPU machine.
#   OUT=$OUT RPL_BIN_DIR=$PWD/.devbuild/lib bash bench/multigpu/gpu_comm_preset.sh [GPUS: 2 (default) or 1; or GPUS=1 in the environment]
set -u
: "${OUT:?set OUT to the output folder}"
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries (scripts/gpu/stage_all.sh)}" && pwd)
GPUS=${1:-${GPUS:-2}}
export LD_LIBRARY_PATH="$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
RP="$BIN/rocm-perf"
if command -v torchrun >/dev/null; then TR=(torchrun); else TR=(python3 -m torch.distributed.run); fi
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_comm_preset.log") 2>&1
. "$HERE/collectives_common.sh"
run_header "$BIN/.."
ls "$BIN"/librpl_nccl_profiler.so || { echo "FAIL: librpl_nccl_profiler.so is not staged beside rocm-perf"; exit 1; }
"$RP" --version

step() {  # name, command...: runs it with NCCL's INIT logs, its status and tail in the log
  local name=$1; shift
  echo "== $name: $*" | sed "s|$HERE/|bench/multigpu/|g; s|$BIN|\$RPL_BIN_DIR|g; s|$OUT|\$OUT|g"
  local t0=$(date +%s%N)
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT timeout "${RUN_TIMEOUT:-300}" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
  local rc=$?
  echo "   rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  grep -h "PROFILER\|profiler plugin\|rocm-perf:" "$OUT/$name.stderr" | sort | uniq -c | head -8 | sed 's/^/   | /'
  return $rc
}

status=0
if [ "$GPUS" -ge 2 ]; then
  JOB=("$HERE/tp_dp_collectives.py" --tp 1 --steps 10 --gemms 3 --slow-extra 0 --out-dir "$OUT/joblog")
  step launcher "$RP" profile --preset communication --runs 1 -o "$OUT/launcher" --json -- \
    "${TR[@]}" --standalone --nproc-per-node 2 "${JOB[@]}"
  echo "   launcher rc=$?"
  step ranks "${TR[@]}" --standalone --nproc-per-node 2 --no-python \
    "$RP" profile --rank-wrapper --preset communication -o "$OUT/ranks" -- python3 "${JOB[@]}"
  echo "   ranks rc=$?"
  step analyze_ranks "$RP" analyze "$OUT/ranks" -o "$OUT/ranks-analysis" --json
  python3 "$HERE/check_comm_preset.py" --launcher "$OUT/launcher" --ranks "$OUT/ranks" --expect-ranks 2 --rank-counters skipped || status=1
else
  step launcher "$RP" profile --preset communication --runs 1 -o "$OUT/launcher" --json -- \
    python3 "$HERE/nccl_self_p2p.py" --iters 10 --mib 16 --log "$OUT/joblog"
  echo "   launcher rc=$?"
  # The rank form with two ranks sharing the one GPU: each rank has its own one-rank communicators (NCCL refuses
  # two ranks of one communicator on one GPU), so their NCCL calls are real but none crosses to another GPU.
  step ranks "${TR[@]}" --standalone --nproc-per-node 2 --no-python \
    "$RP" profile --rank-wrapper --preset communication -o "$OUT/ranks" -- \
    python3 "$HERE/nccl_self_p2p.py" --iters 10 --mib 16 --log "$OUT/joblog-ranks"
  echo "   ranks rc=$?"
  step analyze_ranks "$RP" analyze "$OUT/ranks" -o "$OUT/ranks-analysis" --json
  python3 "$HERE/check_comm_preset.py" --launcher "$OUT/launcher" --ranks "$OUT/ranks" --expect-ranks 2 --rank-counters skipped || status=1
fi
# What comes back from the GPU machine keeps only shallow paths: the outputs and databases flat under files/.
mkdir -p "$OUT/files"
for f in $(find "$OUT" -path "$OUT/files" -prune -o -type f \( -name '*.json' -o -name '*.db' -o -name '*.log' \
           -o -name '*.stderr' -o -name '*.txt' \) -print); do
  cp "$f" "$OUT/files/$(echo "${f#$OUT/}" | tr '/' '_')"
done
exit $status
