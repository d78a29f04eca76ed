#!/usr/bin/env bash
# A training step through rocm-perf as a user runs it: profile (3 runs), the roofline counter pass (CUPTI, first
# launch of each kernel), further variants of the step, and `analyze` of each database again. By default the
# convolutional step (bench/workloads/cnn_step.py: cuDNN's convolution kernels, batch norm, a small ResNet in
# channels-last bf16) with cuDNN's heuristics instead of its benchmark and fp32 as variants; EXPECT names what the
# ranked kernels must include (a Python regular expression over the names, case-insensitive) and ORIGIN the library
# at least one of them must be attributed to. The outputs land in $OUT/traces.tar.gz, the terminal summaries in
# $OUT/*.txt, and $OUT/checks.txt holds PASS/FAIL lines on what the outputs must hold.
#   OUT=dir RPL_BIN_DIR=DIR/lib bash scripts/gpu/workload_traces.sh   (DIR from scripts/gpu/stage_all.sh)
#   ... NAME=compiled STEP=bench/workloads/train_step.py ARGS="--compile ..." VARIANTS="" WARM=1 \
#       EXPECT="triton" ORIGIN=Triton bash scripts/gpu/workload_traces.sh   (a torch.compile'd transformer step)
# VARIANTS: "label|extra step arguments;..." (each profiled once); WARM=1 runs the step once first (Inductor's
# compile cache filled, so that the profiled runs measure the step and not the compiler).
set -u
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP=$RPL_BIN_DIR/rocm-perf
W=$(mktemp -d); PY=python3
NAME=${NAME:-cnn}
STEP="$ROOT/${STEP:-bench/workloads/cnn_step.py}"
ARGS=${ARGS:-}
VARIANTS=${VARIANTS-"heuristics|--no-benchmark;fp32|--fp32"}
EXPECT=${EXPECT:-"conv|cudnn|implicit_gemm|xmma|wgrad|dgrad|fprop"}
ORIGIN=${ORIGIN:-cuDNN}
mkdir -p "$OUT"
date -u +"date %Y-%m-%dT%H:%M:%SZ"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
$PY -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())"
if [ "${WARM:-0}" = 1 ]; then
  t0=$(date +%s); $PY "$STEP" $ARGS --steps 1 --warmup 1 >"$W/warm.out" 2>&1
  echo "== warm-up run of the step (compile caches): rc=$? $(( $(date +%s) - t0 )) s"
fi
run() {  # name, then rocm-perf arguments
  local name=$1; shift
  local t0=$(date +%s%N)
  "$RP" "$@" >"$OUT/$name.txt" 2>"$W/$name.err"; local rc=$?
  echo "== $name: rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "$rc" >"$W/$name.rc"
  tail -5 "$W/$name.err"
}
RUNS=("$NAME" "${NAME}_roofline")
run "$NAME" profile --runs 3 -o "$W/$NAME" -- $PY "$STEP" $ARGS --steps 5
run "${NAME}_roofline" profile --runs 1 --roofline --counter-tool cupti --counter-launches 1 -o "$W/${NAME}_roofline" -- \
  $PY "$STEP" $ARGS --steps 2 --warmup 1
IFS=';' read -ra variants <<<"$VARIANTS"
for v in "${variants[@]}"; do
  [ -n "$v" ] || continue
  label=${NAME}_${v%%|*}; RUNS+=("$label")
  run "$label" profile --runs 1 -o "$W/$label" -- $PY "$STEP" $ARGS --steps 3 ${v#*|}
done
for d in "${RUNS[@]}"; do
  db=$(find "$W/$d/runs" -name "*.db" 2>/dev/null | sort | head -1)
  [ -n "$db" ] && { "$RP" analyze "$db" --top 1000 --json -o "$W/$d/reanalyze" >"$W/$d/reanalyze.json" 2>"$W/$d/reanalyze.err"; echo "$?" >"$W/$d/reanalyze.rc"; }
  cp "$W/$d.err" "$W/$d/" 2>/dev/null
done
$PY - "$W" "$EXPECT" "$ORIGIN" "${RUNS[@]}" <<'PY' | tee "$OUT/checks.txt"
import json, os, re, sys
w, expect, origin, runs = sys.argv[1], re.compile(sys.argv[2], re.I), sys.argv[3], sys.argv[4:]
def check(ok, what):
    print(("PASS" if ok else "FAIL") + ": " + what)
    return ok
for d in runs:
    rc = open(f"{w}/{d}.rc").read().strip() if os.path.exists(f"{w}/{d}.rc") else "missing"
    check(rc == "0", f"{d}: rocm-perf profile exit {rc}")
    a = f"{w}/{d}/analysis.json"
    if not os.path.exists(a):
        check(False, f"{d}: analysis.json written"); continue
    doc = json.load(open(a))
    kernels = doc.get("ranking", {}).get("kernels", [])
    names = [k.get("name", "") for k in kernels]
    check(len(kernels) >= 10, f"{d}: {len(kernels)} distinct kernels ranked")
    # every kernel, not the top 10 the profile lists: the analysis again with --top 1000
    every = f"{w}/{d}/reanalyze/analysis.json"
    every = json.load(open(every))["ranking"]["kernels"] if os.path.exists(every) else kernels
    hits = [k.get("name", "") for k in every if expect.search(k.get("name", ""))]
    check(len(hits) > 0, f"{d}: of {len(every)} kernels, {len(hits)} match /{expect.pattern}/ (e.g. {hits[0][:90] if hits else '-'})")
    libs = {}
    for k in every:
        lib = (k.get("origin") or {}).get("library") or "-"
        libs[lib] = libs.get(lib, 0) + 1
    check(origin in libs, f"{d}: kernels attributed to {origin}: {libs.get(origin, 0)} (origins: {libs})")
    rr = open(f"{w}/{d}/reanalyze.rc").read().strip() if os.path.exists(f"{w}/{d}/reanalyze.rc") else "missing"
    check(rr == "0", f"{d}: analyze of its database again exit {rr}")
    if d.endswith("_roofline"):
        p = json.load(open(f"{w}/{d}/profile.json")).get("counters", {})
        check(p.get("matched_instances", 0) > 0 and p.get("tool") == "cupti",
              f"{d}: counter pass paired {p.get('matched_instances')}/{p.get('instances')} instances (tool {p.get('tool')})")
        placed = [k for k in kernels if (k.get("roofline") or {}).get("status") == "ok"]
        check(len(placed) > 0, f"{d}: {len(placed)} of {len(kernels)} kernels placed on the roofline")
    for k in kernels[:6]:
        r, b = k.get("roofline") or {}, (k.get("bottleneck") or {}).get("primary") or {}
        print(f"  {d} kernel {k.get('name', '')[:70]}: share {k.get('share_of_gpu_time', 0):.3f}, origin "
              f"{(k.get('origin') or {}).get('library')}, roofline {r.get('status')} {r.get('bound')} "
              f"AI {r.get('arithmetic_intensity')}, label {b.get('label')}")
PY
(cd "$W" && tar -czf "$OUT/traces.tar.gz" "${RUNS[@]}" 2>/dev/null)
grep -q "^FAIL" "$OUT/checks.txt" && exit 1
exit 0
