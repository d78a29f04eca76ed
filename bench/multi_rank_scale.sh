#!/usr/bin/env bash
# Scale benchmark of the analysis across ranks (issue 18): a synthetic job of R ranks x N dispatches
# (bench/gen_multi_rank.cpp: a straggler, two nodes' clocks 3 ms apart), analysed by `rocm-perf analyze DIR`
# one rank database at a time; peak RSS and wall time from /usr/bin/time -v. Then the split/merge path:
# --rank-summary of one rank, and --merge-summaries of all ranks' summaries.
#   bench/multi_rank_scale.sh [RANKS=64] [DISPATCHES=1000000] [BUILD=build] [WORK=/tmp/rpl-multi-rank-scale]
set -euo pipefail
RANKS=${1:-64}; DISPATCHES=${2:-1000000}; BUILD=${3:-build}; WORK=${4:-/tmp/rpl-multi-rank-scale}
RP=$BUILD/src/cli/rocm-perf
rm -rf "$WORK"; mkdir -p "$WORK"
echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cores; ranks=$RANKS dispatches/rank=$DISPATCHES"
echo "## generate"
/usr/bin/time -v "$BUILD/bench/gen_multi_rank" --ranks "$RANKS" --dispatches "$DISPATCHES" --ranks-per-node $((RANKS / 2 > 0 ? RANKS / 2 : 1)) \
  --clock-skew-ns 3000000 --straggler 5 --straggler-delay-ns 200000 -o "$WORK/job" 2>&1 | grep -E "wrote|Elapsed|Maximum resident"
du -sh "$WORK/job"
echo "## rocm-perf analyze DIR (all ranks, streamed)"
/usr/bin/time -v "$RP" analyze "$WORK/job" -o "$WORK/out" --no-html 2>"$WORK/analyze.err" >"$WORK/analyze.txt" || { cat "$WORK/analyze.err"; exit 1; }
grep -E "Elapsed|Maximum resident" "$WORK/analyze.err"
head -3 "$WORK/analyze.txt"; grep -A4 -E "^Clock offsets|^Stragglers" "$WORK/analyze.txt" | cut -c1-240
echo "## split: --rank-summary of one rank"
/usr/bin/time -v "$RP" analyze --ranks "$WORK/job/node0/rank0.db" --rank-summary "$WORK/rank0.summary.json" 2>&1 | grep -E "Elapsed|Maximum resident"
ls -l "$WORK/rank0.summary.json" | awk '{print "summary bytes", $5}'
for db in "$WORK"/job/*/rank*.db; do
  r=$(basename "$db" .db); [ "$r" = rank0 ] || "$RP" analyze --ranks "$db" --rank-summary "$WORK/$r.summary.json" --quiet
done
echo "## merge: --merge-summaries of all ranks"
/usr/bin/time -v "$RP" analyze --merge-summaries "$WORK"/rank*.summary.json -o "$WORK/merged" --no-html 2>"$WORK/merge.err" >/dev/null
grep -E "Elapsed|Maximum resident" "$WORK/merge.err"
if cmp -s "$WORK/out/multi_rank.json" "$WORK/merged/multi_rank.json"; then echo "merged == direct: yes"; else echo "merged == direct: NO"; fi
rm -rf "$WORK/job"
