#!/usr/bin/env bash
# The GPU time of NVTX ranges (issue 29) on traces recorded earlier on an H100 (PyTorch training steps with NVTX
# ranges, bench/results/2026-11-25/cuda/analysis_truth_gpu/analysis_truth.tar.gz): rocm-perf analyze of each
# workload's run 1, then bench/cuda/check_nvtx_ranges.py --no-expect, which recomputes every range's kernels,
# copies and GPU busy time from the database in Python and compares. No GPU needed.
#   bench/cuda/recheck_recorded_ranges.sh [ROCM_PERF] > OUT.txt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RP=${1:-$ROOT/build/src/cli/rocm-perf}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
tar -xzf "$ROOT/bench/results/2026-11-25/cuda/analysis_truth_gpu/analysis_truth.tar.gz" -C "$W"
echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git -C "$ROOT" rev-parse HEAD)"
status=0
passed=0
failed=0
for w in train hostbound train_roofline; do
  mkdir -p "$W/check/$w/runs"
  cp -r "$W/$w/runs/run-1" "$W/check/$w/runs/"
  db=$(find "$W/check/$w/runs/run-1" -name '*.db' | sort | head -1)
  echo "== $w: rocm-perf analyze runs/run-1/${db##*/run-1/} (kernel time, ms: $("$RP" analyze "$db" -o "$W/check/$w" --quiet))"
  python3 "$ROOT/bench/cuda/check_nvtx_ranges.py" "$W/check/$w" --no-expect >"$W/$w.jsonl" || status=1
  cat "$W/$w.jsonl"
  passed=$((passed + $(grep -c '"ok": true' "$W/$w.jsonl" || true)))
  failed=$((failed + $(grep -c '"ok": false' "$W/$w.jsonl" || true)))
done
echo "checks passed: $passed of $((passed + failed))"
exit $status
