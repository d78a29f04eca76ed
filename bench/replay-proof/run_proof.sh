#!/usr/bin/env bash
# The capture/replay proof on an NVIDIA GPU, through the real CLI: for each case, `rocm-perf capture` one launch,
# `rocm-perf replay reserve-check`, REPS x `rocm-perf replay full-vm --iterations ITERS --json` (each a fresh
# process), and `rocm-perf profile` of the application for the in-application kernel time; then the checks
# (bit-exact REPS/REPS, median time within +-3%), --no-recopy on an accumulating kernel, --code-object with a
# rebuilt cubin (and with a deliberately different kernel, which must be reported as a mismatch), and a relocated
# range (exit 12). Skips without a GPU.
# Logs and figures go to --out; captures, profiles and memory dumps (large) to --work.
#   bench/replay-proof/run_proof.sh --devbuild DIR --out DIR [--work DIR] [--reps 20] [--iters 20]
#                                   [--cases "chase extra attention torch_add torch_gemm"]
# ("extra" needs "chase" before it.)
set -u
REPS=20; ITERS=20; CASES="chase extra attention torch_add torch_gemm"; WORK=/tmp/rpl-replay-proof
while [ $# -gt 0 ]; do case "$1" in
  --devbuild) DEVBUILD="$2"; shift 2 ;; --out) OUT="$2"; shift 2 ;; --reps) REPS="$2"; shift 2 ;; --work) WORK="$2"; shift 2 ;;
  --iters) ITERS="$2"; shift 2 ;; --cases) CASES="$2"; shift 2 ;; *) echo "unknown argument $1" >&2; exit 2 ;; esac; done
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no NVIDIA GPU: capture/replay proof not run"; exit 0; fi
DEVBUILD=$(cd "$DEVBUILD" && pwd); mkdir -p "$OUT" "$WORK"; OUT=$(cd "$OUT" && pwd); WORK=$(cd "$WORK" && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$DEVBUILD/lib/rocm-perf"; BIN="$DEVBUILD/bin"; PROOF="$DEVBUILD/bench/replay-proof"; FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
echo "== environment"; date -u +"date %Y-%m-%dT%H:%M:%SZ"
. "$(dirname "$0")/../../scripts/gpu/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1

declare -A APP KERNEL DISPATCH
APP[chase]="$BIN/va_chase --iters=5";                 KERNEL[chase]='^_Z5chase';                   DISPATCH[chase]=3
APP[attention]="$BIN/attention --seq=8192 --iters=5"; KERNEL[attention]='softmax_rows';           DISPATCH[attention]=3
APP[torch_add]="python3 $PROOF/torch_elementwise.py"; KERNEL[torch_add]='vectorized_elementwise_kernel.*add'; DISPATCH[torch_add]=3
APP[torch_gemm]="python3 $PROOF/torch_gemm.py";       KERNEL[torch_gemm]='[Gg][Ee][Mm][Mm]';      DISPATCH[torch_gemm]=3

run_case() {
  local c="$1" rc t0 t1 i
  echo "== $c: capture launch ${DISPATCH[$c]} of /${KERNEL[$c]}/ from ${APP[$c]}"
  CAP="$WORK/captures/$c"; rm -rf "$CAP" "$OUT/$c" "$WORK/profiles/$c"; mkdir -p "$OUT/$c"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  "$RP" capture --timeout 300 --kernel "${KERNEL[$c]}" --dispatch "${DISPATCH[$c]}" -o "$CAP" -- ${APP[$c]} >"$OUT/$c/capture.txt" 2>"$OUT/$c/capture.err"
  rc=$?; t1=$(date +%s%N)
  cat "$OUT/$c/capture.txt"; echo "capture exit $rc, $(( (t1 - t0) / 1000000 )) ms, $(du -sh "$CAP" 2>/dev/null | cut -f1) on disk"
  if [ $rc -ne 0 ]; then fail "$c: capture exit $rc"; tail -20 "$OUT/$c/capture.err"; return; fi
  grep -h "rpl-capture" "$OUT/$c/capture.err" | tail -3
  "$RP" replay reserve-check --capture-dir "$CAP" >"$OUT/$c/reserve-check.txt" 2>&1; rc=$?
  head -3 "$OUT/$c/reserve-check.txt"; [ $rc -eq 0 ] || fail "$c: reserve-check exit $rc"
  t0=$(date +%s%N)
  for i in $(seq 1 "$REPS"); do
    "$RP" replay full-vm --timeout 180 --capture-dir "$CAP" --iterations "$ITERS" --json >"$OUT/$c/replay-$i.json" 2>"$OUT/$c/replay-$i.err"
    echo $? >"$OUT/$c/replay-$i.rc"
  done
  t1=$(date +%s%N); echo "$REPS replays in $(( (t1 - t0) / 1000000 )) ms"
  [ "$(cat "$OUT/$c/replay-1.rc")" = 0 ] || { echo "replay 1:"; tail -5 "$OUT/$c/replay-1.err"; }
  "$RP" replay full-vm --capture-dir "$CAP" --iterations "$ITERS" >"$OUT/$c/replay-text.txt" 2>&1; cat "$OUT/$c/replay-text.txt"
  # The cold-cache side of issue 12's band: in-app time must lie within [warm, cold] medians widened by 3%.
  "$RP" replay full-vm --timeout 180 --capture-dir "$CAP" --iterations "$ITERS" --cache cold --json >"$OUT/$c/cold.json" 2>/dev/null
  # For the record: the same launches without restoring memory in between (no restore traffic before a launch).
  "$RP" replay full-vm --timeout 180 --capture-dir "$CAP" --iterations "$ITERS" --no-recopy --json >"$OUT/$c/stateful.json" 2>/dev/null
  # shellcheck disable=SC2086
  "$RP" profile --timeout 300 --platform cuda --runs 1 -o "$WORK/profiles/$c" -- ${APP[$c]} >"$OUT/$c/profile.txt" 2>"$OUT/$c/profile.err" \
    || { fail "$c: rocm-perf profile failed"; tail -5 "$OUT/$c/profile.err"; }
  python3 "$PROOF/check_replays.py" --case "$c" --capture "$CAP" --replays "$OUT/$c" --profile "$WORK/profiles/$c" \
    | tee "$OUT/$c/check.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAILS=$((FAILS + 1))
}

run_extra() {
  local rc
  X="$OUT/extra"; rm -rf "$X" "$WORK/captures/accumulate" "$WORK/dump-norecopy"; mkdir -p "$X"
  echo "== --no-recopy: va_chase accumulate (dispatch 2), 7 stateful iterations"
  "$RP" capture --kernel '^_Z10accumulate' --dispatch 2 -o "$WORK/captures/accumulate" -- "$BIN/va_chase" --iters=3 \
    >"$X/accumulate-capture.txt" 2>"$X/accumulate-capture.err" || fail "accumulate capture: $(tail -3 "$X/accumulate-capture.err")"
  grep -h RPL_ACCUM "$X/accumulate-capture.err" > "$X/accumulate-app.txt"
  "$RP" replay full-vm --capture-dir "$WORK/captures/accumulate" --no-recopy --iterations 7 --dump-dir "$WORK/dump-norecopy" \
    >"$X/norecopy.txt" 2>&1; rc=$?; cat "$X/norecopy.txt"; [ $rc -eq 0 ] || fail "--no-recopy replay exit $rc"
  python3 "$PROOF/check_accumulate.py" --capture "$WORK/captures/accumulate" --dump "$WORK/dump-norecopy" \
    --app-stdout "$X/accumulate-app.txt" --iterations 7 || FAILS=$((FAILS + 1))
  "$RP" replay full-vm --capture-dir "$WORK/captures/accumulate" --iterations 5 >"$X/recopy.txt" 2>&1 \
    || fail "accumulate replay with restores: $(cat "$X/recopy.txt")"
  grep -q "bit-exact" "$X/recopy.txt" && echo "PASS: accumulate with restores between iterations is bit-exact" \
    || fail "accumulate with restores not bit-exact"

  echo "== --code-object: va_chase chase from a rebuilt cubin (ptxas -O1) and from a different kernel"
  if [ -d "$WORK/captures/chase" ]; then
    "$RP" replay full-vm --capture-dir "$WORK/captures/chase" --iterations 5 --json \
      --code-object "$BIN/va_chase_rebuilt.cubin" >"$X/rebuilt.json" 2>"$X/rebuilt.err"; rc=$?
    python3 -c "import json,sys; d=json.load(open('$X/rebuilt.json')); print(d['code_object'], d['verification']['status'], d['gpu_time_ns']['median'])"
    [ $rc -eq 0 ] && echo "PASS: rebuilt cubin replays bit-exact" || fail "rebuilt cubin: exit $rc $(tail -2 "$X/rebuilt.err")"
    "$RP" replay full-vm --capture-dir "$WORK/captures/chase" --code-object "$BIN/va_chase_perturbed.cubin" \
      >"$X/perturbed.txt" 2>&1; rc=$?; tail -3 "$X/perturbed.txt"
    [ $rc -eq 13 ] && echo "PASS: a different kernel is reported as a mismatch (exit 13)" || fail "perturbed cubin: exit $rc, expected 13"
    echo "== relocation: a copy of the chase capture with one range moved to an address the driver cannot give"
    rm -rf "$WORK/moved"; cp -r "$WORK/captures/chase" "$WORK/moved"
    python3 - "$WORK/moved/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = max(m["regions"], key=lambda r: r["size"])
r["address"] = "0x200000"  # 2 MiB: far below any GPU virtual address the driver hands out
json.dump(m, open(sys.argv[1], "w"))
PY
    "$RP" replay reserve-check --capture-dir "$WORK/moved" >"$X/moved.txt" 2>&1; rc=$?; head -4 "$X/moved.txt"
    [ $rc -eq 12 ] && echo "PASS: reserve-check reports the relocation (exit 12)" || fail "moved range: exit $rc, expected 12"
    "$RP" replay full-vm --capture-dir "$WORK/moved" >"$X/moved-full.txt" 2>&1; rc=$?; tail -1 "$X/moved-full.txt"
    [ $rc -eq 12 ] && echo "PASS: full-vm refuses to run at another address (exit 12)" || fail "moved range full-vm: exit $rc, expected 12"
  fi
}

for c in $CASES; do
  if [ "$c" = extra ]; then run_extra; else run_case "$c"; fi
done
echo "replay proof: $FAILS failure(s)"
exit $((FAILS > 0))
