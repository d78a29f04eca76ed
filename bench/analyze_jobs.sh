#!/usr/bin/env bash
# `rocm-perf analyze --jobs N` against --jobs 1 (issue 32), side by side: in each round every job count runs
# once on the same input, the order of the job counts reversed every other round, so that they share the
# machine's load. Cases (each generated once under WORK, kept when KEEP=1):
#   single  one database of N dispatches (gen_rocpd, 8 streams): the analyses side by side, the read alone
#   procs   the same N dispatches as P per-process databases, `analyze a_0.db ... a_{P-1}.db` (one merged trace)
#   ranks   R ranks of a synthetic job (gen_multi_rank), `analyze DIR` (the analysis across ranks)
# Prints one line per run (wall, CPU = user + sys, peak RSS, the 1-minute load average just before), whether
# every output file and stdout are byte-identical to --jobs 1's, then per case and job count the medians, and
# the median over rounds of wall(--jobs 1) / wall(--jobs N) and cpu(N) / cpu(1), taken within each round.
#   [N=10000000] [P=4] [R=8] [RANK_DISPATCHES=1000000] [REPEATS=3] [JOBS="1 2"] [CASES="single procs ranks"]
#   [WORK=DIR] [KEEP=0] [DEBUG=0] bench/analyze_jobs.sh [BUILD_DIR=build]
# DEBUG=1 runs analyze with --debug and prints its step lines (CPU, wall and peak RSS of each step, each
# database's read and merge, each analysis chain's CPU time on its thread); --debug resets the peak per step, so a
# run's peak_rss_mb is then the largest step peak.
set -euo pipefail
BUILD=${1:-build}
N=${N:-10000000}
P=${P:-4}
R=${R:-8}
RANK_DISPATCHES=${RANK_DISPATCHES:-1000000}
REPEATS=${REPEATS:-3}
JOBS=${JOBS:-"1 2"}
CASES=${CASES:-"single procs ranks"}
KEEP=${KEEP:-0}
DEBUG=${DEBUG:-0}
BIN=${BIN:-$BUILD/src/cli/rocm-perf}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/rpl-jobs-XXXXXX")}
mkdir -p "$WORK"
source "$(dirname "$0")/machine_header.sh"
bench_header "N=$N P=$P R=$R RANK_DISPATCHES=$RANK_DISPATCHES REPEATS=$REPEATS JOBS=\"$JOBS\" CASES=\"$CASES\" DEBUG=$DEBUG bench/analyze_jobs.sh $BUILD"
echo "# binary: $BIN ($("$BIN" --version 2>/dev/null | head -1 || echo '?'))"
echo "# work dir $WORK; free disk $(df -h --output=avail "$WORK" | tail -1 | tr -d ' ')"
cleanup() { [ "$KEEP" = 1 ] || rm -rf "$WORK"; }
trap cleanup EXIT

generate() {
  local case=$1 start
  start=$(date +%s)
  case $case in
    single) [ -f "$WORK/single.db" ] || "$BUILD/bench/gen_rocpd" -n "$N" -s 8 --event-every 50 --sync-every 5000 \
              --copy-every 1000 -o "$WORK/single" 2>/dev/null ;;
    procs) [ -f "$WORK/procs_0.db" ] || "$BUILD/bench/gen_rocpd" -n "$N" -s 8 -p "$P" --event-every 50 \
             --sync-every 5000 --copy-every 1000 -o "$WORK/procs" 2>/dev/null ;;
    ranks) [ -d "$WORK/ranks" ] || "$BUILD/bench/gen_multi_rank" --ranks "$R" --dispatches "$RANK_DISPATCHES" \
             --straggler 1 --straggler-delay-ns 200000 -o "$WORK/ranks" 2>/dev/null ;;
  esac
  echo "# case $case ready in $(( $(date +%s) - start )) s: $(du -sm "$WORK"/"$case"* | awk '{s += $1} END {print s}') MB"
}

