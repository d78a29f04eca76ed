#!/usr/bin/env bash
# Exports a 1M-dispatch rocpd trace (bench/gen_rocpd: 8 streams, event record/wait every 50 dispatches, host
# syncs, copies) with `rocm-perf export perfetto --format pftrace` and decodes the file with Perfetto's own
# schema, perfetto_trace.proto (protos/perfetto/trace/perfetto_trace.proto of github.com/google/perfetto; not
# in this repository), through `protoc --decode=perfetto.protos.Trace`: every packet must decode against
# Perfetto's field numbers and types. Prints the export's time and peak memory, the file size and what the
# decoded trace holds (packets, slice begins/ends, tracks, flows).
#   bench/perfetto/check_pftrace.sh PERFETTO_TRACE_PROTO [BUILD_DIR] [DISPATCHES]
# Needs: protoc (protobuf-compiler), /usr/bin/time, the build's rocm-perf and bench/gen_rocpd.
set -euo pipefail
proto=${1:?usage: $0 PERFETTO_TRACE_PROTO [BUILD_DIR] [DISPATCHES]}
build=${2:-build}
n=${3:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "date: $(date -u +%FT%TZ)  host: $(nproc) cores  dispatches: $n"
"$build/bench/gen_rocpd" -n "$n" -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -o "$work/big" 2>/dev/null
db=$(ls "$work"/big*.db | head -1)
for format in pftrace json; do
  out="$work/trace.$format"
  /usr/bin/time -f "%e s, peak RSS %M KiB" -o "$work/time.$format" \
    "$build/src/cli/rocm-perf" export perfetto "$db" --format "$format" -o "$out" --quiet
  echo "export --format $format: $(cat "$work/time.$format"), $(stat -c %s "$out") bytes"
done
cp "$proto" "$work/perfetto_trace.proto"
(cd "$work" && protoc --decode=perfetto.protos.Trace perfetto_trace.proto < trace.pftrace > decoded.txt)
echo "decoded with Perfetto's perfetto_trace.proto: ok"
printf 'packets: %s\n' "$(grep -c '^packet {' "$work/decoded.txt")"
printf 'slice begins: %s\n' "$(grep -c 'type: TYPE_SLICE_BEGIN' "$work/decoded.txt")"
printf 'slice ends: %s\n' "$(grep -c 'type: TYPE_SLICE_END' "$work/decoded.txt")"
printf 'track descriptors: %s\n' "$(grep -c '^  track_descriptor {' "$work/decoded.txt")"
printf 'flow starts: %s\n' "$(grep -c '^    flow_ids_old:' "$work/decoded.txt")"
printf 'flow ends: %s\n' "$(grep -c '^    terminating_flow_ids_old:' "$work/decoded.txt")"
printf 'unknown fields (not in Perfetto'"'"'s schema): %s\n' "$(grep -cE '^ *[0-9]+: ' "$work/decoded.txt" || true)"
