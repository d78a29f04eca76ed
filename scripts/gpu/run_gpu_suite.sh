#!/usr/bin/env bash
# The CUDA collector's GPU test suite, then its overhead benchmark and ncu accuracy check. Runs on a
# machine with an NVIDIA GPU; without one it says SKIP and exits 0.
#
#   scripts/gpu/run_gpu_suite.sh --devbuild DIR --out DIR [--no-bench] [--no-accuracy] [--quick]
#
# DIR is what scripts/gpu/stage_devbuild.sh assembles: lib/ (librpl_cuda_collector.so and the shared
# libraries it needs), bin/ (testbed apps, rpl_spill_convert), scripts/gpu/, bench/cuda/. Logs, databases
# and a summary go under --out. Exit status: 0 when every check passed (or the suite was skipped).
set -u
DEVBUILD=""; OUT=""; BENCH=1; ACCURACY=1; QUICK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --devbuild) DEVBUILD="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-bench) BENCH=0; shift ;;
    --no-accuracy) ACCURACY=0; shift ;;
    --quick) QUICK=1; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$DEVBUILD" ] && [ -n "$OUT" ] || { echo "usage: $0 --devbuild DIR --out DIR [--no-bench] [--no-accuracy] [--quick]" >&2; exit 2; }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU here (nvidia-smi -L failed): the CUDA collector's GPU suite was not run"
  exit 0
fi

