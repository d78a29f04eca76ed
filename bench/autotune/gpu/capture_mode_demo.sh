#!/usr/bin/env bash
# rocm-perf autotune --capture-dir on an NVIDIA GPU: builds rocm-perf and the tiled-matmul testbed
# (capture_testbed/matmul.cu), captures one launch of its kernel from the running application, then tunes the
# kernel's macros by compiling each configuration to a cubin and timing it with replay on the captured inputs
# (results checked against the original kernel's). Also the exhaustive run over the same 48 configurations, so
# the model's pick can be compared with the true best. Outputs under $OUT:
#   demo.log, autotune_model.json, autotune_exhaustive.json, capture.txt
# Usage: OUT=/some/dir bash bench/autotune/gpu/capture_mode_demo.sh     (from the repository root)
set -uo pipefail
OUT="${OUT:?set OUT}"
ROOT="$(pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/demo.log") 2>&1
T0=$(date +%s)
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
if [ -n "${RPL_BIN_DIR:-}" ]; then  # prebuilt (scripts/gpu/stage_all.sh): the GPU machine has no dev packages
  RP="$RPL_BIN_DIR/rocm-perf"
else
  if [ ! -x build-gpu/src/cli/rocm-perf ]; then
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
  fi
  cmake --build build-gpu -j16 --target rocm-perf rpl_cuda_capture rpl_replay_cuda > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  rm -f "$OUT/build.log" "$OUT/cmake.log"
  echo "== built in $(( $(date +%s) - T0 )) s"
  RP="$ROOT/build-gpu/src/cli/rocm-perf"
fi
WORK="$(mktemp -d /tmp/autotune_capture.XXXXXX)"
SRC="$ROOT/bench/autotune/gpu/capture_testbed/matmul.cu"
"$NVCC" -O3 -arch=sm_90 -o "$WORK/matmul" "$SRC" || exit 1
"$WORK/matmul" 2048 || exit 1
echo "== capture launch 2 of matmul_tiled"
"$RP" capture --kernel '^matmul_tiled$' --dispatch 2 -o "$WORK/capture" -- "$WORK/matmul" 2048 > "$OUT/capture.txt" 2>&1
rc=$?; cat "$OUT/capture.txt"; [ "$rc" -eq 0 ] || exit 1
TEMPLATE="$NVCC -cubin -arch=sm_90 -O3 -DBK={BK} -DPAD={PAD} -DSTRIDED={STRIDED} -DVEC={VEC} -o {OUT} {SOURCE}"
SPACE="$ROOT/bench/autotune/gpu/capture_testbed/space.json"
for strategy in model exhaustive; do
  if [ "$strategy" = exhaustive ] && [ $(( $(date +%s) - T0 )) -gt 300 ]; then echo "== exhaustive skipped (time)"; break; fi
  echo "== autotune --strategy $strategy"
  "$RP" autotune --space "$SPACE" --capture-dir "$WORK/capture" --kernel-source "$SRC" --compile-template "$TEMPLATE" \
    --strategy "$strategy" --budget 12 --seed 1 --replay-iterations 20 --timeout 120 -o "$WORK/tune_$strategy" \
    --cache "$WORK/cache_$strategy.jsonl"
  echo "exit $?"
  cp "$WORK/tune_$strategy/autotune.json" "$OUT/autotune_$strategy.json" 2>/dev/null
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
m = json.load(open(f"{out}/autotune_model.json")); e = json.load(open(f"{out}/autotune_exhaustive.json"))
print("model: best", m["best"], "after", len(m["measurements"]), "configurations,", m["budget"]["invalid"], "invalid")
print("exhaustive: best", e["best"], ";", e["budget"]["invalid"], "invalid of", len(e["measurements"]))
bad = [x for x in e["measurements"] if x["status"] == "invalid"]
print("invalid reasons:", sorted({x["reason"][:90] for x in bad}))
wrong_bk3 = [x for x in e["measurements"] if x["config"]["BK"] == 3]
print("BK=3 (wrong tail) all invalid:", all(x["status"] == "invalid" for x in wrong_bk3), len(wrong_bk3))
print("model best / true best: %.4f" % (m["best"]["objective"] / e["best"]["objective"]))
PY
echo "== total $(( $(date +%s) - T0 )) s"
