#!/usr/bin/env bash
# Runs several GPU proof scripts in one device call, each in its own output folder with its own time limit, and
# packs each folder into one tarball so the call's few returned files hold everything:
#   OUT=/dir RPL_BIN_DIR=$PWD/.devbuild/lib scripts/gpu/batch.sh NAME:SECONDS:SCRIPT[:ENV=VAL,...] ...
# e.g. scripts/gpu/batch.sh sweep:330:bench/capture-sweep/gpu_sweep.sh llm:150:bench/optimize/llm_gpu_suite.sh:KINDS=genuine
# Writes $OUT/NAME.tar.gz per phase and $OUT/batch.log (each phase's exit status, time and the last lines it printed).
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries (scripts/gpu/stage_all.sh)}"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
WORK=${BATCH_WORK:-${TMPDIR:-/tmp}/rpl-batch}
mkdir -p "$OUT" "$WORK"
log() { echo "$*" | tee -a "$OUT/batch.log"; }
log "batch on $(hostname), $(date -u +%FT%TZ), $(nvidia-smi -L | wc -l) GPU(s)"
. "$(dirname "$0")/staged_commit.sh"
log "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
for spec in "$@"; do
  IFS=: read -r name limit script envs <<<"$spec"
  dir="$WORK/$name"; rm -rf "$dir"; mkdir -p "$dir"
  t0=$(date +%s)
  envargs=()
  [ -n "${envs:-}" ] && IFS=, read -ra envargs <<<"$envs"
  env "${envargs[@]}" OUT="$dir" timeout -k 10 "$limit" bash "$script" >"$dir/stdout.log" 2>&1
  rc=$?
  log "== $name: exit $rc after $(( $(date +%s) - t0 )) s (limit $limit s; $script ${envs:-})"
  tail -n 25 "$dir/stdout.log" | sed 's/^/   /' | tee -a "$OUT/batch.log"
  tar -czf "$OUT/$name.tar.gz" -C "$WORK" "$name" 2>/dev/null || log "   (tar of $name failed)"
done
ls -la "$OUT"
