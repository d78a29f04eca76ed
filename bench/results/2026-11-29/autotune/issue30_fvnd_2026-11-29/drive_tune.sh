#!/bin/bash
# tuning screen: base and fvnd25 over the six dedispersion spaces, seed chunks, 5% then 2%
S=/work/wt-autotune/bench/results/2026-11-29/autotune/kernel_tuner_anchor_2026-11-29/screening/screen.py
O=/work/wt-autotune/bench/results/2026-11-29/autotune/issue30_fvnd_2026-11-29
SP="kt_dedispersion_A100 kt_dedispersion_A4000 kt_dedispersion_A6000 kt_dedispersion_MI250X kt_dedispersion_W6600 kt_dedispersion_W7800"
for chunk in "$@"; do
  set -- $chunk
  for b in 5 2; do
    python3 $S base $O/$OUTF --bin /tmp/at30/bin/fv1 --seeds $1 $2 --spaces $SP --budgets $b --jobs 1
    python3 $S fvnd25 $O/$OUTF --bin /tmp/at30/bin/fv1 --env X_FVND=25 X_FVNDMIN=5 X_FVNDLOG=1 --keep-stderr fvnd --seeds $1 $2 --spaces $SP --budgets $b --jobs 1
  done
done
