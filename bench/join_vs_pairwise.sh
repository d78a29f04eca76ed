#!/usr/bin/env bash
# Join nodes against the former pairwise host-sync edges on the same in-memory trace (bench_critical_path:
# S streams, 2*S dispatches round-robin, a device synchronise every 2 dispatches, so S syncs): time, peak
# RSS, edge count, critical path and what-if prediction of each form. The pairwise form grows with S^2 per
# sync, so it runs only up to PAIRWISE_MAX streams.
#   bench/join_vs_pairwise.sh [BUILD_DIR=build]   (SIZES="250 500 1000 10000" PAIRWISE_MAX=1000)
set -euo pipefail
BUILD=${1:-build}
SIZES=${SIZES:-"250 500 1000 10000"}
PAIRWISE_MAX=${PAIRWISE_MAX:-1000}
source "$(dirname "$0")/machine_header.sh"
bench_header "SIZES=\"$SIZES\" PAIRWISE_MAX=$PAIRWISE_MAX bench/join_vs_pairwise.sh $BUILD"
for s in $SIZES; do
  args=(--streams "$s" --dispatches $((2 * s)) --sync-every 2 --event-every 0)
  echo "## streams=$s device_syncs=$s dispatches=$((2 * s)) load_before=$(cut -d' ' -f1 /proc/loadavg)"
  "$BUILD/bench/bench_critical_path" "${args[@]}" | sed 's/^/  join: /'
  if [ "$s" -le "$PAIRWISE_MAX" ]; then
    "$BUILD/bench/bench_critical_path" "${args[@]}" --pairwise-host-sync | sed 's/^/  pairwise: /'
  fi
done
