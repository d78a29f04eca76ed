#!/usr/bin/env bash
# The roofline and classifier proof on an NVIDIA GPU, through the real CLI: `rocm-perf ceilings`, then
# `rocm-perf profile --roofline` on each classifier testbed, then ncu run independently on each testbed for
# its own achieved GB/s and GFLOP/s, compared by compare_roofline.py (within 5 %, the designed label, copy at
# >= 85 % of the measured bandwidth ceiling), plus one `profile --deep` run. Skips without a GPU.
#   [COUNTER_TOOL=auto|cupti|ncu] scripts/gpu/roofline_suite.sh --devbuild DIR --out DIR
# DIR is what scripts/gpu/stage_devbuild.sh assembles (lib/rocm-perf, lib/rpl_ceilings_bench, bin/ apps).
set -u
while [ $# -gt 0 ]; do case "$1" in --devbuild) DEVBUILD="$2"; shift 2 ;; --out) OUT="$2"; shift 2 ;; *) echo "unknown argument $1" >&2; exit 2 ;; esac; done
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no NVIDIA GPU: roofline suite not run"; exit 0; fi
DEVBUILD=$(cd "$DEVBUILD" && pwd); mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$DEVBUILD/lib/rocm-perf"; BIN="$DEVBUILD/bin"; FAILS=0
TOOL="--counter-tool ${COUNTER_TOOL:-auto}"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
APPS="stream_copy fma_peak under_occupied divergent pointer_chase"
declare -A ARGS=(
  [stream_copy]="--mib=512 --iters=10" [fma_peak]="--iters=4096 --launches=10" [under_occupied]="--mib=256 --launches=5"
  [divergent]="--work=64 --launches=10" [pointer_chase]="--mib=24 --steps=2048 --launches=5"
)
echo "== environment (counter tool: ${COUNTER_TOOL:-auto})"
date -u +"date %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
"$NCU" --version | tail -1
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"

echo "== rocm-perf ceilings"
if ! "$RP" ceilings -o "$OUT/ceilings.json" >"$OUT/ceilings.txt" 2>"$OUT/ceilings.err"; then
  echo "FAIL: ceilings"; cat "$OUT/ceilings.err"; FAILS=$((FAILS + 1))
fi
cat "$OUT/ceilings.txt" "$OUT/ceilings.err"

for app in $APPS; do
  echo "== rocm-perf profile --roofline: $app"
  start=$(date +%s%N)
  if ! "$RP" profile --roofline $TOOL --runs 1 --ceilings "$OUT/ceilings.json" -o "$OUT/$app" -- "$BIN/$app" ${ARGS[$app]} \
      >"$OUT/$app.summary" 2>"$OUT/$app.err"; then
    echo "FAIL: $app: rocm-perf exit $?"; tail -20 "$OUT/$app.err"; FAILS=$((FAILS + 1)); continue
  fi
  echo "profile --roofline wall: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  grep -i "warning" "$OUT/$app.err" | head -5
  echo "== ncu, independently: $app"
  # ncu's own rates: dram__bytes.sum.per_second, and the SASS FP op rates (FLOP/s = ADD + MUL + 2 FMA).
  m=dram__bytes.sum.per_second,gpu__time_duration.sum
  for p in f d h; do for op in add mul fma; do m="$m,smsp__sass_thread_inst_executed_op_${p}${op}_pred_on.sum.per_second"; done; done
  "$NCU" --csv --page raw --print-units base --cache-control all --clock-control none --metrics "$m" \
    --log-file "$OUT/$app.ncu.csv" "$BIN/$app" ${ARGS[$app]} >/dev/null 2>"$OUT/$app.ncu.err" || { echo "FAIL: ncu on $app"; FAILS=$((FAILS + 1)); }
done

echo "== compare"
python3 "$DEVBUILD/scripts/gpu/compare_roofline.py" --out "$OUT" --ceilings "$OUT/ceilings.json" $APPS | tee "$OUT/compare.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || FAILS=$((FAILS + 1))

echo "== the in-process CUPTI counter pass: profile --roofline --counter-tool cupti, compared with the same ncu runs"
if [ -f "$DEVBUILD/lib/librpl_cupti_counters.so" ]; then
  mkdir -p "$OUT/cupti"
  CUPTI_APPS="stream_copy fma_peak divergent"
  for app in $CUPTI_APPS; do
    "$RP" profile --roofline --counter-tool cupti --runs 1 --ceilings "$OUT/ceilings.json" -o "$OUT/cupti/$app" -- \
      "$BIN/$app" ${ARGS[$app]} >"$OUT/cupti/$app.summary" 2>"$OUT/cupti/$app.err" || {
      echo "FAIL: cupti $app: rocm-perf exit $?"; tail -20 "$OUT/cupti/$app.err"; FAILS=$((FAILS + 1)); }
    cp "$OUT/$app.ncu.csv" "$OUT/cupti/$app.ncu.csv" 2>/dev/null
  done
  python3 "$DEVBUILD/scripts/gpu/compare_roofline.py" --out "$OUT/cupti" --ceilings "$OUT/ceilings.json" \
    --gbps-info-only fma_peak divergent -- $CUPTI_APPS | tee "$OUT/cupti/compare.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAILS=$((FAILS + 1))
  python3 - "$OUT/cupti/stream_copy/profile.json" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
ok = c["tool"] == "cupti" and c["matched_instances"] == c["instances"] > 0
print(("PASS" if ok else "FAIL") + ": the CUPTI pass measured and paired %d/%d instances (tool %s)" % (
    c["matched_instances"], c["instances"], c["tool"]))
sys.exit(0 if ok else 1)
PY
else
  echo "FAIL: $DEVBUILD/lib/librpl_cupti_counters.so is missing (scripts/gpu/stage_devbuild.sh stages it)"; FAILS=$((FAILS + 1))
fi

echo "== rocm-perf profile --deep --kernel pointer_chase"
if "$RP" profile --deep $TOOL --runs 1 --kernel pointer_chase -o "$OUT/deep" -- "$BIN/pointer_chase" ${ARGS[pointer_chase]} \
    >"$OUT/deep.summary" 2>"$OUT/deep.err"; then
  python3 - "$OUT/deep" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
d = json.load(open(sys.argv[1] + "/analysis.json"))
p = json.load(open(sys.argv[1] + "/profile.json"))["counters"]
k = [k for k in d["ranking"]["kernels"] if "pointer_chase" in k["name"]]
deep = k[0].get("deep_analysis") if k else None
ok = bool(deep and deep.get("available"))
print(("PASS" if ok else "FAIL") + ": --deep: deep analysis of pointer_chase present:", json.dumps(
    {x: deep.get(x) for x in ("achieved_occupancy", "stall_fraction", "memory_stall_share", "branch_efficiency",
                              "l1_hit_rate", "l2_hit_rate")} if deep else None))
print("--deep cost: instances %d, %.1f ms per instance (%.1f above a plain run)" % (
    p["instances"], p["ms_per_instance"] or -1, p["extra_ms_per_instance"] or -1))
sys.exit(0 if ok else 1)
PY
else
  echo "FAIL: --deep run: exit $?"; tail -20 "$OUT/deep.err"; FAILS=$((FAILS + 1))
fi
echo "== counter-pass cost with many instances: profile --roofline on stream_copy, 200 launches"
if "$RP" profile --roofline $TOOL --runs 1 -o "$OUT/cost" -- "$BIN/stream_copy" --mib=64 --iters=200 \
    >"$OUT/cost.summary" 2>"$OUT/cost.err"; then
  python3 - "$OUT/cost/profile.json" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
extra = c["extra_ms_per_instance"]
print("instances %d (%d paired), %.1f ms per instance, %.1f ms above a plain run (target <= 100 ms)" % (
    c["instances"], c["matched_instances"], c["ms_per_instance"], extra))
print(("PASS" if extra is not None and extra <= 100 else "FAIL") + ": counter pass <= 100 ms per instance above a plain run")
sys.exit(0 if extra is not None and extra <= 100 else 1)
PY
else
  echo "FAIL: cost run: exit $?"; tail -20 "$OUT/cost.err"; FAILS=$((FAILS + 1))
fi
echo "roofline suite: $FAILS failure(s)"
exit $((FAILS > 0))
