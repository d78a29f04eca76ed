#!/usr/bin/env bash
# Probe of one process using every GPU (examples/apps/launch_bound --all-devices=1), untraced and under the CUDA
# collector, each given 20 s; on a hang: each thread's kernel wait channel and every thread's stack (gdb), then kill.
#   OUT=$OUT RPL_BIN_DIR=$PWD/.devbuild/lib bash bench/cuda/multi_gpu_probe.sh
set -u
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries}"
BIN=$(cd "$RPL_BIN_DIR/../bin" && pwd); LIB=$(cd "$RPL_BIN_DIR" && pwd)/librpl_cuda_collector.so
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/../../scripts/gpu/staged_commit.sh"
echo "date $(date -u +%FT%TZ); binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
nvidia-smi -L
probe() {
  local name=$1; shift
  "$@" >"$OUT/$name.out" 2>&1 &
  local pid=$!
  for _ in $(seq 1 40); do sleep 0.5; kill -0 "$pid" 2>/dev/null || break; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name: HUNG after 20 s (pid $pid)"
    for t in /proc/"$pid"/task/*; do echo "   thread $(basename "$t") $(cat "$t"/comm) wchan=$(cat "$t"/wchan)"; done
    timeout 60 gdb -p "$pid" -batch -ex "thread apply all bt 30" >"$OUT/$name.gdb" 2>&1
    echo "   gdb: $(grep -c '^Thread' "$OUT/$name.gdb") threads, stacks in $name.gdb"
    kill -9 "$pid"
  else
    wait "$pid"; echo "$name: exit $?"
  fi
  tail -n 4 "$OUT/$name.out" | sed 's/^/   /'
}
probe untraced "$BIN/launch_bound" 2000 --all-devices=1
probe traced env CUDA_INJECTION64_PATH="$LIB" RPL_TRACE_DIR="$OUT/trace" RPL_CUDA_VERBOSE=1 "$BIN/launch_bound" 2000 --all-devices=1
probe traced_one_gpu env CUDA_INJECTION64_PATH="$LIB" RPL_TRACE_DIR="$OUT/trace1" RPL_CUDA_VERBOSE=1 "$BIN/launch_bound" 2000
