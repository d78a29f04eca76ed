#!/usr/bin/env bash
# GPU proof of the analysis across ranks (issue 18), on 2 GPUs (or, with --single-gpu, two processes
# sharing GPU 0: NCCL refuses two ranks on one GPU, so that mode uses gloo and checks only the launcher
# wrapping, the per-rank databases and their rank identity).
#   (a) a torchrun DDP training step of our own, profiled through the launcher:
#       rocm-perf profile --runs 1 -- torchrun --nproc-per-node 2 bench/multigpu/ddp_step.py
#   (b) an NCCL all-reduce loop of our own with a straggler: rank 1 sleeps 60 ms before every 5th
#       collective, an all-gather; profiled (b1) through the launcher and (b2) with --rank-wrapper inside it;
#       rocm-perf analyze must name rank 1 and the AllGather.
#   (c) split/merge: --rank-summary per rank database, --merge-summaries, same document as (b1).
# Prints PASS/FAIL lines; every output goes to $OUT/multigpu.tar.gz, the log to $OUT/gpu_multi.log.
#   RPL_BIN_DIR=$PWD/.devbuild/lib OUT=$OUT bash bench/multigpu/gpu_multi.sh [--single-gpu] [--dry-run]
set -u
SINGLE=0; DRY=0
for arg in "$@"; do
  case $arg in
    --single-gpu) SINGLE=1 ;;
    --dry-run) DRY=1 ;;  # no GPU: print the commands, check the script's own logic
    *) echo "usage: $0 [--single-gpu] [--dry-run]" >&2; exit 2 ;;
  esac
done
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and its libraries (scripts/gpu/stage_all.sh)}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$RPL_BIN_DIR/rocm-perf"
W=$(mktemp -d)
LOG="$OUT/gpu_multi.log"
mkdir -p "$OUT"
exec > >(tee "$LOG") 2>&1
PY=python3
if command -v torchrun >/dev/null; then TR=(torchrun); else TR=("$PY" -m torch.distributed.run); fi
TR+=(--standalone --nproc-per-node 2)
EXTRA=()
if [ $SINGLE = 1 ]; then export CUDA_VISIBLE_DEVICES=0; EXTRA=(--gloo); fi
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
FAILS=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
step() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  echo "== $name: $*"
  [ $DRY = 1 ] && return 0
  local t0=$(date +%s%N)
  timeout "$limit" "$@" >"$W/$name.out" 2>"$W/$name.err"; local rc=$?
  echo "   rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  tail -4 "$W/$name.err" | sed 's/^/   | /'
  return $rc
}

date -u +"date %Y-%m-%dT%H:%M:%SZ"
[ $DRY = 1 ] || nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv,noheader
echo "mode: $([ $SINGLE = 1 ] && echo 'one GPU, two processes (gloo)' || echo 'two GPUs (NCCL)')"

# (a) DDP through the launcher.
step ddp 150 "$RP" profile --runs 1 --timeout 140 -o "$W/ddp" -- "${TR[@]}" "$ROOT/bench/multigpu/ddp_step.py" "${EXTRA[@]}"
step ddp_analyze 60 "$RP" analyze "$W/ddp/runs/run-1" -o "$W/ddp/ranks" --perfetto --json
# (b1) the straggler benchmark through the launcher (each analysis runs even when the profile step failed:
# `profile` also analyses the merged trace, and a failure there must not hide the rank databases).
step straggler 150 "$RP" profile --runs 1 --timeout 140 -o "$W/straggler" -- "${TR[@]}" \
  "$ROOT/bench/multigpu/allreduce_straggler.py" "${EXTRA[@]}"
step straggler_analyze 60 "$RP" analyze "$W/straggler/runs/run-1" -o "$W/straggler/ranks" --perfetto --json
step straggler_terminal 60 "$RP" analyze "$W/straggler/runs/run-1" -o "$W/straggler/ranks_terminal"
# (b2) --rank-wrapper inside the launcher (torchrun --no-python runs rocm-perf as each rank's program).
step wrapper 150 "${TR[@]}" --no-python "$RP" profile --rank-wrapper --timeout 140 -o "$W/wrapper" -- \
  "$PY" "$ROOT/bench/multigpu/allreduce_straggler.py" "${EXTRA[@]}"
step wrapper_analyze 60 "$RP" analyze "$W/wrapper" -o "$W/wrapper/analysis" --json
# (c) split / merge over (b1)'s rank databases.
if [ $DRY = 0 ]; then
  n=0; merge=()
  while IFS= read -r db; do
    step "summary_$n" 60 "$RP" analyze --ranks "$db" --rank-summary "$W/summary_$n.json"
    merge+=("$W/summary_$n.json"); n=$((n + 1))
  done < <(find "$W/straggler/runs/run-1" -name '*.db' | sort)
  [ $n -gt 0 ] && step merged 60 "$RP" analyze --merge-summaries "${merge[@]}" -o "$W/merged" --json
fi

if [ $DRY = 1 ]; then echo "dry run: no checks"; rm -rf "$W"; exit 0; fi
[ -s "$W/straggler_terminal.out" ] && { echo "== terminal summary of (b1)"; cat "$W/straggler_terminal.out"; }
"$PY" "$ROOT/bench/multigpu/check_multi.py" "$W" $([ $SINGLE = 1 ] && echo --single-gpu) || FAILS=$((FAILS + 1))
(cd "$W" && tar -czf "$OUT/multigpu.tar.gz" --exclude='*.rplspill' . 2>/dev/null)
ls -la "$OUT"
echo "failures: $FAILS"
rm -rf "$W"
[ $FAILS = 0 ]
