#!/usr/bin/env bash
# End-to-end cost of `rocm-perf analyze` (read, every analysis, the three JSON files written) on generated
# schema-faithful rocpd databases of growing size: N dispatches over 8 streams with cross-stream events,
# host syncs and copies. Prints one line per run (wall and CPU time, peak RSS, the 1-minute load average just
# before: on a shared machine the CPU time is the figure that does not depend on the other jobs) and the
# medians per size.
#   bench/analyze_scaling.sh [BUILD_DIR=build] [SIZES="1000000 3000000 10000000"] [REPEATS=3]
set -euo pipefail
BUILD=${1:-build}
SIZES=${SIZES:-"1000000 3000000 10000000"}
REPEATS=${REPEATS:-3}
WORK=${WORK:-$(mktemp -d /tmp/rpl-bench-XXXXXX)}
mkdir -p "$WORK"
source "$(dirname "$0")/machine_header.sh"
bench_header "SIZES=\"$SIZES\" REPEATS=$REPEATS bench/analyze_scaling.sh $BUILD"
echo "# work dir $WORK"
for n in $SIZES; do
  db="$WORK/trace_$n"
  [ -f "$db.db" ] || "$BUILD/bench/gen_rocpd" -n "$n" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$db" 2>/dev/null
  walls=()
  cpus=()
  for r in $(seq "$REPEATS"); do
    rm -rf "$WORK/out"
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BUILD/src/cli/rocm-perf" analyze "$db.db" -o "$WORK/out" --quiet >/dev/null
    read -r wall user sys rss_kb < "$WORK/time"
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')")
    echo "n=$n run=$r wall_s=$wall cpu_s=${cpus[-1]} (user $user + sys $sys) peak_rss_mb=$((rss_kb / 1024)) db_mb=$(( $(stat -c %s "$db.db") / 1048576 )) dag_json_mb=$(( $(stat -c %s "$WORK/out/dag.json") / 1048576 )) load_before=$load"
  done
  median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (REPEATS + 1) / 2 ))p")
  cpu_median=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(( (REPEATS + 1) / 2 ))p")
  echo "n=$n median_wall_s=$median per_million_s=$(awk -v w="$median" -v n="$n" 'BEGIN{printf "%.3f", w / (n / 1e6)}') median_cpu_s=$cpu_median cpu_per_million_s=$(awk -v w="$cpu_median" -v n="$n" 'BEGIN{printf "%.3f", w / (n / 1e6)}')"
done
