#!/usr/bin/env bash
# The optimizer on a kernel inside a PyTorch process: a C++/CUDA extension that app.py builds at run time
# (torch.utils.cpp_extension.load), checked with a correct tiled candidate (candidate_tiled.cu, bit-exact: the
# same column order) through `optimize --runtime-compiled --dry-run --candidate`. The compile flags carry PyTorch's
# include folders, as the extension's own build does, so the candidate compiles into a code object and the parser
# reads torch/extension.h. On an NVIDIA GPU with PyTorch, from the repository root:
#   OUT=/dir RPL_BIN_DIR=.devbuild/lib bash bench/optimize/torch_extension/torch_extension_gpu.sh
# Writes $OUT/env.txt, first_build.log (the extension's first build, timed), optimize.log, summary.txt and
# optimize.tar.gz (optimize.json, the candidate's and the original's logs and compiler output).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR}"
RP="$RPL_BIN_DIR/rocm-perf"
W=${WORK:-/tmp/rpl-torch-ext}
rm -rf "$W"; mkdir -p "$OUT"; cp -r "$ROOT/bench/optimize/torch_extension" "$W"
export TORCH_EXTENSIONS_DIR="$W/torch_extensions"
. "$ROOT/scripts/gpu/staged_commit.sh"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "device: $(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader | head -1)"
  echo "binaries: commit $(staged_commit "$RPL_BIN_DIR/..")"
  echo "torch: $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>&1)"
  echo "command: bash bench/optimize/torch_extension/torch_extension_gpu.sh"
} | tee "$OUT/env.txt"
start=$(date +%s.%N)
python3 "$W/app.py" >"$OUT/first_build.log" 2>&1 || { echo "the application fails before any optimize:"; cat "$OUT/first_build.log"; exit 1; }
echo "first run with the extension's build: $(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }') s" | tee -a "$OUT/env.txt"
FLAGS=$(python3 -c 'import sysconfig
from torch.utils.cpp_extension import include_paths
print(" ".join(["-I" + p for p in include_paths()] + ["-I" + sysconfig.get_paths()["include"], "-std=c++17", "-DTORCH_EXTENSION_NAME=row_sum_ext"]))')
echo "compile flags: $FLAGS" | tee -a "$OUT/env.txt"
start=$(date +%s.%N)
"$RP" optimize --source "$W/row_sum_ext.cu" --runtime-compiled --dry-run --compile-flags "$FLAGS" \
  --candidate "$W/candidate_tiled.cu" --runs 3 --timeout 300 -o "$W/opt" --json -- python3 "$W/app.py" \
  >"$W/opt-stdout.json" 2>"$OUT/optimize.log"
rc=$?
echo "optimize: exit $rc after $(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }') s" | tee "$OUT/summary.txt"
python3 - "$W/opt/optimize.json" >>"$OUT/summary.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("kernel:", d.get("kernel", {}).get("display_name"))
print("decision:", d["decision"].get("status"), "-", d["decision"].get("reason", ""))
for c in d["candidates"]:
    print("candidate", c["id"], c["decision"], "speedup", c.get("speedup"))
    for g in c["gates"]:
        print("  gate", g["gate"], "passed" if g["passed"] else "FAILED", "-", g["reason"][:200])
for n in d.get("notes", []):
    print("note:", n[:300])
PY
cat "$OUT/summary.txt"
(cd "$W" && find opt \( -name '*.json' -o -name '*.log' -o -name '*.diff' -o -name '*.stderr' -o -name '*.cu' \) -not -path '*/inputs/*' \
   -not -path '*/dumps/*' -size -4M -print0 | tar --null -czf "$OUT/optimize.tar.gz" -T -)
exit $rc
