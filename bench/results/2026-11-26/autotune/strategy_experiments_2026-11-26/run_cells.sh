#!/usr/bin/env bash
# Usage: run_cells.sh NAME [ENV=VALUE ...] -- runs the 4 cells (conv/gemm x seeds 0-24/25-49) of the in-process
# harness with the given RPL_AT_* switches and appends the blocks to runs.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../../.." && pwd)
name=$1; shift
cells=${CELLS:-"conv:0 conv:25 gemm:0 gemm:25"}
for cell in $cells; do
  sp=${cell%%:*}; first=${cell##*:}
  case $first in 0) tag="" ;; 25) tag="_hold" ;; *) tag="_s$first" ;; esac
  out=$(env "$@" "${HARNESS:-$here/harness}" "$root/bench/autotune/spaces/$sp.json" 25 "$first")
  { echo "== ${name}_${sp}${tag}  [$*] seeds $first-$((first+24))"; echo "$out"; } | tee -a "$here/runs.txt"
done
