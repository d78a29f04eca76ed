#!/usr/bin/env bash
# Issue 13 on the GPU, in one go (about 3 minutes on an H100):
#  - the bf16 transformer training step (bench/workloads/train_step.py) profiled with --range train_step (3 runs):
#    NVTX ranges recorded by the CUPTI collector, the steady-state window, launch shapes, the idle breakdown
#    and the launch_bound finding; the same trace analysed without --range (first to last kernel) for "before";
#  - its launch-bound variant (small model, .item() every step), same;
#  - the training step with the CUPTI roofline counters (first launch of each kernel): labels and "no rule fired";
#  - the example trace for `scripts/dev.sh example`: the multistream testbed with --roofline, run from its own
#    folder so the recorded command line is relative (./multistream).
# Writes $OUT/analysis_truth.tar.gz (rocm-perf outputs, databases, and summaries/*.txt: each terminal summary)
# and $OUT/analysis_truth.log (commands, exit codes, NVTX counts, and every summary once more).
#   scripts/gpu/analysis_truth.sh --devbuild DIR   (DIR from scripts/gpu/stage_devbuild.sh)
set -u
[ "${1:-}" = --devbuild ] && [ -n "${2:-}" ] || { echo "usage: $0 --devbuild DIR" >&2; exit 2; }
DEVBUILD=$(cd "$2" && pwd)
: "${OUT:?set OUT to the output folder}"
OUT=$(cd "$OUT" && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP=$DEVBUILD/lib/rocm-perf
ROOT=$(pwd)
W=$(mktemp -d); PY=python3; S=$W/summaries; mkdir -p "$S"
LOG=$OUT/analysis_truth.log
exec > >(tee -a "$LOG") 2>&1
date -u +"date %Y-%m-%dT%H:%M:%SZ"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"
run() {  # name, then rocm-perf arguments; the terminal summary goes to summaries/name.txt
  local name=$1; shift
  local t0=$(date +%s%N)
  echo "== $name: rocm-perf $*"
  "$RP" "$@" >"$S/$name.txt" 2>"$W/$name.err"; local rc=$?
  echo "== $name: rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
  tail -5 "$W/$name.err"; cp "$W/$name.err" "$S/$name.err"
}
markers() {  # database: NVTX ranges the collector stored, by name
  $PY - "$1" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT s.string, COUNT(*), SUM(r.\"end\" - r.start) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id "
                  "JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string c ON c.id = e.category_id "
                  "WHERE c.string = 'MARKER_CORE_API' GROUP BY 1").fetchall()
print("  NVTX ranges in", sys.argv[1].split("/")[-1], ":", rows if rows else "NONE")
PYEOF
}
first_db() { find "$1" -name '*_results.db' | sort | head -1; }

run train profile --runs 3 --range train_step -o "$W/train" -- $PY bench/workloads/train_step.py --steps 5
markers "$(first_db "$W/train/runs/run-1")"
run hostbound profile --runs 3 --range train_step -o "$W/hostbound" -- $PY bench/workloads/train_step.py --steps 20 \
  --layers 2 --d-model 128 --heads 4 --seq 64 --batch 2 --vocab 512 --sync-every-step
markers "$(first_db "$W/hostbound/runs/run-1")"
run train_roofline profile --runs 1 --range train_step --roofline --counter-tool cupti --counter-launches 1 \
  -o "$W/train_roofline" -- $PY bench/workloads/train_step.py --steps 2 --warmup 1
# "Before": the same databases without --range (first to last kernel), and the median run's analysis.
for name in train hostbound; do
  rep=$(python3 -c "import json,sys; d=json.load(open('$W/$name/profile.json')); print(d['runs']['representative_run'])" 2>/dev/null || echo 1)
  db=$(first_db "$W/$name/runs/run-$rep")
  [ -n "$db" ] && run "${name}_no_range" analyze "$db" -o "$W/${name}_no_range"
done
# The example trace: relative command line, counters from the CUPTI pass.
(cd "$DEVBUILD/bin" && run example profile --runs 1 --roofline --counter-tool cupti -o "$W/example" -- ./multistream --iters=3)
ex=$(first_db "$W/example/runs/run-1")
[ -n "$ex" ] && cp "$ex" "$W/example/multistream-h100-roofline.db" && $PY - "$ex" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("  example command:", db.execute("SELECT command FROM rocpd_info_process").fetchall())
print("  example counter values:", db.execute("SELECT COUNT(*) FROM rocpd_pmc_event").fetchone()[0])
PYEOF
# The seeds' form: a rocm-perf flag after the application without --: a warning, not silence.
(cd "$DEVBUILD/bin" && "$RP" profile --runs 1 -o "$W/seeds_form" ./multistream --iters=1 --json >"$S/seeds_form.txt" 2>&1; echo "rc=$?" >>"$S/seeds_form.txt")
for f in "$S"/*.txt; do echo "---- $(basename "$f")"; cat "$f"; done
(cd "$W" && tar -czf "$OUT/analysis_truth.tar.gz" summaries train hostbound train_roofline example train_no_range \
  hostbound_no_range)
ls -la "$OUT"
