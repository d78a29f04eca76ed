#!/usr/bin/env bash
# Issue 17 (Outputs) on the H100: real traces from our CUDA collector exported as rocprofv3 CSV and Perfetto
# protobuf, and the madengine post-script on a real profile. Everything in $OUT/export_formats.tar.gz (the
# databases, CSV files, pftrace files) plus $OUT/export_formats.txt (the log with row counts and timings).
#   scripts/gpu/export_formats.sh --devbuild DIR   (DIR from scripts/gpu/stage_devbuild.sh; run from the repository root)
#   DRY_RUN=1 ...: no GPU, the committed H100 example trace stands in for each profile (checks the script)
# What to check in export_formats.txt: every "CHECK" line says ok (CSV row counts equal the database's
# tables; kernel_trace.csv / cuda_api_trace.csv / memory_copy_trace.csv present with rocprofv3's headers;
# the pftrace files are non-empty; the post-script wrote csv/ and trace.pftrace), and the export timings
# of the 200k-launch trace.
set -u
[ "${1:-}" = --devbuild ] && [ -n "${2:-}" ] || { echo "usage: $0 --devbuild DIR" >&2; exit 2; }
DEVBUILD=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP=$DEVBUILD/lib/rocm-perf
OUT=${OUT:?OUT must name the output folder}
W=$(mktemp -d)
LOG=$OUT/export_formats.txt
exec > >(tee "$LOG") 2>&1
date -u +"date %Y-%m-%dT%H:%M:%SZ"; [ "${DRY_RUN:-0}" = 1 ] || nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
check() {  # name, condition command...
  local name=$1; shift
  if "$@"; then echo "CHECK $name: ok"; else echo "CHECK $name: FAILED"; fi
}
count_rows() { echo $(( $(wc -l < "$1") - 1 )); }
db_count() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }

profile() {  # name, app and args
  local name=$1; shift
  if [ "${DRY_RUN:-0}" = 1 ]; then  # here, without a GPU: the committed H100 trace stands in for the run
    mkdir -p "$W/$name/runs/run-1"; cp "$ROOT/examples/traces/multistream-h100.db" "$W/$name/runs/run-1/"
    echo '{"runs": {"representative_run": 1}}' > "$W/$name/profile.json"; return
  fi
  local t0=$(date +%s%N)
  "$RP" profile --runs 1 --no-html -o "$W/$name" -- "$@" >"$W/$name.out" 2>"$W/$name.err"
  echo "== profile $name: rc=$? $(ms "$t0") ms"; tail -3 "$W/$name.err"
}
export_all() {  # name
  local name=$1 db
  db=$(find "$W/$name/runs/run-1" -name '*.db' | head -1)
  [ -n "$db" ] || { echo "CHECK $name database: FAILED (none)"; return; }
  local t0=$(date +%s%N)
  "$RP" export csv "$db" -o "$W/$name/csv" --quiet; echo "export csv $name: rc=$? $(ms "$t0") ms"
  t0=$(date +%s%N)
  "$RP" export perfetto "$db" --format pftrace -o "$W/$name/trace.pftrace" --quiet
  echo "export pftrace $name: rc=$? $(ms "$t0") ms, $(stat -c %s "$W/$name/trace.pftrace" 2>/dev/null) bytes"
  t0=$(date +%s%N)
  "$RP" export perfetto "$db" -o "$W/$name/trace.json" --quiet
  echo "export json $name: rc=$? $(ms "$t0") ms, $(stat -c %s "$W/$name/trace.json" 2>/dev/null) bytes"
  ls "$W/$name/csv"
  head -2 "$W/$name/csv/kernel_trace.csv"
  check "$name kernel rows" [ "$(count_rows "$W/$name/csv/kernel_trace.csv")" = "$(db_count "$db" 'SELECT COUNT(*) FROM rocpd_kernel_dispatch')" ]
  check "$name api rows" [ "$(count_rows "$W/$name/csv/cuda_api_trace.csv")" = "$(db_count "$db" 'SELECT COUNT(*) FROM rocpd_region')" ]
  check "$name kernel header" grep -q '^"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id"' "$W/$name/csv/kernel_trace.csv"
  check "$name pftrace" [ -s "$W/$name/trace.pftrace" ]
}

profile multistream "$DEVBUILD/bin/multistream" --iters=3
export_all multistream
profile launch_bound "$DEVBUILD/bin/launch_bound" 200000
export_all launch_bound
# madengine's post-script on a real profile directory.
ROCM_PERF="$RP" bash "$ROOT/examples/madengine/scripts/rocm_perf_post.sh" "$W/multistream"
check "madengine post-script" [ -s "$W/multistream/trace.pftrace" -a -s "$W/multistream/csv/kernel_trace.csv" ]
rm -f "$W"/launch_bound/trace.json  # large; its size is in the log
(cd "$W" && tar -czf "$OUT/export_formats.tar.gz" multistream launch_bound $(ls *.err 2>/dev/null))
ls -la "$OUT"
