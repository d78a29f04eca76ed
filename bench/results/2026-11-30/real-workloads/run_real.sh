#!/bin/bash
# session 16: real workloads on the current binaries (torch training step, roofline pass, Triton; DDP + NCCL across 2 GPUs)
mkdir -p $OUT/torch $OUT/multi
date -u
OUT=$OUT/torch timeout 260 bash scripts/gpu/torch_traces.sh --devbuild .devbuild > $OUT/torch_traces.log 2>&1; echo "torch rc $?"
date -u
RPL_BIN_DIR=$PWD/.devbuild/lib OUT=$OUT/multi timeout 200 bash bench/multigpu/gpu_multi.sh > $OUT/gpu_multi_stdout.log 2>&1; echo "multi rc $?"
date -u
grep -E '^(PASS|FAIL)' $OUT/gpu_multi_stdout.log | head -40
cd $OUT && tar -czf real.tar.gz torch multi torch_traces.log gpu_multi_stdout.log && rm -rf torch multi
