#!/usr/bin/env bash
# Issue 32's equivalence proof for a change that must not change analyze's outputs: OLD and NEW binaries run
# `analyze` on the same generated traces (the shapes of bench/results/2026-11-29/analyze-scaling/
# equivalence_sorts.txt: 1M dispatches; 100k with --slack-db, two --what-if and --infer-dependencies; 200k over
# 3 streams with a copy every 5 dispatches; two processes with device syncs and launch regions), and every output
# is compared field by field (bench/compare_analyze_outputs.py), report.html and the --slack-db tables byte for
# byte. Then the example traces against the goldens (tests/scripts/test_analyze_golden.py) with NEW.
#   bench/analyze_equivalence.sh OLD_BIN NEW_BIN [BUILD_DIR=build]     (exits 1 on any difference)
set -euo pipefail
OLD=$1 NEW=$2 BUILD=${3:-build}
GEN=$BUILD/bench/gen_rocpd
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpl-equiv-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/machine_header.sh"
bench_header "bench/analyze_equivalence.sh $OLD $NEW $BUILD"
echo "# old: $OLD; new: $NEW"
status=0

# compare NAME GEN_ARGS -- ANALYZE_ARGS (the databases are $WORK/NAME*.db)
compare() {
  local name=$1
  shift
  local gen=() analyze=()
  while [ "$1" != "--" ]; do gen+=("$1"); shift; done
  shift
  analyze=("$@")
  "$GEN" "${gen[@]}" -o "$WORK/$name" >/dev/null 2>&1
  echo "## $name: gen_rocpd ${gen[*]}; analyze $name*.db -o DIR --quiet ${analyze[*]}"
  local slack_old=() slack_new=()
  if printf '%s\n' "${analyze[@]}" | grep -qx -- --slack-db; then
    slack_old=(--slack-db "$WORK/old.slack.db")
    slack_new=(--slack-db "$WORK/new.slack.db")
  fi
  local args=()
  for a in "${analyze[@]}"; do [ "$a" = --slack-db ] || args+=("$a"); done
  rm -rf "$WORK/old" "$WORK/new" "$WORK"/*.slack.db
  "$OLD" analyze "$WORK/$name"*.db -o "$WORK/old" --quiet "${args[@]}" "${slack_old[@]}" >/dev/null
  "$NEW" analyze "$WORK/$name"*.db -o "$WORK/new" --quiet "${args[@]}" "${slack_new[@]}" >/dev/null
  python3 "$(dirname "$0")/compare_analyze_outputs.py" "$WORK/old" "$WORK/new" || status=1
  if [ ${#slack_old[@]} -gt 0 ]; then
    if cmp -s "$WORK/old.slack.db" "$WORK/new.slack.db"; then echo "slack table: identical bytes"
    else echo "slack table: DIFFERS"; status=1; fi
  fi
  rm -f "$WORK/$name"*.db
}

compare t1m -n 1000000 -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 --
compare t100k -n 100000 -s 8 --event-every 50 --sync-every 5000 --copy-every 1000 -- \
  --slack-db --what-if 'gemm=0.5' --what-if '.*=0.9' --infer-dependencies
compare t200k -n 200000 -s 3 --event-every 7 --sync-every 500 --copy-every 5 -- --slack-db --infer-dependencies
compare tp2 -n 100000 -p 2 -s 4 --event-every 20 --device-sync-every 1000 --copy-every 50 --launch-regions -- \
  --what-if '.*=0.5'
echo "## example traces: tests/scripts/test_analyze_golden.py (ctest analyze.golden_outputs) with the new binary"
python3 "$(dirname "$0")/../tests/scripts/test_analyze_golden.py" "$NEW" || status=1
echo "exit=$status"
exit $status
