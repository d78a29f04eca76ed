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
targets=${FUZZ_TARGETS:-"fuzz_rocpd_bytes fuzz_rocpd_sql fuzz_capture fuzz_ncu_csv fuzz_att fuzz_code_object fuzz_ceilings fuzz_rocprofv3_json"}
mkdir -p "$out/artifacts"

fuzz/seed_corpora.sh "$out/corpus" "$build/fuzz"

status=0
printf '%-18s %10s %8s %s\n' target executions exec/s result
for t in $targets; do
  log="$out/$t.log"
  max_len=4096
  [[ $t == fuzz_rocpd_bytes ]] && max_len=600000
  [[ $t == fuzz_rocprofv3_json ]] && max_len=16384  # the compact seed is 7.5 KB
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
