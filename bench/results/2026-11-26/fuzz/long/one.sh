#!/usr/bin/env bash
t=$1; B=/work/wt-fuzz2/build-fuzz/fuzz; L=/tmp/fz/logs
mkdir -p /tmp/fz/corpus/$t /tmp/fz/artifacts/$t
start=$(date +%s)
nice -n 5 $B/$t /tmp/fz/corpus/$t /tmp/fz/seeds/$t -runs=10000000 -seed=2 -timeout=30 -rss_limit_mb=4096 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix=/tmp/fz/artifacts/$t/ > $L/$t.log 2>&1
echo "$t exit $? wall $(( $(date +%s) - start )) s" >> $L/summary.txt
