#!/usr/bin/env bash
# Issue 32's equivalence proof on traces recorded on GPUs (not generated): OLD and NEW binaries run `analyze` on
# every database the committed GPU runs hold (PyTorch training steps and a host-bound loop on an H100, the
# multistream example, a cuBLAS/cuDNN job on an H200, a 2-rank NCCL job on two H200s: each rank alone and the
# ranks' folder together) with --slack-db, and every output is compared field by field
# (bench/compare_analyze_outputs.py), report.html and the --slack-db tables byte for byte. No GPU needed.
#   bench/analyze_equivalence_recorded.sh OLD_BIN NEW_BIN     (exits 1 on any difference)
#   bench/analyze_equivalence_recorded.sh --compare-one OLD_BIN NEW_BIN INPUT   (one database or folder)
set -euo pipefail
ONE=""
if [ "${1:-}" = --compare-one ]; then ONE=$4; shift; fi
OLD=$1 NEW=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpl-equiv-rec-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/machine_header.sh"
bench_header "bench/analyze_equivalence_recorded.sh $OLD $NEW"
echo "# old: $OLD; new: $NEW"
status=0
# compare NAME INPUT...: analyze the inputs with both binaries and compare
compare() {
  local name=$1
  shift
  echo "## $name: analyze ${*#$WORK/} -o DIR --quiet --slack-db FILE"
  rm -rf "$WORK/old" "$WORK/new" "$WORK"/*.slack.db
  local rc_old=0 rc_new=0
  "$OLD" analyze "$@" -o "$WORK/old" --quiet --slack-db "$WORK/old.slack.db" >/dev/null 2>"$WORK/old.err" || rc_old=$?
  "$NEW" analyze "$@" -o "$WORK/new" --quiet --slack-db "$WORK/new.slack.db" >/dev/null 2>"$WORK/new.err" || rc_new=$?
  if [ "$rc_old" != "$rc_new" ]; then echo "DIFFERENT exit status: old $rc_old, new $rc_new"; status=1; return; fi
  if [ "$rc_old" != 0 ]; then echo "both exit $rc_old (same)"; return; fi
  # which schedule NEW took: the streamed passes, or the per-node arrays (submission order not topological)
  # (the log is read whole: a grep -q on the pipe would end it early, and pipefail would read the broken pipe as no match)
  local log
  log=$("$NEW" analyze "$@" -o "$WORK/dbg" --quiet --debug 2>&1 >/dev/null || true)
  if grep -q "not a topological order" <<<"$log"; then
    echo "new: critical path on per-node arrays (fallback)"
  else
    echo "new: critical path streamed (or a folder of ranks)"
  fi
  if [ -f "$WORK/old/profile.json" ]; then
    python3 "$ROOT/bench/compare_analyze_outputs.py" "$WORK/old" "$WORK/new" || status=1
  else  # a folder of ranks: multi_rank.json and multi_rank.html, compared byte for byte
    diff -r "$WORK/old" "$WORK/new" >/dev/null && echo "$(cd "$WORK/old" && ls | tr '\n' ' ')byte-identical" || { echo "outputs DIFFERENT"; status=1; }
  fi
  if [ -f "$WORK/old.slack.db" ]; then  # byte for byte, as bench/analyze_equivalence.sh compares it
    cmp -s "$WORK/old.slack.db" "$WORK/new.slack.db" && echo "slack table: identical bytes" || { echo "slack table: DIFFERS"; status=1; }
  fi
}
if [ -n "$ONE" ]; then
  compare "$(basename "$ONE")" "$ONE"
  exit $status
fi
R=$ROOT/bench/results
mkdir -p "$WORK/h100" "$WORK/liblog" "$WORK/nccl"
tar -xzf "$R/2026-11-25/cuda/analysis_truth_gpu/analysis_truth.tar.gz" -C "$WORK/h100"
tar -xzf "$R/2026-11-29/cuda/library_logging_gpu_c1a6cf7/library_logging_outputs.tar.gz" -C "$WORK/liblog"
tar -xzf "$R/2026-11-29/multigpu/comm_preset_2gpu/attempt4-afc4627/comm2.tar.gz" -C "$WORK/nccl"
while IFS= read -r db; do
  compare "$(echo "${db#$WORK/}" | tr / _)" "$db"
done < <(find "$WORK/h100" "$WORK/liblog" "$WORK/nccl/comm2/launcher" "$WORK/nccl/comm2/ranks" -name '*.db' | sort)
compare nccl_ranks_folder "$WORK/nccl/comm2/ranks/ranks"
compare nccl_launcher_run "$WORK/nccl/comm2/launcher/runs/run-1/rocpd/vm"
echo "# equivalence on recorded traces: $([ $status = 0 ] && echo 'every output equal' || echo 'DIFFERENCES above')"
exit $status
