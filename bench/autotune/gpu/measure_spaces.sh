#!/usr/bin/env bash
# Exhaustively measures the autotune benchmark spaces (tiled SGEMM and direct 2D convolution) on one NVIDIA
# GPU: compiles every configuration up front (xargs -P, many instantiations per file), then checks and times
# each one (driver.cu). Writes $OUT/gemm.json, $OUT/conv.json and $OUT/measure_spaces.log.
# Usage: OUT=/some/dir bash bench/autotune/gpu/measure_spaces.sh   (LIMIT=N for a quick smoke run)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:?set OUT to the output folder}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
ARCH="${ARCH:-sm_90}"
JOBS="${JOBS:-$(nproc)}"
BUDGET_S="${BUDGET_S:-440}"   # the whole script stays under 8 minutes
LIMIT="${LIMIT:-0}"
mkdir -p "$OUT"
LOG="$OUT/measure_spaces.log"
exec > >(tee -a "$LOG") 2>&1
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
WORK="$(mktemp -d /tmp/autotune_spaces.XXXXXX)"
echo "work folder $WORK, $JOBS jobs, budget ${BUDGET_S}s"
python3 "$HERE/gen_spaces.py" --out "$WORK" --limit "$LIMIT" || exit 1
cp "$HERE/kernels.cuh" "$HERE/driver.cu" "$WORK/"
FLAGS=(-O3 -arch="$ARCH" -std=c++17 -lineinfo)
cd "$WORK"
"$NVCC" "${FLAGS[@]}" -c driver.cu -o driver.o || exit 1

compile_space() {  # name jobs
  local name=$1 jobs=$2 t=$(date +%s)
  ls "${name}"_*.cu registry_"${name}".cu | xargs -P "$jobs" -I{} sh -c \
    "'$NVCC' ${FLAGS[*]} -c {} -o {}.o 2> {}.err || echo 'COMPILE FAILED: {}'"
  cat "${name}"_*.err registry_"${name}".cu.err | grep -v '^$' | head -20
  "$NVCC" "${FLAGS[@]}" -o "measure_$name" driver.o "${name}"_*.o registry_"${name}".cu.o || return 1
  echo "$name: compiled in $(( $(date +%s) - t )) s (at $(elapsed) s)"
  echo $(( $(date +%s) - t )) > "compile_$name.s"
}

measure_space() {  # name; restarts the driver after a configuration that lost the CUDA context
  local name=$1 t=$(date +%s) names rc done_lines
  names=$(python3 -c "import json;print(','.join(json.load(open('params.json'))['$name']))")
  : > "$name.jsonl"
  while :; do
    done_lines=$(wc -l < "$name.jsonl")
    local left=$(( BUDGET_S - 25 - $(elapsed) ))
    [ "$left" -le 0 ] && { echo "$name: out of time at configuration $done_lines"; break; }
    "./measure_$name" --space "$name" --out "$name.jsonl" --names "$names" --start "$done_lines" --deadline "$left"
    rc=$?
    [ "$rc" -eq 0 ] && break
    [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] && { echo "$name: driver setup failed (exit $rc)"; break; }
    restarts=$(( ${restarts:-0} + 1 ))
    [ "$restarts" -gt 100 ] && { echo "$name: too many restarts"; break; }
    if [ "$rc" -ne 4 ]; then  # the process died without writing the configuration's line
      echo "{\"index\":$(wc -l < "$name.jsonl"),\"valid\":false,\"reason\":\"measuring process died (exit $rc)\"}" >> "$name.jsonl"
    fi
    echo "$name: restarting after exit $rc"
  done
  echo "$name: measured in $(( $(date +%s) - t )) s (at $(elapsed) s)"
  echo $(( $(date +%s) - t )) > "measure_$name.s"
}

compile_space gemm "$JOBS" || exit 1
measure_space gemm > measure_gemm.log 2>&1 &
GEMM_PID=$!
compile_space conv "$(( JOBS > 1 ? JOBS - 1 : 1 ))" || exit 1
wait "$GEMM_PID"
cat measure_gemm.log
measure_space conv

DEVICE=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)
NVCC_VERSION=$("$NVCC" --version | tail -2 | tr '\n' ' ')
for name in gemm conv; do
  expected=$(cat "${name}"_*.cu | grep -c push_back)
  meta=$(python3 -c "import json,sys;print(json.dumps({'device':sys.argv[1],'nvcc':sys.argv[2],'date':sys.argv[3],'compile_flags':sys.argv[4],'problem':{'gemm':'C = A*B, M=N=K=2048, fp32, row major','conv':'4096x4096 output, 11x11 filter, fp32'}[sys.argv[5]],'timing':'CUDA events, median of 3-20 launches (about 10 ms) after one warm-up; checked against a naive fp64-accumulating reference (rel. tol 1e-3) on a NaN-filled output first','compile_seconds':int(open(f'compile_{sys.argv[5]}.s').read()),'measure_seconds':int(open(f'measure_{sys.argv[5]}.s').read())}))" \
    "$DEVICE" "$NVCC_VERSION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${FLAGS[*]}" "$name")
  python3 "$HERE/assemble.py" --name "$name" --lines "$name.jsonl" --space "$name.space.json" \
    --expected "$expected" --meta "$meta" --out "$OUT/$name.json"
done
echo "total $(elapsed) s"
