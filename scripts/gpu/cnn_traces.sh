#!/usr/bin/env bash
# A convolutional training step (bench/workloads/cnn_step.py: cuDNN's convolution kernels, batch norm, a small
# ResNet in channels-last bf16) through rocm-perf as a user runs it: profile (3 runs), the roofline counter pass
# (CUPTI, first launch of each kernel), cuDNN's heuristics instead of its benchmark, fp32, and `analyze` of each
# database again. The outputs land in $OUT/cnn_traces.tar.gz, the terminal summaries in $OUT/*.txt, and
# $OUT/checks.txt holds PASS/FAIL lines on what the outputs must hold.
#   OUT=dir RPL_BIN_DIR=DIR/lib bash scripts/gpu/cnn_traces.sh   (DIR from scripts/gpu/stage_all.sh)
set -u
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP=$RPL_BIN_DIR/rocm-perf
W=$(mktemp -d); PY=python3; STEP="$ROOT/bench/workloads/cnn_step.py"
mkdir -p "$OUT"
date -u +"date %Y-%m-%dT%H:%M:%SZ"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$PY -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())"
run() {  # name, then rocm-perf arguments
  local name=$1; shift
  local t0=$(date +%s%N)
  "$RP" "$@" >"$OUT/$name.txt" 2>"$W/$name.err"; local rc=$?
  echo "== $name: rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  echo "$rc" >"$W/$name.rc"
  tail -5 "$W/$name.err"
}
run cnn profile --runs 3 -o "$W/cnn" -- $PY "$STEP" --steps 5
run cnn_roofline profile --runs 1 --roofline --counter-tool cupti --counter-launches 1 -o "$W/cnn_roofline" -- \
  $PY "$STEP" --steps 2 --warmup 1
run cnn_heuristics profile --runs 1 -o "$W/cnn_heuristics" -- $PY "$STEP" --steps 3 --no-benchmark
run cnn_fp32 profile --runs 1 -o "$W/cnn_fp32" -- $PY "$STEP" --steps 3 --fp32
for d in cnn cnn_roofline cnn_heuristics cnn_fp32; do
  db=$(find "$W/$d/runs" -name "*.db" 2>/dev/null | sort | head -1)
  [ -n "$db" ] && { "$RP" analyze "$db" --json -o "$W/$d/reanalyze" >"$W/$d/reanalyze.json" 2>"$W/$d/reanalyze.err"; echo "$?" >"$W/$d/reanalyze.rc"; }
  cp "$W/$d.err" "$W/$d/" 2>/dev/null
done
$PY - "$W" <<'PY' | tee "$OUT/checks.txt"
import glob, json, os, sys
w = sys.argv[1]
def check(ok, what):
    print(("PASS" if ok else "FAIL") + ": " + what)
    return ok
for d in ("cnn", "cnn_roofline", "cnn_heuristics", "cnn_fp32"):
    rc = open(f"{w}/{d}.rc").read().strip() if os.path.exists(f"{w}/{d}.rc") else "missing"
    check(rc == "0", f"{d}: rocm-perf profile exit {rc}")
    a = f"{w}/{d}/analysis.json"
    if not os.path.exists(a):
        check(False, f"{d}: analysis.json written"); continue
    doc = json.load(open(a))
    kernels = doc.get("ranking", {}).get("kernels", [])
    names = [k.get("name", "") for k in kernels]
    conv = [n for n in names if any(s in n.lower() for s in ("conv", "cudnn", "implicit", "xmma", "sm90", "wgrad", "dgrad", "fprop", "nchwtonhwc", "nhwc"))]
    check(len(kernels) >= 10, f"{d}: {len(kernels)} distinct kernels ranked")
    check(len(conv) > 0, f"{d}: convolution kernels among them ({len(conv)}; e.g. {conv[0][:90] if conv else '-'})")
    rr = open(f"{w}/{d}/reanalyze.rc").read().strip() if os.path.exists(f"{w}/{d}/reanalyze.rc") else "missing"
    check(rr == "0", f"{d}: analyze of its database again exit {rr}")
    if d == "cnn_roofline":
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
(cd "$W" && tar -czf "$OUT/cnn_traces.tar.gz" cnn cnn_roofline cnn_heuristics cnn_fp32 2>/dev/null)
grep -q "^FAIL" "$OUT/checks.txt" && exit 1
exit 0
