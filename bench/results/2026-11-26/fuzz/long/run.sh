#!/usr/bin/env bash
# Long local libFuzzer runs: 10^7 executions each, two targets at a time on this 2-core machine.
B=/work/wt-fuzz2/build-fuzz/fuzz
L=/tmp/fz/logs; mkdir -p $L
one() {
  t=$1; mkdir -p /tmp/fz/corpus/$t /tmp/fz/artifacts/$t
  start=$(date +%s)
  nice -n 5 $B/$t /tmp/fz/corpus/$t /tmp/fz/seeds/$t -runs=10000000 -seed=1 -timeout=30 -rss_limit_mb=4096 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix=/tmp/fz/artifacts/$t/ > $L/$t.log 2>&1
  echo "$t exit $? wall $(( $(date +%s) - start )) s" >> $L/summary.txt
}
(one fuzz_att; one fuzz_ceilings) &
(one fuzz_code_object; one fuzz_ncu_csv) &
wait
echo done >> $L/summary.txt
