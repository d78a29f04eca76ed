#!/usr/bin/env bash
# Executions per CPU-second (user + system) of one libFuzzer target: a fixed number of runs with a fixed
# -seed on a fresh copy of a seed corpus. On a machine shared with other jobs this moves much less than
# exec/s over wall time, so before/after comparisons of a target's speed use it.
#   bench/fuzz/cpu_rate.sh BINARY SEED_CORPUS_DIR RUNS LOG [extra libFuzzer flags]
# Prints one line: target, runs, CPU seconds, wall seconds, executions per CPU-second; LOG gets libFuzzer's.
set -euo pipefail
bin=$1 src=$2 runs=$3 log=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/corpus"
/usr/bin/time -f "%U %S %e" -o "$work/time" "$bin" "$work/corpus" -runs="$runs" -seed=1 -timeout=30 \
  -rss_limit_mb=4096 -print_final_stats=1 "$@" >"$log" 2>&1
read -r user sys wall <"$work/time"
done_runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
awk -v t="$(basename "$bin")" -v u="$user" -v s="$sys" -v w="$wall" -v n="$done_runs" \
  'BEGIN { printf "%-18s runs %7d  cpu %6.1f s  wall %6.1f s  exec/cpu-s %7.0f\n", t, n, u + s, w, n / (u + s) }'
