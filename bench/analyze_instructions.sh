#!/usr/bin/env bash
# Instructions executed by `rocm-perf analyze` (valgrind --tool=callgrind, Ir) on one generated database, for
# each binary given: a figure that, unlike CPU time on a shared machine, does not depend on the other jobs.
# Also the inclusive instructions of the main steps (reading, kernel statistics, critical path, outputs; the
# largest of callgrind's lines for each function).
#   [N=100000] bench/analyze_instructions.sh BUILD_DIR LABEL=BINARY...
set -euo pipefail
BUILD=$1
shift
N=${N:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpl-instr-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/machine_header.sh"
bench_header "N=$N bench/analyze_instructions.sh $BUILD $*"
"$BUILD/bench/gen_rocpd" -n "$N" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$WORK/t" 2>/dev/null
echo "# database: gen_rocpd -n $N -s 8 --event-every 50 --sync-every 5000 --copy-every 1000"
for spec in "$@"; do
  label=${spec%%=*}
  bin=${spec#*=}
  rm -rf "$WORK/out"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$bin" analyze "$WORK/t.db" -o "$WORK/out" --quiet \
    >/dev/null 2>"$WORK/vg.err"
  echo "$label instructions=$(grep -o 'refs: *[0-9,]*' "$WORK/vg.err" | tr -d ' ,' | cut -d: -f2)"
  callgrind_annotate --inclusive=yes "$WORK/cg.out" 2>/dev/null |
    grep -E 'rpl::app::load_trace\(|rpl::analysis::compute_kernel_stats\(|rpl::analysis::analyze_critical_path\(|rpl::report::write_output_files\(std' |
    sed -E 's/^ *([0-9,]+) \( *([0-9.]+)%\) +[^:]*:([^(]*)\(.*/\3 \1/' | tr -d , |
    awk '{ if ($2 > max[$1]) max[$1] = $2 } END { for (f in max) if (f ~ /^rpl::/) printf "  %s inclusive=%d\n", f, max[f] }' | sort
done
