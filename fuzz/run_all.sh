#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 20) on its seed corpus, and fails when any target
# finds a crash, a hang (-timeout), a sanitizer report or a schema violation (the harness aborts).
#   fuzz/run_all.sh [SECONDS]
# Environment: FUZZ_BUILD_DIR (default build-fuzz, configured with CC=clang-15 CXX=clang++-15 -DRPL_FUZZ=ON),
# FUZZ_OUT (default build-fuzz/fuzz-out: working corpora, logs, and crash artifacts), FUZZ_TARGETS (subset),
# FUZZ_SEED (libFuzzer's -seed, default 1: a CI run repeats the mutations a developer's run checked; 0 = random).
# Seeds are real files of the repository (rocpd traces, ncu CSVs, code objects, ceilings) plus the small
# hand-made ones in fuzz/seeds/; each target's corpus grows in FUZZ_OUT across runs.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
build=${FUZZ_BUILD_DIR:-build-fuzz}
out=${FUZZ_OUT:-$build/fuzz-out}
targets=${FUZZ_TARGETS:-"fuzz_rocpd_bytes fuzz_rocpd_sql fuzz_capture fuzz_ncu_csv fuzz_att fuzz_code_object fuzz_ceilings"}
mkdir -p "$out/artifacts"

seed() {  # seed TARGET FILE [PREFIX_BYTE]: copy FILE into the target's corpus, optionally after one mode byte
  local dir="$out/corpus/$1" name
  mkdir -p "$dir"
  name=$(basename "$2")${3:+.$3}
  if [[ -n "${3:-}" ]]; then { printf "\\x$3"; cat "$2"; } >"$dir/$name"; else cp "$2" "$dir/$name"; fi
}
seed fuzz_rocpd_bytes examples/traces/multistream-h100.db
mkdir -p "$out/corpus/fuzz_rocpd_sql" && printf '\x00\x00\x00\x00' >"$out/corpus/fuzz_rocpd_sql/empty"
for f in tests/data/ncu/*.csv; do seed fuzz_ncu_csv "$f"; done
for f in fuzz/seeds/att/*; do seed fuzz_att "$f"; done
seed fuzz_code_object tests/data/hip/kernels-gfx90a.co 00
for f in tests/data/cuobjdump/*.txt; do seed fuzz_code_object "$f" 02; done
seed fuzz_ceilings bench/cuda/results/2026-11-24/h100_ceilings.json
for f in fuzz/seeds/ceilings/*; do seed fuzz_ceilings "$f"; done
# The capture target writes its own valid manifest as a seed (it builds a capture with real blobs first).
: >"$out/empty.input"
if [[ -x "$build/fuzz/fuzz_capture" ]] && RPL_FUZZ_WRITE_SEED="$out/manifest.json" "$build/fuzz/fuzz_capture" "$out/empty.input" >/dev/null 2>&1; then
  seed fuzz_capture "$out/manifest.json" 00
fi

status=0
printf '%-18s %10s %8s %s\n' target executions exec/s result
for t in $targets; do
  log="$out/$t.log"
  max_len=4096
  [[ $t == fuzz_rocpd_bytes ]] && max_len=600000
  "$build/fuzz/$t" "$out/corpus/$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -max_len=$max_len \
    -seed="${FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  result=ok
  if ((rc != 0)); then
    result="FAILED (exit $rc): $(grep -m1 -E 'FINDING|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error' "$log")"
    status=1
  fi
  printf '%-18s %10s %8s %s\n' "$t" "${runs:-?}" "${speed:-?}" "$result"
done
exit $status
