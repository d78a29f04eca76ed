#!/usr/bin/env bash
# How many ncu replay passes, and how much time per kernel instance, each candidate metric set for
# `profile --roofline` costs. Runs ncu (kernel replay, cache control all, as profile does) over an app with
# many launches of one kernel, for each set, and reports passes (profiler__replayer_passes) and wall ms per
# instance above a plain run of the app.
#   [REPLAY_MODE=kernel|application] [ONLY="1_roofline ..."] bench/cuda/ncu_passes.sh APP [ARGS...]
set -u
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
source "$(dirname "$0")/metric_lists.sh"
R="$BYTES,$FP"; T=$TENSOR; B=$BASIC
declare -A SETS=(
  [1_roofline]="$R"
  [2_roofline+tensor]="$R,$T"
  [3_+basic]="$R,$T,$B"
  [4_+latency+mem_stalls]="$R,$T,$B,$LAT,$MEM,$(st selected)"
  [5_+all_stalls(current)]="$R,$T,$B,$ALL"
  [6_basic+latency+mem_stalls]="gpu__time_duration.sum,$B,$LAT,$MEM,$(st selected)"
)
t0=$(date +%s%N); "$@" >/dev/null 2>&1; base=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "plain run: $base ms"
printf "%-28s %8s %10s %12s %14s\n" set metrics passes instances "ms/instance+"
for name in ${ONLY:-$(printf "%s\n" "${!SETS[@]}" | sort)}; do
  m="${SETS[$name]},profiler__replayer_passes"
  t0=$(date +%s%N)
  "$NCU" --csv --page raw --print-units base --replay-mode "${REPLAY_MODE:-kernel}" --cache-control all --clock-control none \
    --metrics "$m" --log-file /tmp/ncu_passes.csv "$@" >/dev/null 2>/tmp/ncu_passes.err
  wall=$(( ($(date +%s%N) - t0) / 1000000 ))
  python3 - "$name" "$m" "$wall" "$base" <<'PY'
import csv, sys
name, m, wall, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [r for r in csv.reader(open("/tmp/ncu_passes.csv")) if r and not r[0].startswith("==")]
h = rows[0]; data = [r for r in rows[1:] if r[0].strip().isdigit()]
passes = sorted({r[h.index("profiler__replayer_passes")] for r in data}) if data else ["?"]
n = len(data)
print(f"{name:<28} {len(m.split(',')) - 1:>8} {','.join(passes):>10} {n:>12} {(wall - base) / max(n, 1):>14.1f}")
PY
done
