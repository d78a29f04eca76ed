#!/bin/bash
# gate_stats.sh FIRST LAST OUT: the gate statistic at the start of the late 25% (the run so far is base's), per run
for b in 2 5; do for sp in conv gemm kt_convolution_A100 kt_convolution_A4000 kt_convolution_A6000 kt_convolution_MI250X kt_convolution_W6600 kt_convolution_W7800; do for s in $(seq $1 $2); do
  l=$(X_FVND=25 X_FVNDLOG=1 X_FVNDSTOP=1 nice -n 19 /tmp/at30/bin/fv2 /tmp/at30/spaces/$sp.json --seeds 1 --first-seed $s --budget $b% 2>&1 >/dev/null | grep fvnd)
  echo "$sp $b% seed $s: $l" >> $3
done; done; done
