#!/usr/bin/env bash
# Issue 32 on fresh GPU traces: the staged rocm-perf profiles real workloads (a PyTorch bf16 training step, its
# host-bound variant with a sync every step, a Triton softmax), then OLD (a second staged binary, main 47604ef's:
# the SQL reader and the per-node arrays) and NEW analyze each database; bench/analyze_equivalence_recorded.sh's
# comparison (every output field by field, report.html and --slack-db byte for byte, which schedule NEW took).
#   OUT=dir RPL_BIN_DIR=.devbuild/lib OLD=.devbuild/lib/rocm-perf-47604ef bash bench/cuda/analyze_equivalence_gpu.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR}" "${OLD:?set OLD to the old binary}"
NEW=$RPL_BIN_DIR/rocm-perf
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W=$OUT/profiles
mkdir -p "$W"
date -u +"date %Y-%m-%dT%H:%M:%SZ"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
. "$ROOT/scripts/gpu/staged_commit.sh"; echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
prof() {  # name, then the workload's command line
  local name=$1; shift
  echo "== profile $name: $*"
  "$NEW" profile --runs 1 -o "$W/$name" --quiet -- "$@" >"$W/$name.stdout" 2>"$W/$name.stderr"; echo "   rc=$?"
}
prof train python3 "$ROOT/bench/workloads/train_step.py" --steps 5
prof hostbound python3 "$ROOT/bench/workloads/train_step.py" --steps 20 --layers 2 --d-model 128 --heads 4 --seq 64 \
  --batch 2 --vocab 512 --sync-every-step
prof triton python3 "$ROOT/bench/workloads/triton_softmax.py"
status=0
for db in $(find "$W" -name '*_results.db' | sort); do
  bash "$ROOT/bench/analyze_equivalence_recorded.sh" --compare-one "$OLD" "$NEW" "$db" || status=1
done
echo "# equivalence on fresh GPU traces: $([ $status = 0 ] && echo 'every output equal' || echo 'DIFFERENCES above')"
tar -czf "$OUT/profiles.tar.gz" -C "$OUT" profiles && rm -rf "$W"
exit $status
