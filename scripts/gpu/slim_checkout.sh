#!/usr/bin/env bash
# The device machine takes the checkout's working tree only up to 64 MiB (tracked files, untracked files git does
# not ignore, and the carried paths), and the committed raw results (bench/results/, about 60 MB on 2026-11-29) put
# the whole tree over it: a `run` is then refused before any machine starts. No GPU suite reads bench/results/, so
# this script leaves it out of the working tree with a sparse checkout for the time of the device calls, and brings
# it back after. Nothing is deleted from git: `off` restores every file from the index.
#   scripts/gpu/slim_checkout.sh on [PATH ...]   leave bench/results/ (or the PATHs given) out of the working tree
#   scripts/gpu/slim_checkout.sh off             the full working tree again
#   scripts/gpu/slim_checkout.sh size            the bytes that would travel (tracked + untracked-not-ignored)
# Refuses `on` when files under the paths are modified or untracked (they would be left behind or lost).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
travel_bytes() {
  { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {printf "%.1f MiB\n", s / 1048576}'
}
case ${1:-} in
  on)
    shift
    paths=("$@")
    [[ ${#paths[@]} -gt 0 ]] || paths=(bench/results)
    dirty=$(git status --porcelain --untracked-files=all -- "${paths[@]}")
    if [[ -n $dirty ]]; then
      echo "slim_checkout: changes under ${paths[*]}; commit or move them first:" >&2
      echo "$dirty" | head -20 >&2
      exit 2
    fi
    patterns=('/*')
    for p in "${paths[@]}"; do patterns+=("!/${p%/}/"); done
    git sparse-checkout set --no-cone "${patterns[@]}"
    echo "slim_checkout: left out ${paths[*]}; the tree that travels: $(travel_bytes)"
    ;;
  off)
    git sparse-checkout disable
    echo "slim_checkout: full working tree; the tree that travels: $(travel_bytes)"
    ;;
  size)
    travel_bytes
    ;;
  *)
    sed -n 2,10p "$0" >&2
    exit 2
    ;;
esac
