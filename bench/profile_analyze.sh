#!/usr/bin/env bash
# Where `rocm-perf analyze` spends CPU time and memory on one generated database (issue 32): the phase
# timings that --debug logs, /usr/bin/time -v's peak RSS, perf's inclusive time per function (DWARF call
# graphs) and heaptrack's peak heap consumers, when those tools are installed.
#   [N=1000000] [PHASES_ONLY=0] [BIN=BUILD/src/cli/rocm-perf] bench/profile_analyze.sh [BUILD_DIR=build]
# PHASES_ONLY=1 stops after the phase timings (perf and heaptrack take long and much disk at 10M and more).
set -euo pipefail
BUILD=${1:-build}
N=${N:-1000000}
PHASES_ONLY=${PHASES_ONLY:-0}
BIN=${BIN:-$BUILD/src/cli/rocm-perf}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpl-profile-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/machine_header.sh"
bench_header "N=$N PHASES_ONLY=$PHASES_ONLY BIN=$BIN bench/profile_analyze.sh $BUILD"
"$BUILD/bench/gen_rocpd" -n "$N" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$WORK/t" 2>/dev/null
echo "# database: gen_rocpd -n $N -s 8 --event-every 50 --sync-every 5000 --copy-every 1000; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## phases (--debug), /usr/bin/time"
/usr/bin/time -f "wall_s=%e user_s=%U sys_s=%S peak_rss_kb=%M" "$BIN" analyze "$WORK/t.db" -o "$WORK/out" --debug 2>&1 >/dev/null |
  grep -v '^wrote '
[ "$PHASES_ONLY" = 1 ] && exit 0
if command -v perf >/dev/null; then
  echo "## perf record -F 800 --call-graph dwarf: inclusive share of samples per function (>= 1.5%, project and SQLite entry points)"
  rm -rf "$WORK/out"
  perf record -q -F 800 --call-graph dwarf,16384 -o "$WORK/perf.data" "$BIN" analyze "$WORK/t.db" -o "$WORK/out" --quiet \
    >/dev/null 2>&1
  perf report -i "$WORK/perf.data" --children --sort symbol --stdio -g none 2>/dev/null |
    grep -E '^ +[0-9]' | grep -E 'rpl::|sqlite3_step' | grep -v '(inlined)' |
    awk '$1+0 >= 1.5' | sed -E 's/ +$//' | cut -c1-160
fi
if command -v heaptrack >/dev/null; then
  echo "## heaptrack: peak heap and the largest peak consumers (first project frame of each)"
  rm -rf "$WORK/out"
  heaptrack -o "$WORK/heap" "$BIN" analyze "$WORK/t.db" -o "$WORK/out" --quiet >/dev/null 2>&1
  heaptrack_print -f "$WORK/heap.zst" --print-peaks 1 --print-allocators 0 --print-temporary 0 --print-leaks 0 -n 12 \
    2>/dev/null | awk '/peak memory consumed over/ {line=$0; want=1; next}
      want && /(rpl::|layers\/|\.\.\/src\/)/ {print line "  <- " $0; want=0}'
  heaptrack_print -f "$WORK/heap.zst" -p 0 -a 0 -T 0 -l 0 2>/dev/null | grep -E 'peak heap|peak RSS'
fi
