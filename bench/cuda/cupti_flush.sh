#!/usr/bin/env bash
# Does flushing L2 before each profiled launch (RPL_COUNTERS_FLUSH=1) bring the CUPTI pass's DRAM bytes to
# ncu's cold-cache values? For each app: median dram read/write bytes and duration per instance from ncu
# (--cache-control all) and from librpl_cupti_counters.so with and without the flush, with a 1-pass set
# (time + DRAM bytes) and with the 6-pass light set.
#   LIB=/abs/librpl_cupti_counters.so BIN=/abs/bin bench/cuda/cupti_flush.sh
set -u
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
D="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
R="$D,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__sass_data_bytes_mem_shared.sum"
F=""; for p in d f h; do for op in add mul fma; do F="$F,smsp__sass_thread_inst_executed_op_${p}${op}_pred_on.sum"; done; done
B="sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_issued.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
st() { local out=""; for r in "$@"; do out="$out,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done; echo "${out#,}"; }
A="$R$F,sm__inst_executed_pipe_tensor.sum,$B,smsp__average_warp_latency_per_inst_issued.ratio,$(st selected not_selected long_scoreboard lg_throttle tex_throttle short_scoreboard mio_throttle membar drain imc_miss)"
W=$(mktemp -d)
med() {  # CSV files... -> "read write duration" medians
  python3 - "$@" <<'PY'
import csv, statistics, sys
vals = {"dram__bytes_read.sum": [], "dram__bytes_write.sum": [], "gpu__time_duration.sum": []}
for f in sys.argv[1:]:
    rows = [r for r in csv.reader(open(f)) if r and not r[0].startswith("==")]
    h = rows[0]
    for r in rows[1:]:
        if not r[0].strip().isdigit(): continue
        for k in vals:
            if k in h: vals[k].append(float(r[h.index(k)].replace(",", "")))
m = {k: statistics.median(v) if v else float("nan") for k, v in vals.items()}
print(f"read {m['dram__bytes_read.sum'] / 1e6:10.3f} MB  write {m['dram__bytes_write.sum'] / 1e6:10.3f} MB  "
      f"duration {m['gpu__time_duration.sum'] / 1e3:9.2f} us")
PY
}
declare -A ARGS=([stream_copy]="--mib=64 --iters=10" [fma_peak]="--iters=4096 --launches=10"
                 [divergent]="--work=64 --launches=10" [pointer_chase]="--mib=24 --steps=2048 --launches=5"
                 [under_occupied]="--mib=256 --launches=5")
for app in stream_copy fma_peak divergent pointer_chase under_occupied; do
  echo "== $app ${ARGS[$app]}"
  "$NCU" --csv --page raw --print-units base --cache-control all --clock-control none --metrics "$D" \
    --log-file "$W/$app.ncu.csv" "$BIN/$app" ${ARGS[$app]} >/dev/null 2>&1
  printf "%-28s " "ncu --cache-control all"; med "$W/$app.ncu.csv"
  for set in D A; do
    for flush in 0 1; do
      rm -rf "$W/o"; mkdir -p "$W/o"
      M=$([ $set = D ] && echo "$D" || echo "$A")
      CUDA_INJECTION64_PATH="$LIB" RPL_COUNTERS_METRICS="$M" RPL_COUNTERS_OUT="$W/o" RPL_COUNTERS_FLUSH=$flush \
        "$BIN/$app" ${ARGS[$app]} >/dev/null 2>&1
      printf "%-28s " "cupti set $set flush=$flush"; med "$W"/o/*.csv
    done
  done
done
rm -rf "$W"
