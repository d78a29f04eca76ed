#!/usr/bin/env bash
# The GPU proof of issue 12 (parts 1 and 3), in one go on an NVIDIA GPU (H100, CUDA 13, PyTorch; 16 cores):
#   RPL_BIN_DIR=$PWD/.devbuild/lib OUT=/some/dir bash bench/capture-sweep/gpu_sweep.sh
# RPL_BIN_DIR: a folder holding rocm-perf, librpl_cuda_capture.so, rpl_replay_cuda, librpl_cuda_collector.so and
# their libraries (scripts/gpu/stage_all.sh); the GPU machine cannot build them.
# 1. `rocm-perf capture --all-kernels` on one run of a training step, by default our bf16 transformer (bench/workloads/train_step.py: embedding,
#    SDPA flash attention, layer norm, GELU MLP GEMMs, cross-entropy, backward, AdamW): the first launch of every
#    distinct kernel, each into its own capture directory;
# 2. every captured kernel replayed in a fresh process (`rocm-perf replay full-vm --json`; several at once: only
#    the verification is used from these);
# 3. `rocm-perf profile` of the same step (in-app durations), then for >= 12 kernels spanning the kernel classes,
#    `replay --cache warm` and `--cache cold`, one at a time (timings);
# 4. bench/capture-sweep/sweep_table.py builds the tables.
# 5. the same sweep on a Triton JIT kernel (bench/workloads/triton_softmax.py), time permitting.
# $OUT (7 files): sweep.log, index.json, sweep_table.md, sweep_table.json, inapp.json, triton_table.md,
# capture-sweep.tar.gz (replay documents, stderr logs, manifests, the captures' logs). Work folder $WORK (default /tmp/rpl-capture-sweep; the
# captures are large). Finishes in under 6 minutes (about 350 s at worst): every phase has a time limit or a
# deadline (seconds after start) past which it starts nothing new; kernels left out are listed as "not_replayed".
# The capture respects CUDA_MODULE_LOADING from the environment (default: rocm-perf capture sets EAGER).
# DRY=1: no GPU, no rocm-perf: a stand-in produces fake outputs, to check the script's own logic.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/capture-sweep"
: "${OUT:?set OUT to the output folder}"
W="${WORK:-/tmp/rpl-capture-sweep}"
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee -a "$OUT/sweep.log") 2>&1
T0=$(date +%s)
CAPTURE_TIMEOUT=${CAPTURE_TIMEOUT:-140}      # the capture run's own limit
VERIFY_END=${VERIFY_END:-215}                # no verification replay starts after this
VERIFY_JOBS=${VERIFY_JOBS:-4}                # verification replays at once (separate processes, separate VA spaces)
TIMING_END=${TIMING_END:-295}                # no timing replay starts after this
TRITON_START=${TRITON_START:-290}            # the Triton JIT sweep runs only if it can start before this
TIMING_COUNT=${TIMING_COUNT:-12}             # kernels timed warm and cold
TIMING_ITERS=${TIMING_ITERS:-20}
TIMING_VARIANTS=${TIMING_VARIANTS:-"warm cold warm-nowarmup cold-nowarmup warm-b2b cold-data"}  # the first two make the band
MAX_KERNELS=${MAX_KERNELS:-0}                # 0: every kernel
# The training step, small enough that a capture of all live memory stays ~100 MB, large enough for real kernels.
# WORKLOAD and MODEL pick another step that takes --steps and --warmup: the convolutional one
# (WORKLOAD=bench/workloads/cnn_step.py MODEL="--batch 16 --size 32", cuDNN's kernels).
WORKLOAD=${WORKLOAD:-bench/workloads/train_step.py}
MODEL=${MODEL:-"--layers 2 --d-model 256 --heads 4 --seq 256 --batch 4 --vocab 4096"}
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
pack() {
  # The profile's database too (in-app durations, neighbours of each kernel: what the timing comparison rests on).
  (cd "$W" && find . \( \( \( -name '*.json' -o -name '*.rc' -o -name '*.stderr' -o -name '*.log' -o -name '*.txt' \
      -o -name '*.jsonl' -o -name '*.tsv' \) -not -path './profile/*' -size -4M \) -o \( -path './profile/*' -name '*.db' \
      -size -40M \) \) -print0 |
    tar --null -czf "$OUT/capture-sweep.tar.gz" -T -) || true
  for f in index.json sweep_table.md sweep_table.json inapp.json triton_table.md; do [ -e "$W/$f" ] && cp "$W/$f" "$OUT/$f"; done
  ls -la "$OUT"
}
fail() { say "FATAL: $*"; pack; exit 1; }