inputs() {
  case $1 in
    single) echo "$WORK/single.db" ;;
    procs) for ((i = 0; i < P; i++)); do echo "$WORK/procs_$i.db"; done ;;
    ranks) echo "$WORK/ranks" ;;
  esac
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for case in $CASES; do
  generate "$case"
  mapfile -t in < <(inputs "$case")
  declare -A walls=() cpus=() rsss=() wall_ratio=() cpu_ratio=()
  for r in $(seq "$REPEATS"); do
    order=$JOBS
    [ $((r % 2)) -eq 0 ] && order=$(echo "$JOBS" | tr ' ' '\n' | tac | tr '\n' ' ')
    declare -A round_wall=() round_cpu=()
    for j in $order; do
      out="$WORK/out_j$j"
      rm -rf "$out"
      load=$(cut -d' ' -f1 /proc/loadavg)
      debug=()
      [ "$DEBUG" = 1 ] && debug=(--debug)
      /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" analyze "${debug[@]}" --jobs "$j" "${in[@]}" -o "$out" --quiet \
        >"$out.stdout" 2>"$WORK/err" || { echo "case=$case jobs=$j run=$r FAILED: $(tail -c 300 "$WORK/err")"; exit 1; }
      read -r wall user sys rss_kb < <(tail -1 "$WORK/time")
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
      if [ "$DEBUG" = 1 ]; then
        grep '^debug: .*\(s CPU\|peak RSS\)' "$WORK/err" | sed "s/^/  case=$case jobs=$j run=$r /"
        rss_kb=$(sed -n 's/.*peak RSS \([0-9]*\) MB.*/\1/p' "$WORK/err" | sort -n | tail -1)
        rss_kb=$((rss_kb * 1024))
      fi
      same="reference"
      if [ "$j" != "${JOBS%% *}" ] && [ -d "$WORK/out_j${JOBS%% *}" ]; then
        same=identical
        for f in "$out"/* "$out.stdout"; do
          ref="$WORK/out_j${JOBS%% *}${f#"$out"}"
          cmp -s "$f" "$ref" || same="DIFFERENT($(basename "$f"))"
        done
      fi
      walls[$j]+="$wall " cpus[$j]+="$cpu " rsss[$j]+="$((rss_kb / 1024)) "
      round_wall[$j]=$wall round_cpu[$j]=$cpu
      echo "case=$case jobs=$j run=$r wall_s=$wall cpu_s=$cpu (user $user + sys $sys) peak_rss_mb=$((rss_kb / 1024)) load_before=$load outputs=$same"
    done
    first=${JOBS%% *}
    for j in $JOBS; do
      [ "$j" = "$first" ] && continue
      wall_ratio[$j]+="$(awk -v a="${round_wall[$first]}" -v b="${round_wall[$j]}" 'BEGIN{printf "%.3f", a / b}') "
      cpu_ratio[$j]+="$(awk -v a="${round_cpu[$first]}" -v b="${round_cpu[$j]}" 'BEGIN{printf "%.3f", b / a}') "
    done
  done
  for j in $JOBS; do
    echo "median case=$case jobs=$j wall_s=$(echo "${walls[$j]}" | median) cpu_s=$(echo "${cpus[$j]}" | median) peak_rss_mb=$(echo "${rsss[$j]}" | median) (runs: wall ${walls[$j]}; cpu ${cpus[$j]}; rss ${rsss[$j]})"
  done
  for j in $JOBS; do
    [ "$j" = "${JOBS%% *}" ] && continue
    echo "ratio case=$case jobs=$j wall_speedup=$(echo "${wall_ratio[$j]}" | median) cpu_ratio=$(echo "${cpu_ratio[$j]}" | median) (per round: wall ${wall_ratio[$j]}; cpu ${cpu_ratio[$j]})"
  done
  unset walls cpus rsss wall_ratio cpu_ratio
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
