#!/usr/bin/env bash
# Issue 27's batch wrong reject (2026-11-29, corpus case saxpy_unrolled): a batch job's dump of an in-place kernel
# (y = a*x + y) held two launches' result. Suspected cause: the runner's pristine copies (cuMemcpyDtoD) and the
# clearing of a kept range (cuMemsetD8) run on the legacy stream and return before the device has done them, while
# the launches go to a non-blocking stream, so a launch could run before the pristine copy was taken.
# This script replays one captured saxpy launch many times in batches, with the runner before the fix ($PRE) and
# after it (the staged rpl_replay_cuda), alternately, while other processes keep the GPU busy (context switches are
# when the race can show), and counts the jobs whose dump differs from a lone replay's.
#   OUT=/dir RPL_BIN_DIR=.devbuild/lib PRE=/path/to/rpl_replay_cuda_pre [ROUNDS=2] [JOBS=40] [HOGS=2] \
#     bash bench/optimize/batch_race_gpu.sh
# Writes $OUT/env.txt, $OUT/race.tsv (round, runner, jobs, jobs whose dump differs, batch exit, seconds) and
# $OUT/summary.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR}" "${PRE:?set PRE to the runner built before the fix}"
ROUNDS=${ROUNDS:-2} JOBS=${JOBS:-40} HOGS=${HOGS:-2}
W=${WORK:-/tmp/rpl-batch-race}
rm -rf "$W"; mkdir -p "$W" "$OUT"
RP="$RPL_BIN_DIR/rocm-perf" FIXED="$RPL_BIN_DIR/rpl_replay_cuda"
. "$ROOT/scripts/gpu/staged_commit.sh"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | head -1)"
  echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
  echo "pre-fix runner: $PRE ($(sha256sum "$PRE" | cut -c1-16)); fixed runner: $FIXED ($(sha256sum "$FIXED" | cut -c1-16))"
  echo "command: ROUNDS=$ROUNDS JOBS=$JOBS HOGS=$HOGS bash bench/optimize/batch_race_gpu.sh"
} | tee "$OUT/env.txt"
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
nvcc -O3 -arch="sm_$CC" -o "$W/dense" "$ROOT/bench/optimize/corpus/dense.cu" >"$W/build.log" 2>&1 || { cat "$W/build.log"; exit 1; }
"$RP" capture --quiet --kernel '(^|[^A-Za-z0-9_])saxpy(<|\(|$)' -o "$W/cap" -- "$W/dense" >"$W/capture.log" 2>&1 ||
  { cat "$W/capture.log"; exit 1; }
TIMING=(--cache warm --verify-replays 2 --warmup-ms 25)
"$FIXED" full-vm --capture-dir "$W/cap" --result "$W/ref.json" --dump-dir "$W/ref" "${TIMING[@]}" >"$W/ref.log" 2>&1 ||
  { echo "lone reference replay failed:"; cat "$W/ref.log"; exit 1; }

# The GPU kept busy by other processes: the app itself in a loop, and a long matmul loop.
hog_pids=()
for h in $(seq 1 "$HOGS"); do
  if [ $((h % 2)) -eq 1 ]; then
    (while :; do "$W/dense" >/dev/null 2>&1; done) &
  else
    python3 -c "import torch
a = torch.randn(8192, 8192, device='cuda')
while True:
    b = a @ a
    torch.cuda.synchronize()" >/dev/null 2>&1 &
  fi
  hog_pids+=($!)
done
trap 'kill "${hog_pids[@]}" 2>/dev/null; pkill -f "$W/dense" 2>/dev/null' EXIT
sleep 3

printf 'round\trunner\tjobs\tdumps_differing\tbatch_exit\tseconds\n' >"$OUT/race.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for which in pre fixed; do
    runner=$PRE; [ "$which" = fixed ] && runner=$FIXED
    d="$W/$which/$round"; mkdir -p "$d"
    python3 - "$W/cap" "$d" "$JOBS" >"$d/jobs.json" <<'EOF'
import json, sys
cap, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(json.dumps({"jobs": [{"capture_dir": cap, "code_object": "", "dump_dir": f"{d}/j{k}", "iterations": 1,
                            "verify_replays": 2, "result": f"{d}/j{k}.json"} for k in range(n)]}))
EOF
    t0=$(date +%s.%N)
    "$runner" full-vm --jobs "$d/jobs.json" --status "$d/status.txt" "${TIMING[@]}" >"$d/batch.log" 2>&1
    rc=$?
    secs=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { print a - b }')
    bad=0
    for k in $(seq 0 $((JOBS - 1))); do
      diff -rq "$W/ref" "$d/j$k" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "$which round $round job $k differs" >>"$OUT/differing.txt"; }
    done
    printf '%s\t%s\t%s\t%s\t%s\t%.1f\n' "$round" "$which" "$JOBS" "$bad" "$rc" "$secs" | tee -a "$OUT/race.tsv"
    rm -rf "$d"/j*/  # the dumps (16 MiB a region); results and logs stay
  done
done
awk -F'\t' 'NR > 1 { jobs[$2] += $3; bad[$2] += $4 } END { for (r in jobs) printf "%s: %d of %d dumps differ from the lone replay\n", r, bad[r], jobs[r] }' \
  "$OUT/race.tsv" | sort | tee "$OUT/summary.txt"
mkdir -p "$OUT/results" && cp "$W"/fixed/1/j0.json "$OUT/results/fixed-r1-j0.json" 2>/dev/null; cp "$W"/pre/1/j0.json "$OUT/results/pre-r1-j0.json" 2>/dev/null
true
