#!/usr/bin/env bash
# The HTML report and the Perfetto export on N dispatches (default 1M) over 4 streams: wall time and peak RSS
# of `rocm-perf analyze` with and without report.html (the difference is the page's cost), the page's size,
# and wall time, peak RSS and size of `rocm-perf export perfetto` (read, DAG, export). Prints one line per run.
#   bench/visual_1m.sh [BUILD_DIR=build]      (N=1000000 REPEATS=3 WORK=/tmp/dir to override)
set -euo pipefail
BUILD=${1:-build}
N=${N:-1000000}
REPEATS=${REPEATS:-3}
WORK=${WORK:-$(mktemp -d /tmp/rpl-visual-XXXXXX)}
mkdir -p "$WORK"
source "$(dirname "$0")/machine_header.sh"
bench_header "N=$N REPEATS=$REPEATS bench/visual_1m.sh $BUILD"
echo "# work dir $WORK"
db="$WORK/visual_$N"
[ -f "$db.db" ] || "$BUILD/bench/gen_rocpd" -n "$N" -s 4 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$db" 2>/dev/null
echo "# database: $db.db, $(( $(stat -c %s "$db.db") / 1048576 )) MB (gen_rocpd -n $N -s 4 --event-every 50 --sync-every 5000 --copy-every 1000)"
measure() {  # label, then the command
  local label=$1
  shift
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" >/dev/null
  read -r wall user sys rss_kb < "$WORK/time"
  echo "$label wall_s=$wall cpu_s=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}') peak_rss_mb=$((rss_kb / 1024)) load_before=$load"
}
for r in $(seq "$REPEATS"); do
  rm -rf "$WORK/out_nohtml" "$WORK/out_html" "$WORK/trace.perfetto.json"
  measure "run=$r analyze --no-html" "$BUILD/src/cli/rocm-perf" analyze "$db.db" -o "$WORK/out_nohtml" --quiet --no-html
  measure "run=$r analyze (with report.html)" "$BUILD/src/cli/rocm-perf" analyze "$db.db" -o "$WORK/out_html" --quiet
  echo "run=$r report_html_bytes=$(stat -c %s "$WORK/out_html/report.html")"
  measure "run=$r export perfetto" "$BUILD/src/cli/rocm-perf" export perfetto "$db.db" -o "$WORK/trace.perfetto.json" --quiet
  echo "run=$r perfetto_json_bytes=$(stat -c %s "$WORK/trace.perfetto.json")"
done
