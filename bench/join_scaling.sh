#!/usr/bin/env bash
# Host synchronisations as join nodes (issue 19 item 9): `rocm-perf analyze` on traces with many streams and
# a hipDeviceSynchronize every 2 launches, up to 10,000 streams x 10,000 syncs. Prints, per size, wall time
# and peak RSS (/usr/bin/time -v) and the DAG's node, join and edge counts from dag.json.
#   bench/join_scaling.sh [BUILD_DIR=build]   (SIZES="1000 3000 10000": streams = syncs; WORK=/tmp/dir)
set -euo pipefail
BUILD=${1:-build}
SIZES=${SIZES:-"1000 3000 10000"}
WORK=${WORK:-$(mktemp -d /tmp/rpl-join-XXXXXX)}
mkdir -p "$WORK"
source "$(dirname "$0")/machine_header.sh"
bench_header "SIZES=\"$SIZES\" bench/join_scaling.sh $BUILD"
echo "# work dir $WORK"
for k in $SIZES; do
  db="$WORK/join_$k"
  n=$((2 * k))
  gen=("$BUILD/bench/gen_rocpd" -n "$n" -s "$k" --device-sync-every 2 --sync-every 0 --copy-every 0 -o "$db")
  [ -f "$db.db" ] || "${gen[@]}" 2>/dev/null
  echo "## streams=$k device_syncs=$k dispatches=$n db_mb=$(( $(stat -c %s "$db.db") / 1048576 )) (${gen[*]##*/})"
  rm -rf "$WORK/out"
  load=$(cut -d" " -f1 /proc/loadavg)
  /usr/bin/time -v -o "$WORK/time" "$BUILD/src/cli/rocm-perf" analyze "$db.db" -o "$WORK/out" --quiet >/dev/null
  echo "  load average before: $load"
  grep -E "Elapsed \(wall clock\)|User time|System time|Maximum resident set size|Exit status" "$WORK/time" | sed 's/^\t*/  /'
  python3 - "$WORK/out/dag.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["edge_counts"]
print(f"  dag: node_count={d['node_count']} join_nodes={d['join_nodes']} edges={sum(e.values())} {e}")
PY
done
