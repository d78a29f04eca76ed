#!/usr/bin/env bash
# Device monitoring and PC sampling on an NVIDIA GPU (issue 17, "Over time" and "pc-sampling"), in one go,
# under 4 minutes:
#   1. the hotspot_chase testbed (bench/presets/hotspot_chase.cu, nvcc -lineinfo) profiled with
#      --monitor-device --sampling-interval 20 (2 runs): samples stored, energy > 0, the samples bracket the
#      kernels on the trace's clock, tracks in report.html and counter tracks in the Perfetto export;
#   2. the PyTorch training step (bench/workloads/train_step.py) profiled with --sampling-interval 50: the same;
#   3. --pc-sampling on the testbed: the hottest source line is the HOTSPOT line (the dependent load), the
#      hottest instruction a load, the top stall reason a scoreboard stall;
#   4. overhead: median of 3 timing-only runs (--no-rocprof) with and without --monitor-device (default 100 ms),
#      testbed and PyTorch.
# Uses prebuilt binaries: RPL_BIN_DIR = a folder holding rocm-perf, librpl_cuda_collector.so,
# librpl_pc_sampling.so and their libraries (scripts/gpu/stage_devbuild.sh DEST -> DEST/lib).
# Raw outputs: $OUT/sampling_log.txt (everything printed), $OUT/sampling_checks.jsonl (one line per check),
# $OUT/sampling_outputs.tar.gz (profile.json, report.html, perfetto traces, pc-sampling CSVs, terminal output).
#   RPL_BIN_DIR=.devbuild/lib OUT=/tmp/out bash bench/presets/gpu_sampling.sh [--dry-run]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DRY=0; [ "${1:-}" = --dry-run ] && DRY=1
: "${OUT:?set OUT to the folder for raw outputs}"
: "${RPL_BIN_DIR:?set RPL_BIN_DIR to the folder holding rocm-perf and its libraries}"
mkdir -p "$OUT"
RP="$RPL_BIN_DIR/rocm-perf"
export LD_LIBRARY_PATH="$RPL_BIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W=$(mktemp -d)
LOG="$OUT/sampling_log.txt"; CHECKS="$OUT/sampling_checks.jsonl"; : >"$LOG"; : >"$CHECKS"
exec > >(tee -a "$LOG") 2>&1
say() { echo "== $(date -u +%H:%M:%S) $*"; }
run() {  # name, then the command; stdout to $W/name.txt, stderr to $W/name.err; wall time printed
  local name=$1; shift
  if [ $DRY = 1 ]; then echo "DRY $name: $*"; return 0; fi
  local t0=$(date +%s%N)
  timeout 150 "$@" >"$W/$name.txt" 2>"$W/$name.err"; local rc=$?
  echo "-- $name: rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  tail -4 "$W/$name.err"
  return $rc
}
first_db() {  # the database the samples were stored in: the first of run 1 (profile.json)
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"]["per_run"][0]["databases"][0])' "$1/profile.json" 2>/dev/null
}
checker() { if [ $DRY = 1 ]; then echo "DRY check: $*"; else python3 "$ROOT/bench/presets/check_sampling.py" --summary "$CHECKS" "$@"; fi; }
python3 -m py_compile "$ROOT/bench/presets/check_sampling.py" || { echo "check_sampling.py does not compile"; exit 1; }

say "host $(hostname), $(nproc) cores; rocm-perf $RP"
[ $DRY = 1 ] || {
  nvidia-smi --query-gpu=name,driver_version,compute_cap,power.limit --format=csv,noheader
  [ -x "$RP" ] || { echo "FAIL no rocm-perf at $RP"; exit 1; }
  for f in librpl_cuda_collector.so librpl_pc_sampling.so; do [ -e "$RPL_BIN_DIR/$f" ] || echo "WARN $f missing in $RPL_BIN_DIR"; done
  command -v nvdisasm >/dev/null || [ -x /usr/local/cuda/bin/nvdisasm ] || echo "WARN no nvdisasm: SASS text will be missing"
}
CC=$( [ $DRY = 1 ] && echo 90 || nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
SRC="$ROOT/bench/presets/hotspot_chase.cu"
run nvcc nvcc -O3 -lineinfo -arch=sm_$CC -o "$W/hotspot_chase" "$SRC" || echo "FAIL nvcc"
APP=("$W/hotspot_chase" 20000 3)
TORCH=(python3 "$ROOT/bench/workloads/train_step.py" --steps 5)

say "1. testbed with device monitoring"
run mon_testbed "$RP" profile --runs 2 --sampling-interval 20 -o "$W/mon_testbed" -- "${APP[@]}"
DB=$(first_db "$W/mon_testbed")
run mon_testbed_perfetto "$RP" export perfetto "$DB" -o "$W/mon_testbed/perfetto.json"
checker monitor "$W/mon_testbed" --perfetto "$W/mon_testbed/perfetto.json"

say "2. PyTorch training step with device monitoring"
run mon_torch "$RP" profile --runs 1 --sampling-interval 50 -o "$W/mon_torch" -- "${TORCH[@]}"
DB=$(first_db "$W/mon_torch")
run mon_torch_perfetto "$RP" export perfetto "$DB" -o "$W/mon_torch/perfetto.json"
checker monitor "$W/mon_torch" --perfetto "$W/mon_torch/perfetto.json"

say "3. PC sampling on the testbed"
run pcsamp "$RP" profile --runs 1 --pc-sampling --timeout 60 -o "$W/pcsamp" -- "${APP[@]}"
[ $DRY = 1 ] || sed -n '/PC sampling/,$p' "$W/pcsamp.txt"
checker pcsamp "$W/pcsamp" --source "$SRC"

say "4. overhead of monitoring (timing only, median of 3)"
run ovh_testbed_base "$RP" profile --no-rocprof --runs 3 -o "$W/ovh_testbed_base" -- "${APP[@]}"
run ovh_testbed_mon "$RP" profile --no-rocprof --runs 3 --monitor-device -o "$W/ovh_testbed_mon" -- "${APP[@]}"
checker overhead testbed "$W/ovh_testbed_base" "$W/ovh_testbed_mon"
run ovh_torch_base "$RP" profile --no-rocprof --runs 3 -o "$W/ovh_torch_base" -- "${TORCH[@]}"
run ovh_torch_mon "$RP" profile --no-rocprof --runs 3 --monitor-device -o "$W/ovh_torch_mon" -- "${TORCH[@]}"
checker overhead torch "$W/ovh_torch_base" "$W/ovh_torch_mon"

say "raw outputs"
[ $DRY = 1 ] || (cd "$W" && find . \( -name profile.json -o -name report.html -o -name perfetto.json -o -name '*.txt' \
  -o -name '*.err' -o -name 'pc_samples_*.csv' -o -name '*.sass' \) -size -6M -print0 |
  tar --null -czf "$OUT/sampling_outputs.tar.gz" -T -)
ls -la "$OUT"
fails=$(grep -c '"ok": false' "$CHECKS" 2>/dev/null); passes=$(grep -c '"ok": true' "$CHECKS" 2>/dev/null)
say "checks: ${passes:-0} passed, ${fails:-0} failed"
rm -rf "$W"
[ "${fails:-0}" = 0 ]
