#!/usr/bin/env bash
# Cost of candidate metric sets for the in-process CUPTI counter pass (librpl_cupti_counters.so): for each set,
# one run of the app with the library, wall ms per kernel instance above a plain run (best of 2), and the
# replay passes CUPTI reports.
#   [LIB=.devbuild-R/lib/librpl_cupti_counters.so] [ONLY="A_light B_no_stalls"] bench/cuda/cupti_sets.sh APP [ARGS...]
set -u
LIB=${LIB:-$(pwd)/.devbuild-R/lib/librpl_cupti_counters.so}
source "$(dirname "$0")/metric_lists.sh"
R=$BYTES; F=$FP; X=$TENSOR_SCREEN; B=$CLASSIFIER; H=$HIT_RATES
declare -A SETS=(
  [A_light_now]="$R,$F,$X,$B,$H,$LAT,$(st selected not_selected),$MEM"
  [B_no_stalls]="$R,$F,$X,$B,$H"
  [C_4_mem_stalls]="$R,$F,$X,$B,$H,$LAT,$(st selected not_selected long_scoreboard lg_throttle short_scoreboard mio_throttle)"
  [D_2_mem_stalls]="$R,$F,$X,$B,$H,$LAT,$(st selected not_selected long_scoreboard short_scoreboard)"
  [E_roofline_only]="$R,$F,$X"
  [F_time_only]="gpu__time_duration.sum"
)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
base=999999
for i in 1 2; do t0=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(ms $t0); [ $b -lt $base ] && base=$b; done
echo "app: $*"; echo "plain run: $base ms (best of 2)"
printf "%-18s %8s %7s %10s %14s\n" set metrics passes instances "ms/instance+"
W=$(mktemp -d)
for name in ${ONLY:-$(printf "%s\n" "${!SETS[@]}" | sort)}; do
  rm -rf "$W/o"; mkdir -p "$W/o"
  t0=$(date +%s%N)
  CUDA_INJECTION64_PATH="$LIB" RPL_COUNTERS_METRICS="${SETS[$name]}" RPL_COUNTERS_OUT="$W/o" "$@" >/dev/null 2>&1
  wall=$(ms $t0)
  n=$(grep -c '^"[0-9]' "$W"/o/*.csv 2>/dev/null | awk -F: '{s += $NF} END {print s + 0}')
  passes=$(grep -ho 'in [0-9]* replay' "$W"/o/*.csv 2>/dev/null | head -1 | awk '{print $2}')
  printf "%-18s %8s %7s %10s %14.1f\n" "$name" "$(echo "${SETS[$name]}" | tr ',' '\n' | wc -l)" "${passes:-?}" "$n" \
    "$(awk -v w="$wall" -v b="$base" -v n="$n" 'BEGIN {print (w - b) / (n > 0 ? n : 1)}')"
done
rm -rf "$W"