if [ "${DRY:-0}" = 1 ]; then
  RP="$HERE/dry_rocm_perf.py"
  PY=python3
else
  [ -n "${RPL_BIN_DIR:-}" ] || fail "set RPL_BIN_DIR to the staged binaries (scripts/gpu/stage_all.sh DEST; DEST/lib)"
  RP="$RPL_BIN_DIR/rocm-perf"
  export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -x "$RP" ] || fail "no rocm-perf at $RP"
  for f in librpl_cuda_collector.so librpl_cuda_capture.so rpl_replay_cuda; do
    [ -e "$RPL_BIN_DIR/$f" ] || fail "$f is missing from $RPL_BIN_DIR"
  done
  say "host $(hostname), $(nproc) cores"
  nvidia-smi -L || fail "nvidia-smi: no NVIDIA GPU visible"
  PY=python3
  $PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))" ||
    fail "python3 with torch and a GPU is needed"
fi
"$RP" --version || true

# ---------------------------------------------------------------- 1. capture every kernel
say "capture --all-kernels of one training step (first launch of each distinct kernel)"
"$RP" capture --all-kernels --max-kernels "$MAX_KERNELS" --timeout "$CAPTURE_TIMEOUT" -o "$W/sweep" -- \
  $PY "$ROOT/$WORKLOAD" --steps 1 --warmup 0 $MODEL >"$W/capture.txt" 2>"$W/capture.stderr"
rc=$?
say "capture exit $rc"; cat "$W/capture.txt"; tail -5 "$W/capture.stderr"
[ -s "$W/sweep/index.json" ] || fail "no index.json (capture exit $rc; capture.stderr)"
cp "$W/sweep/index.json" "$W/index.json"
cp "$W/sweep/sweep_log.jsonl" "$W/sweep_log.jsonl" 2>/dev/null
du -sh "$W/sweep" | sed 's/^/  captures on disk: /'
mapfile -t DIRS < <($PY -c "import json,sys; [print(k['dir']) for k in json.load(open(sys.argv[1]))['kernels'] if k['status']=='captured']" "$W/sweep/index.json")
say "${#DIRS[@]} kernels captured"

# ---------------------------------------------------------------- 2. replay each in a fresh process
mkdir -p "$W/replays"
verify_one() {  # DIR: one fresh-process replay; skipped past the deadline (the table lists it as not_replayed)
  local d=$1
  [ "$(elapsed)" -lt "$VERIFY_END" ] || return 0
  "$RP" replay full-vm --capture-dir "$W/sweep/$d" --json --iterations 3 --timeout 40 \
    >"$W/replays/$d.json" 2>"$W/replays/$d.stderr"
  echo $? >"$W/replays/$d.rc"
}
export -f verify_one elapsed
export RP W VERIFY_END T0
say "verification replays, $VERIFY_JOBS at a time"
printf '%s\n' "${DIRS[@]}" | xargs -r -P "$VERIFY_JOBS" -I{} bash -c 'verify_one "$@"' _ {}
say "verification replays done: $(ls "$W/replays"/*.rc 2>/dev/null | wc -l) of ${#DIRS[@]}"
$PY "$HERE/sweep_table.py" table --index "$W/sweep/index.json" --replays "$W/replays" --md "$W/sweep_table.md" \
  --json "$W/sweep_table.json" || fail "sweep_table.py table failed"

# ---------------------------------------------------------------- 3. in-app durations, warm/cold replays
say "profile of the same training step (in-app durations)"
"$RP" profile --runs 1 --no-html --timeout 60 -o "$W/profile" -- \
  $PY "$ROOT/$WORKLOAD" --steps 5 --warmup 2 $MODEL >"$W/profile.txt" 2>"$W/profile.stderr" ||
  say "profile failed (profile.stderr): no timing comparison"
