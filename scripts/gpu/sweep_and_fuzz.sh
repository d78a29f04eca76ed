#!/usr/bin/env bash
# One device call doing two things at once: GPU proofs (scripts/gpu/batch.sh phases, e.g. issue 12's sweep) on
# the GPU, and the long fuzzing campaign of issue 19 (a folder made by fuzz/stage.sh) on the CPU cores they
# leave, at lower priority so the GPU work's own CPU side is not starved.
#   OUT=/dir RPL_BIN_DIR=$PWD/.devbuild/lib FUZZ_DIR=/tmp/rpl-fuzz [FUZZ_SECONDS=520] [FUZZ_CORES=nproc-4] \
#     scripts/gpu/sweep_and_fuzz.sh NAME:SECONDS:SCRIPT[:ENV=VAL,...] ...
# FUZZ_TARGETS, FUZZ_WEIGHTS, FUZZ_CORPUS_IN, FUZZ_WORK pass through to long_run.sh. Without FUZZ_DIR only the
# batch runs; without phases only the fuzzing. Writes $OUT/batch/ (batch.sh's output) and $OUT/fuzz/
# (long_run.sh's), and $OUT/sweep_and_fuzz.log.
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/batch" "$OUT/fuzz"
log() { echo "[$(date -u +%T)] $*" | tee -a "$OUT/sweep_and_fuzz.log"; }
log "host $(hostname), $(nproc) cores, phases: ${*:-none}, fuzz: ${FUZZ_DIR:-none}"
. "$here/staged_commit.sh"
[ -n "${RPL_BIN_DIR:-}" ] && log "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
[ -n "${FUZZ_DIR:-}" ] && log "fuzz binaries: $(cat "$FUZZ_DIR/STAGED_FROM" 2>/dev/null || echo "unknown (no STAGED_FROM in $FUZZ_DIR: not staged by fuzz/stage.sh)")"
pids=()
if [ $# -gt 0 ]; then
  OUT="$OUT/batch" bash "$here/batch.sh" "$@" >"$OUT/batch/stdout.log" 2>&1 &
  pids+=($!)
fi
if [ -n "${FUZZ_DIR:-}" ]; then
  [ -x "$FUZZ_DIR/long_run.sh" ] || { log "no $FUZZ_DIR/long_run.sh (fuzz/stage.sh makes it)"; exit 2; }
  cores=${FUZZ_CORES:-$(( $(nproc) > 6 ? $(nproc) - 4 : 2 ))}
  log "fuzzing on $cores cores for ${FUZZ_SECONDS:-520} s: ${FUZZ_TARGETS:-every target}"
  LONG_SECONDS=${FUZZ_SECONDS:-520} FUZZ_CORES=$cores OUT="$OUT/fuzz" \
    nice -n 10 bash "$FUZZ_DIR/long_run.sh" >"$OUT/fuzz/long_run.log" 2>&1 &
  pids+=($!)
fi
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
log "done (exit $rc)"
[ -s "$OUT/fuzz/fuzz_summary.txt" ] && cat "$OUT/fuzz/fuzz_summary.txt" | tee -a "$OUT/sweep_and_fuzz.log"
exit $rc
