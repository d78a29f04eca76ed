#!/usr/bin/env bash
# End-to-end cost of `rocm-perf analyze` (read, every analysis, every output file written) on generated
# schema-faithful rocpd databases of growing size: N dispatches over 8 streams with cross-stream events,
# host syncs and copies. Each database is generated, measured and deleted before the next (100M dispatches
# is about 18 GB of SQLite). Prints one line per run (wall and CPU time, peak RSS, the 1-minute load average
# just before: on a shared machine the CPU time is the figure that does not depend on the other jobs), the
# medians per size, and issue 32's targets for the sizes it names, met or not met.
#   [SIZES="1000000 10000000 30000000 100000000"] [REPEATS=1] [BIN=BUILD/src/cli/rocm-perf] [KEEP=0]
#   [RSS_CAP_GB=0] [BINS="before=PATH after=PATH"] bench/analyze_scaling.sh [BUILD_DIR=build]
# BINS: several binaries side by side on the same databases, their runs alternating (run 1 of each, then run 2
# of each, ...), so that they share the machine's load; the lines and medians carry each binary's label, and
# the targets are judged for each binary.
# RSS_CAP_GB > 0 runs analyze under `ulimit -v` of that many GB (address space, an upper bound of RSS), so that
# a size that would exhaust a shared machine fails with an allocation error (reported) instead of the OOM killer.
set -euo pipefail
BUILD=${1:-build}
SIZES=${SIZES:-"1000000 10000000 30000000 100000000"}
REPEATS=${REPEATS:-1}
BIN=${BIN:-$BUILD/src/cli/rocm-perf}
BINS=${BINS:-"=$BIN"}  # label=path pairs; the default has an empty label (the lines keep their old form)
KEEP=${KEEP:-0}
RSS_CAP_GB=${RSS_CAP_GB:-0}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/rpl-bench-XXXXXX")}
mkdir -p "$WORK"
source "$(dirname "$0")/machine_header.sh"
bench_header "SIZES=\"$SIZES\" REPEATS=$REPEATS BINS=\"$BINS\" RSS_CAP_GB=$RSS_CAP_GB bench/analyze_scaling.sh $BUILD"
for pair in $BINS; do
  echo "# binary ${pair%%=*}: ${pair#*=} ($("${pair#*=}" --version 2>/dev/null | head -1 || echo '?'))"
done
echo "# work dir $WORK; free disk $(df -h --output=avail "$WORK" | tail -1 | tr -d ' ')"

# Issue 32's targets: CPU seconds and peak RSS (MB) per size; none for other sizes.
target() {
  local n=$1 cpu=$2 rss_mb=$3 label=$4 cpu_max="" rss_max=""
  case $n in
    1000000) cpu_max=1.5 ;;
    10000000) cpu_max=15 rss_max=600 ;;
    100000000) cpu_max=150 rss_max=2048 ;;
  esac
  if [ -n "$cpu_max" ]; then
    echo "target ${label:+bin=$label }n=$n cpu_s<=$cpu_max: $(awk -v c="$cpu" -v m="$cpu_max" 'BEGIN{print (c <= m) ? "met" : "not met"}') (median cpu_s=$cpu)"
  fi
  if [ -n "$rss_max" ]; then
    echo "target ${label:+bin=$label }n=$n peak_rss_mb<=$rss_max: $([ "$rss_mb" -le "$rss_max" ] && echo met || echo "not met") (max peak_rss_mb=$rss_mb)"
  fi
}

for n in $SIZES; do
  db="$WORK/trace_$n"
  if [ ! -f "$db.db" ]; then
    gen_start=$(date +%s)
    "$BUILD/bench/gen_rocpd" -n "$n" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$db" 2>/dev/null
    echo "# n=$n generated in $(( $(date +%s) - gen_start )) s: $(( $(stat -L -c %s "$db.db") / 1048576 )) MB"
  fi
  declare -A walls=() cpus=() max_rss=()
  for r in $(seq "$REPEATS"); do
    for pair in $BINS; do
      label=k${pair%%=*} bin=${pair#*=} tag=${pair%%=*}
      tag=${tag:+bin=$tag }
      rm -rf "$WORK/out"
      load=$(cut -d' ' -f1 /proc/loadavg)
      status=0
      (
        if [ "$RSS_CAP_GB" -gt 0 ]; then ulimit -v $((RSS_CAP_GB * 1024 * 1024)); fi
        /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$bin" analyze "$db.db" -o "$WORK/out" --quiet >/dev/null 2>"$WORK/err"
      ) || status=$?
      if [ "$status" -ne 0 ]; then
        echo "${tag}n=$n run=$r FAILED exit=$status (RSS_CAP_GB=$RSS_CAP_GB): $(tail -c 300 "$WORK/err" | tr '\n' ' ')"
        tail -1 "$WORK/time" | sed 's/^/  time: /'
        continue
      fi
      read -r wall user sys rss_kb < <(tail -1 "$WORK/time")
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
      walls[$label]+="$wall "
      cpus[$label]+="$cpu "
      rss_mb=$((rss_kb / 1024))
      [ "$rss_mb" -gt "${max_rss[$label]:-0}" ] && max_rss[$label]=$rss_mb
      echo "${tag}n=$n run=$r wall_s=$wall cpu_s=$cpu (user $user + sys $sys) peak_rss_mb=$rss_mb db_mb=$(( $(stat -L -c %s "$db.db") / 1048576 )) dag_json_mb=$(( $(stat -c %s "$WORK/out/dag.json") / 1048576 )) load_before=$load"
    done
  done
  for pair in $BINS; do
    label=k${pair%%=*} tag=${pair%%=*}
    tag=${tag:+bin=$tag }
    if [ -n "${walls[$label]:-}" ]; then
      k=$(wc -w <<<"${walls[$label]}")
      median=$(tr ' ' '\n' <<<"${walls[$label]}" | grep . | sort -n | sed -n "$(( (k + 1) / 2 ))p")
      cpu_median=$(tr ' ' '\n' <<<"${cpus[$label]}" | grep . | sort -n | sed -n "$(( (k + 1) / 2 ))p")
      echo "${tag}n=$n median_wall_s=$median per_million_s=$(awk -v w="$median" -v n="$n" 'BEGIN{printf "%.3f", w / (n / 1e6)}') median_cpu_s=$cpu_median cpu_per_million_s=$(awk -v w="$cpu_median" -v n="$n" 'BEGIN{printf "%.3f", w / (n / 1e6)}') max_peak_rss_mb=${max_rss[$label]}"
      target "$n" "$cpu_median" "${max_rss[$label]}" "${label#k}"
    else
      echo "${tag}n=$n no successful run"
      case $n in 1000000|10000000|100000000) echo "target ${tag}n=$n: not met (no successful run)" ;; esac
    fi
  done
  [ "$KEEP" = 1 ] || rm -f "$db.db"
done
rm -rf "$WORK/out"