cp "$W/profile/profile.json" "$W/profile_summary.json" 2>/dev/null
$PY "$HERE/sweep_table.py" inapp --profile "$W/profile" --index "$W/sweep/index.json" --out "$W/inapp.json" ||
  say "in-app durations not available"
mkdir -p "$W/timing"
if [ -s "$W/inapp.json" ]; then
  mapfile -t TIMED < <($PY "$HERE/sweep_table.py" select --index "$W/sweep/index.json" --replays "$W/replays" \
                          --inapp "$W/inapp.json" --count "$TIMING_COUNT")
  say "timing ${#TIMED[@]} kernels, warm and cold, one at a time"
  for d in "${TIMED[@]}"; do
    for variant in $TIMING_VARIANTS; do
      [ "$(elapsed)" -lt "$TIMING_END" ] || { say "timing deadline reached"; break 2; }
      # Variants beside the two modes, for the record: warm-b2b (RPL_REPLAY_WARM=back-to-back: launches back to
      # back, no flush, no read-in), cold-data (RPL_REPLAY_COLD=data: L2 flushed, the instruction caches kept),
      # warm-nowarmup and cold-nowarmup (--warmup-ms 0: the timed launches start on a GPU that was idle),
      # warm-io (RPL_REPLAY_WARM=inputs-outputs, now the default: what the kernel writes read in as well).
      # (The settle variants went with the RPL_REPLAY_SETTLE_US knob, measured nil; their raw files stay.)
      args=()
      case $variant in
        warm-b2b) mode=warm; envs=(RPL_REPLAY_WARM=back-to-back) ;;
        warm-io) mode=warm; envs=(RPL_REPLAY_WARM=inputs-outputs) ;;
        cold-data) mode=cold; envs=(RPL_REPLAY_COLD=data) ;;
        *-nowarmup) mode=${variant%-nowarmup}; envs=(); args=(--warmup-ms 0) ;;
        *) mode=$variant; envs=() ;;
      esac
      env "${envs[@]}" "$RP" replay full-vm --capture-dir "$W/sweep/$d" --json --cache "$mode" --iterations "$TIMING_ITERS" "${args[@]}" \
        --timeout 20 >"$W/timing/$d.$variant.json" 2>"$W/timing/$d.$variant.stderr"
      echo $? >"$W/timing/$d.$variant.rc"
    done
  done
fi

# ---------------------------------------------------------------- 3b. a Triton JIT kernel (cuModuleLoadData)
if [ "$(elapsed)" -lt "$TRITON_START" ]; then
  say "capture --all-kernels of the Triton softmax (JIT-compiled, loaded with cuModuleLoadData)"
  "$RP" capture --all-kernels --timeout 35 -o "$W/triton" -- \
    $PY "$ROOT/bench/workloads/triton_softmax.py" --rows 4096 --cols 1024 --launches 2 >"$W/triton_capture.txt" 2>"$W/triton_capture.stderr"
  say "triton capture exit $?"; cat "$W/triton_capture.txt"
  if [ -s "$W/triton/index.json" ]; then
    mkdir -p "$W/triton_replays"
    for d in $($PY -c "import json,sys; [print(k['dir']) for k in json.load(open(sys.argv[1]))['kernels'] if k['status']=='captured']" "$W/triton/index.json"); do
      "$RP" replay full-vm --capture-dir "$W/triton/$d" --json --iterations 3 --timeout 20 \
        >"$W/triton_replays/$d.json" 2>"$W/triton_replays/$d.stderr"
      echo $? >"$W/triton_replays/$d.rc"
    done
    $PY "$HERE/sweep_table.py" table --index "$W/triton/index.json" --replays "$W/triton_replays" \
      --md "$W/triton_table.md" --json "$W/triton_table.json" || say "triton table failed"
  fi
else
  say "no time left for the Triton sweep"
fi

# ---------------------------------------------------------------- 4. tables
$PY "$HERE/sweep_table.py" table --index "$W/sweep/index.json" --replays "$W/replays" --inapp "$W/inapp.json" \
  --timing "$W/timing" --md "$W/sweep_table.md" --json "$W/sweep_table.json" || fail "sweep_table.py table failed"
cat "$W/sweep_table.md" | head -60
say "done"
pack
