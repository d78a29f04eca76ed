#!/usr/bin/env bash
# The GPU check of issue 12 parts 2 and 3 (replay verification of nondeterministic kernels; --cache warm|cold),
# in one go on an NVIDIA GPU, in about a minute:
#   RPL_BIN_DIR=/staged/lib OUT=/some/dir bash bench/replay-proof/nondet_cache.sh      [DRY=1: print the plan only]
# RPL_BIN_DIR: a folder holding rocm-perf, librpl_cuda_capture.so, rpl_replay_cuda and their libraries
# (scripts/gpu/stage_all.sh puts them in DEST/lib). nvcc builds the testbed (nondet_cache.cu) here.
# 1. the testbed alone: in-application time of `scale` (warm: its input was just written by `produce`);
# 2. capture atomic_bins (float atomicAdd: nondeterministic) and scale;
# 3. atomic_bins replayed: --verify-replays 2 (must be "nondeterministic", exit 0), 5, and 1 (the old
#    behaviour: one replay against the capture, a mismatch, exit 13); the terminal summary (wall time, cache);
#    a perturbed build (--code-object: bin 0 off by 64) must stay a mismatch, exit 13, beside the noise;
# 4. scale replayed in 3 fresh processes per cache mode (--cache warm / --cache cold, 50 iterations each);
# 5. check_nondet_cache.py judges everything: PASS/FAIL lines, figures in summary.txt.
# $OUT gets: nondet_cache.log, summary.txt, results.tar.gz (every replay document, stderr and exit status).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to the output folder}"
W="${WORK:-/tmp/rpl-nondet-cache}"
HERE="$ROOT/bench/replay-proof"
if [ -n "${DRY:-}" ]; then
  RP="echo rocm-perf"
else
  : "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and its libraries}"
  RP="$RPL_BIN_DIR/rocm-perf"
  export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
rm -rf "$W"; mkdir -p "$W/res" "$OUT"
exec > >(tee -a "$OUT/nondet_cache.log") 2>&1
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
pack() { (cd "$W" && tar -czf "$OUT/results.tar.gz" res) || true; ls -la "$OUT"; }
fatal() { say "FATAL: $*"; pack; exit 1; }
# run NAME CMD...: the command's stdout to res/NAME.out, stderr to res/NAME.err, exit status to res/NAME.rc
run() {
  local name="$1"; shift
  "$@" >"$W/res/$name.out" 2>"$W/res/$name.err"
  echo $? >"$W/res/$name.rc"
  say "$name: exit $(cat "$W/res/$name.rc")"
}

if [ -z "${DRY:-}" ]; then
  nvidia-smi -L || fatal "nvidia-smi: no NVIDIA GPU visible"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  command -v nvcc >/dev/null || fatal "nvcc is not on PATH"
  [ -x "$RP" ] || fatal "no rocm-perf in $RPL_BIN_DIR"
  for f in librpl_cuda_capture.so rpl_replay_cuda; do [ -e "$RPL_BIN_DIR/$f" ] || fatal "$f is missing in $RPL_BIN_DIR"; done
  CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  say "building the testbed for sm_$CC"
  nvcc -O2 -arch="sm_$CC" -o "$W/nondet_cache" "$HERE/nondet_cache.cu" || fatal "nvcc failed (testbed)"
  nvcc -cubin -arch="sm_$CC" -DNONDET_KERNELS_ONLY -DNONDET_PERTURB -o "$W/perturbed.cubin" "$HERE/nondet_cache.cu" ||
    fatal "nvcc failed (perturbed cubin)"
  "$W/nondet_cache" 30 >"$W/res/app.out" 2>&1 || fatal "the testbed failed: $(tail -3 "$W/res/app.out")"
  say "testbed: $(tail -1 "$W/res/app.out")"
  # In-app kernel times as our collector records them (CUPTI kernel activity), the source replay times use too;
  # the testbed's own CUDA-event times (RPL_INAPP lines above) include the launch latency and are only logged.
  "$RP" profile --runs 1 -o "$W/inapp" -- "$W/nondet_cache" 30 >"$W/res/profile.out" 2>&1 ||
    fatal "profiling the testbed failed: $(tail -3 "$W/res/profile.out")"
  python3 - "$W/inapp" >"$W/res/app_cupti.out" <<'PY' || fatal "no scale dispatches in the profile"
import glob, sqlite3, sys
rows = []
for db in sorted(glob.glob(sys.argv[1] + "/runs/**/*.db", recursive=True)):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows += c.execute("SELECT start, duration FROM kernels WHERE name LIKE 'scale%' OR name LIKE '_Z5scale%' ORDER BY start").fetchall()
if not rows:
    sys.exit(1)
for _, d in rows:
    print(f"RPL_INAPP scale {d}")
PY
fi
APP="$W/nondet_cache"

say "capturing atomic_bins (launch 2) and scale (launch 3)"
run capture-atomic $RP capture --timeout 120 --kernel '^atomic_bins$' --dispatch 2 -o "$W/cap-atomic" -- "$APP" 3
run capture-scale $RP capture --timeout 120 --kernel '^scale$' --dispatch 3 -o "$W/cap-scale" -- "$APP" 4
[ -n "${DRY:-}" ] || [ "$(cat "$W/res/capture-atomic.rc")" = 0 ] || fatal "capture of atomic_bins failed: $(tail -5 "$W/res/capture-atomic.err")"

say "atomic_bins: verification with 2, 5 and 1 replays; the perturbed build"
run atomic-v2 $RP replay full-vm --timeout 120 --capture-dir "$W/cap-atomic" --iterations 10 --json
run atomic-v5 $RP replay full-vm --timeout 120 --capture-dir "$W/cap-atomic" --iterations 10 --verify-replays 5 --json
run atomic-v1 $RP replay full-vm --timeout 120 --capture-dir "$W/cap-atomic" --iterations 10 --verify-replays 1 --json
run atomic-text $RP replay full-vm --timeout 120 --capture-dir "$W/cap-atomic" --iterations 10
run atomic-perturbed $RP replay full-vm --timeout 120 --capture-dir "$W/cap-atomic" --code-object "$W/perturbed.cubin" --json
cat "$W/res/atomic-text.out"

say "scale: 3 fresh processes per cache mode, 50 iterations each"
for mode in warm cold; do
  for i in 1 2 3; do
    run "scale-$mode-$i" $RP replay full-vm --timeout 120 --capture-dir "$W/cap-scale" --iterations 50 --cache "$mode" --json
  done
done
run scale-text-cold $RP replay full-vm --timeout 120 --capture-dir "$W/cap-scale" --iterations 50 --cache cold
cat "$W/res/scale-text-cold.out"

if [ -n "${DRY:-}" ]; then say "dry run: plan printed, nothing checked"; exit 0; fi
python3 "$HERE/check_nondet_cache.py" "$W/res" | tee "$OUT/summary.txt"
STATUS=${PIPESTATUS[0]}
say "done in $(( $(date +%s) - T0 )) s, checker exit $STATUS"
pack
exit "$STATUS"
