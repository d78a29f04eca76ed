#!/bin/sh
# TEST DOUBLE — not rpl_cupti_metrics. Stands in for the CUPTI metric enumeration on machines without an
# NVIDIA GPU (set RPL_CUPTI_METRICS to this file): the same command line and output records, for device 0 of a
# GH100 (sm_90). `list` prints the recorded excerpt tests/data/counters/cupti_metrics_gh100_excerpt.tsv;
# `check` reports a name unsupported when it contains "bogus". FAKE_CUPTI_METRICS_MODE=fail: exit 3.
here=$(dirname "$0")
[ "${FAKE_CUPTI_METRICS_MODE:-ok}" = fail ] && { echo "rpl_cupti_metrics: cuInit failed (100): simulated" >&2; exit 3; }
device=0
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=$2; shift 2 ;;
    list) printf 'device\t%s\tGH100\tsm_90\n' "$device"; grep '^metric' "$here/../data/counters/cupti_metrics_gh100_excerpt.tsv"; exit 0 ;;
    check) shift; printf 'device\t%s\tGH100\tsm_90\n' "$device"
           for m in "$@"; do case "$m" in *bogus*) printf 'unsupported\t%s\n' "$m" ;; *) printf 'ok\t%s\n' "$m" ;; esac; done
           exit 0 ;;
    *) echo "usage: rpl_cupti_metrics [--device N] list | check METRIC..." >&2; exit 2 ;;
  esac
done
exit 2