DEVBUILD=$(cd "$DEVBUILD" && pwd); mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
ulimit -c 0  # the crash tests must not leave core files
LIB="$DEVBUILD/lib/librpl_cuda_collector.so"; BIN="$DEVBUILD/bin"
CHECK="python3 $DEVBUILD/scripts/gpu/check_rocpd.py"
FAILS=0; PASSES=0
pass() { echo "PASS: $*"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

echo "== environment"
date -u +"date %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count())' 2>&1 | tail -1
ldd "$LIB" | grep -E "cupti|sqlite|fmt|not found" || true
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"

# run_traced NAME CMD...: runs CMD under the collector with its own trace dir; leaves $TRACE, $RC.
run_traced() {
  local name="$1"; shift
  TRACE="$OUT/traces/$name"; rm -rf "$TRACE"; mkdir -p "$TRACE"
  CUDA_INJECTION64_PATH="$LIB" RPL_TRACE_DIR="$TRACE" RPL_CUDA_VERBOSE=1 timeout -s KILL 180 "$@" \
    >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
  RC=$?
}
dbs_in() { find "$1" -name '*_results.db' | sort; }
spills_in() { find "$1" -name '*.rplspill' | sort; }

echo "== apps untraced (each checks its own result)"
declare -A ARGS=(
  [attention]="--seq=1024 --iters=5" [naive_softmax]="--iters=5" [multistream]="--iters=3"
  [launch_bound]="20000" [gpu_bound]="--launches=20 --inner=16384" [graph_launch]="--launches=10"
)
for app in attention naive_softmax multistream launch_bound gpu_bound graph_launch; do
  if timeout -s KILL 120 "$BIN/$app" ${ARGS[$app]} >"$OUT/$app.untraced.stdout" 2>&1; then pass "$app runs and checks out untraced"
  else fail "$app untraced (exit $?): $(tail -3 "$OUT/$app.untraced.stdout")"; fi
done

echo "== apps under the collector"
for app in attention naive_softmax multistream launch_bound gpu_bound graph_launch; do
  run_traced "$app" "$BIN/$app" ${ARGS[$app]}
  if [ "$RC" -ne 0 ]; then fail "$app traced exited $RC: $(tail -3 "$OUT/$app.stderr")"; continue; fi
  tail -2 "$OUT/$app.stderr"
  db=$(dbs_in "$TRACE" | head -1)
  if [ -z "$db" ]; then fail "$app: no database in $TRACE"; continue; fi
  [ -z "$(spills_in "$TRACE")" ] && pass "$app: spill converted and removed at exit" || fail "$app: spill left behind"
  extra=""; [ "$app" = multistream ] && extra="--multistream $DEVBUILD/examples/apps/multistream.json"
  if $CHECK "$db" --app-output "$OUT/$app.stdout" $extra --summary "$OUT/$app.summary.json" >"$OUT/$app.check" 2>&1; then
    pass "$app: rocpd checks ($(grep -c '^PASS' "$OUT/$app.check") passed)"
  else
    fail "$app: rocpd checks"; fi
  cat "$OUT/$app.check"
done

echo "== multistream with every runtime and driver API traced"
export RPL_CUDA_API=all
run_traced multistream_api_all "$BIN/multistream" --iters=3
unset RPL_CUDA_API
db=$(dbs_in "$TRACE" | head -1)
if [ "$RC" -eq 0 ] && [ -n "$db" ] && $CHECK "$db" --app-output "$OUT/multistream_api_all.stdout" \
     --multistream "$DEVBUILD/examples/apps/multistream.json" >"$OUT/multistream_api_all.check" 2>&1; then
  pass "multistream, RPL_CUDA_API=all: edges and counts"
else fail "multistream, RPL_CUDA_API=all"; fi
cat "$OUT/multistream_api_all.check"

echo "== child processes (one database per process)"
run_traced children bash -c "'$BIN/launch_bound' 1000 && '$BIN/launch_bound' 2000 && '$BIN/graph_launch' --launches=2"
n=$(dbs_in "$TRACE" | wc -l)
[ "$RC" -eq 0 ] && [ "$n" -eq 3 ] && pass "three CUDA children, three databases" || fail "children: exit $RC, $n databases (expected 3)"
for db in $(dbs_in "$TRACE"); do $CHECK "$db" --min-kernels 6 | tail -1; done

echo "== several GPUs"
NGPU=$(nvidia-smi -L | grep -c '^GPU ')
if [ "$NGPU" -ge 2 ]; then
  run_traced multi_gpu "$BIN/launch_bound" 2000 --all-devices=1
  db=$(dbs_in "$TRACE" | head -1)
  printf 'RPL_EXPECT kernel=tiny_increment count=%d\n' $((2100 * NGPU)) >"$OUT/multi_gpu.expect"
  if [ "$RC" -eq 0 ] && [ -n "$db" ] && $CHECK "$db" --app-output "$OUT/multi_gpu.expect" --gpus "$NGPU" \
       >"$OUT/multi_gpu.check" 2>&1; then pass "$NGPU GPUs: one agent each, every dispatch on its own agent"
  else fail "several GPUs (exit $RC)"; fi
  cat "$OUT/multi_gpu.check" 2>/dev/null
else
  echo "SKIP: several GPUs: this machine has $NGPU GPU"
fi

echo "== crash and exit paths"
for mode in segv abort term exit; do
  run_traced "crash_$mode" "$BIN/launch_bound" 3000 "--crash=$mode"
  spill=$(spills_in "$TRACE" | head -1)
  if [ "$mode" = exit ]; then
    [ "$RC" -eq 0 ] && [ -z "$spill" ] && [ -n "$(dbs_in "$TRACE")" ] && pass "exit(): database written at exit" \
      || fail "exit(): exit $RC, spill '$spill'"
  else
    if [ "$RC" -lt 128 ] || [ -z "$spill" ]; then fail "$mode: exit $RC, spill '$spill' (expected death by signal and a spill)"; continue; fi
    pass "$mode: died by signal $((RC - 128)), spill kept"
    LD_LIBRARY_PATH="$DEVBUILD/lib" "$BIN/rpl_spill_convert" --dir "$TRACE" >"$OUT/crash_$mode.convert" 2>&1
  fi
  db=$(dbs_in "$TRACE" | head -1)
  if [ -n "$db" ] && printf 'RPL_EXPECT kernel=tiny_increment count=3100\n' >"$OUT/crash_$mode.expect" \
     && $CHECK "$db" --app-output "$OUT/crash_$mode.expect" >"$OUT/crash_$mode.check" 2>&1; then
    pass "$mode: every kernel launched before the end is in the database"
  else fail "$mode: database check"; cat "$OUT/crash_$mode.check" 2>/dev/null | grep FAIL; fi
done

echo "== PyTorch under the collector"
run_traced torch python3 "$DEVBUILD/bench/cuda/torch_loop.py" --launches 20000 --mm 5 --mm-size 4096
db=$(dbs_in "$TRACE" | head -1)
if [ "$RC" -eq 0 ] && [ -n "$db" ] && $CHECK "$db" --min-kernels 21000 >"$OUT/torch.check" 2>&1; then
  pass "torch loop traced"; else fail "torch loop traced (exit $RC)"; fi
cat "$OUT/torch.check" 2>/dev/null | head -20

if [ "$BENCH" -eq 1 ]; then
  echo "== overhead benchmark"
  rounds=7; trounds=3; [ "$QUICK" -eq 1 ] && { rounds=3; trounds=1; }
  python3 "$DEVBUILD/bench/cuda/overhead.py" --collector "$LIB" --bin "$BIN" --out "$OUT/overhead" \
    --rounds $rounds --torch-rounds $trounds || fail "overhead benchmark did not complete"
fi
if [ "$ACCURACY" -eq 1 ]; then
  echo "== accuracy against ncu"
  python3 "$DEVBUILD/bench/cuda/accuracy.py" --collector "$LIB" --bin "$BIN" --out "$OUT/accuracy" \
    && pass "accuracy within 2% for kernels >= 10 us" || fail "accuracy (see above)"
fi

echo "== summary: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
