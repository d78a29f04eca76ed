#!/usr/bin/env bash
# Real-workload traces for the analysis checks (issue 13): a bf16 transformer training step profiled with
# rocm-perf (3 runs), the same with the roofline counter pass (CUPTI, first launch of each kernel), a
# launch-bound variant (small model, .item() every step), and a Triton JIT kernel. Everything lands in
# $OUT/torch_traces.tar.gz (databases and rocm-perf outputs) plus the terminal summaries in $OUT/*.txt.
#   scripts/gpu/torch_traces.sh --devbuild DIR   (DIR from scripts/gpu/stage_devbuild.sh, carried to the GPU machine)
set -u
[ "${1:-}" = --devbuild ] && [ -n "${2:-}" ] || { echo "usage: $0 --devbuild DIR" >&2; exit 2; }
DEVBUILD=$(cd "$2" && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP=$DEVBUILD/lib/rocm-perf
W=$(mktemp -d); PY=python3
date -u +"date %Y-%m-%dT%H:%M:%SZ"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"
run() {  # name, then rocm-perf arguments
  local name=$1; shift
  local t0=$(date +%s%N)
  "$RP" "$@" >"$OUT/$name.txt" 2>"$W/$name.err"; local rc=$?
  echo "== $name: rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  tail -5 "$W/$name.err"
}
run train profile --runs 3 -o "$W/train" -- $PY bench/workloads/train_step.py --steps 5
run train_roofline profile --runs 1 --roofline --counter-tool cupti --counter-launches 1 -o "$W/train_roofline" -- \
  $PY bench/workloads/train_step.py --steps 2 --warmup 1
run hostbound profile --runs 3 -o "$W/hostbound" -- $PY bench/workloads/train_step.py --steps 20 --layers 2 \
  --d-model 128 --heads 4 --seq 64 --batch 2 --vocab 512 --sync-every-step
run triton profile --runs 1 -o "$W/triton" -- $PY bench/workloads/triton_softmax.py
for d in train train_roofline hostbound triton; do cp "$W/$d.err" "$W/$d/" 2>/dev/null; done
(cd "$W" && tar -czf "$OUT/torch_traces.tar.gz" train train_roofline hostbound triton)
ls -la "$OUT"
