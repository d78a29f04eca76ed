#!/bin/bash
# the three spaces where the gate opens (A100, A4000, A6000 dedispersion); tuning seeds then held-out
cd /work/wt-autotune/bench/results/2026-11-29/autotune/issue30_fvnd_2026-11-29
SP="kt_dedispersion_A100 kt_dedispersion_A4000 kt_dedispersion_A6000"
E="X_FVND=25 X_FVNDMIN=5 X_FVNDSHARE=15 X_FVNDLOG=1"
python3 fvscreen.py tune.jsonl --bin /tmp/at30/bin/fv3 --variant fvnd25s15 --env $E --seeds 200 210 --spaces $SP --budgets 5 2 --prior base_prior.jsonl
python3 fvscreen.py tune_hold.jsonl --bin /tmp/at30/bin/fv3 --variant fvnd25s15 --env $E --seeds 300 310 --spaces $SP --budgets 5 2 --prior base_prior.jsonl
