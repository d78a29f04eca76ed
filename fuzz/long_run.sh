#!/usr/bin/env bash
# Long fuzzing campaign for issue 19 (10^7 executions per target): every libFuzzer target at once on a
# many-core machine, each with several worker processes on a shared corpus (as libFuzzer's -jobs/-workers
# do), for a total wall time; then one summary table and the findings.
#
#   [LONG_SECONDS=3600] [FUZZ_CORES=$(nproc)] [FUZZ_TARGETS="..."] [OUT=./fuzz-long-out] fuzz/long_run.sh
#
# Runs from the source tree (binaries in $FUZZ_BUILD_DIR/fuzz, default build-fuzz) or from a folder made
# by fuzz/stage.sh (bin/, lib/, schemas/, seeds/ beside this script: no compiler or dev packages needed).
# Environment:
#   LONG_SECONDS   total wall time, default 3600; workers get what is left of it, then are interrupted
#   FUZZ_CORES     worker processes in all, default nproc; each target gets at least one
#   FUZZ_TARGETS   subset of the targets (space-separated)
#   FUZZ_WEIGHTS   core shares as "target:weight ..."; defaults favour the slow targets (below)
#   FUZZ_WORK      scratch folder for corpora and logs (default: a fresh mktemp -d); kept at the end
#   FUZZ_SEED      libFuzzer -seed of worker k is FUZZ_SEED + k (default 0: each worker random)
#   FUZZ_TIMEOUT   libFuzzer -timeout per input in seconds (default 30); FUZZ_RSS_MB -rss_limit_mb (4096)
#   FUZZ_MAX_FINDINGS  a worker that found this many stops (default 5); it restarts after each finding
#   LONG_PLAN=1    only print the workers per target and exit
#   FUZZ_CORPUS_IN a fuzz_corpus.tar.gz of an earlier run, added to the seeds (a campaign over several
#                  commands: each run's summary counts its own executions)
# Writes into $OUT: fuzz_summary.txt (per target: workers, executions summed over every worker process,
# exec/s, wall seconds, findings, status), fuzz_artifacts.tar.gz (crash-/leak-/timeout-/oom-/slow-unit-
# inputs, may be empty), fuzz_logs.tar.gz (each worker log, shortened), fuzz_corpus.tar.gz (the corpora at
# the end, when under 16 MiB). Exit 0: no finding; 1: findings or
# a worker that failed; 2: bad setup.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
all_targets="fuzz_rocpd_bytes fuzz_rocpd_sql fuzz_capture fuzz_ncu_csv fuzz_att fuzz_code_object fuzz_ceilings fuzz_rocprofv3_json"
targets=${FUZZ_TARGETS:-$all_targets}
seconds=${LONG_SECONDS:-3600}
cores=${FUZZ_CORES:-$(nproc)}
out=${OUT:-$PWD/fuzz-long-out}
work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/rpl-fuzz-long.XXXXXX")}
timeout_s=${FUZZ_TIMEOUT:-30}
rss_mb=${FUZZ_RSS_MB:-4096}
max_findings=${FUZZ_MAX_FINDINGS:-5}
# Shares of the cores beyond the one worker every target gets: the CPU time each target needs for 10^7
# executions, in units of 100 CPU-seconds, from its executions per CPU-second under ASan/UBSan on the
# project's 2-core machine (fuzz/README.md; rocpd_sql ~42, rocpd_bytes ~214, capture ~3,500, ncu_csv
# ~3,750, ceilings ~8,700, code_object ~14,000, att ~12,000; rocprofv3_json not measured, given ceilings' weight),
# so the targets reach 10^7 at about one time.
weights=${FUZZ_WEIGHTS:-"fuzz_rocpd_sql:2380 fuzz_rocpd_bytes:467 fuzz_capture:29 fuzz_ncu_csv:27 fuzz_ceilings:12 fuzz_code_object:7 fuzz_att:8 fuzz_rocprofv3_json:12"}

die() { echo "long_run.sh: $*" >&2; exit 2; }
mkdir -p "$out" "$work" || die "cannot create $out or $work"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)

if [[ -x $here/bin/fuzz_rocpd_sql ]]; then  # a folder made by fuzz/stage.sh
  bin=$here/bin
  export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # The machine's C++ runtime first; the staged one (lib/cxx, needs glibc 2.36) where that one is lacking.
  "$here/bin/fuzz_ceilings" -help=1 >/dev/null 2>&1 || export LD_LIBRARY_PATH=$here/lib:$here/lib/cxx${LD_LIBRARY_PATH#"$here/lib"}
  export RPL_SCHEMA_DIR=${RPL_SCHEMA_DIR:-$here/schemas}
  rm -rf "$work/corpus" && cp -r "$here/seeds" "$work/corpus" || die "cannot copy the seeds"
else  # the source tree
  bin=${FUZZ_BUILD_DIR:-$here/../build-fuzz}/fuzz
  [[ -d $bin ]] || die "no fuzz binaries in $bin (build them: fuzz/README.md, or run a folder made by fuzz/stage.sh)"
  bash "$here/seed_corpora.sh" "$work/corpus" "$bin" || die "cannot write the seed corpora"
fi
if [[ -n ${RPL_SCHEMA_DIR:-} ]]; then
  compgen -G "$RPL_SCHEMA_DIR/*.schema.json" >/dev/null || die "no *.schema.json in RPL_SCHEMA_DIR=$RPL_SCHEMA_DIR"
fi
if [[ -n ${FUZZ_CORPUS_IN:-} ]]; then
  tar -C "$work" -xzf "$FUZZ_CORPUS_IN" || die "cannot unpack FUZZ_CORPUS_IN=$FUZZ_CORPUS_IN"
fi
for t in $targets; do
  [[ -x $bin/$t ]] || die "missing binary $bin/$t"
  # A binary that cannot start (a missing library) would otherwise read as a failing worker.
  "$bin/$t" -help=1 >/dev/null 2>&1 || die "$bin/$t does not start: $("$bin/$t" -help=1 2>&1 | head -3)"
  mkdir -p "$work/corpus/$t"
done

# Workers per target: every target one, the rest of the cores by weight (largest remainder first).
declare -A workers
read -r -a names <<<"$targets"
weight_of() { local w; for w in $weights; do [[ ${w%%:*} == "$1" ]] && { echo "${w#*:}"; return; }; done; echo 1; }
total_weight=0
for t in "${names[@]}"; do total_weight=$((total_weight + $(weight_of "$t"))); workers[$t]=1; done
spare=$((cores - ${#names[@]}))
if ((spare > 0)); then
  given=0
  for t in "${names[@]}"; do
    extra=$((spare * $(weight_of "$t") / total_weight))
    workers[$t]=$((1 + extra))
    given=$((given + extra))
  done
  # Remainders, largest first.
  while read -r _ t; do
    ((given < spare)) || break
    workers[$t]=$((workers[$t] + 1))
    given=$((given + 1))
  done < <(for t in "${names[@]}"; do echo "$(((spare * $(weight_of "$t") * 1000 / total_weight) % 1000)) $t"; done | sort -rn)
elif ((spare < 0)); then
  echo "long_run.sh: $cores cores for ${#names[@]} targets: one worker each, oversubscribed" >&2
fi

if [[ ${LONG_PLAN:-0} == 1 ]]; then
  for t in "${names[@]}"; do echo "$t ${workers[$t]}"; done
  exit 0
fi

max_len_of() {  # as run_all.sh: whole traces for the rocpd bytes, 16 KiB for rocprofv3 JSON, else 4 KiB (the CSV seeds are cut there)
  case $1 in fuzz_rocpd_bytes) echo 600000 ;; fuzz_rocprofv3_json) echo 16384 ;; *) echo 4096 ;; esac
}

mkdir -p "$work/logs" "$work/artifacts"
# Scratch files of every worker (the input as a file, analyze's outputs) on tmpfs when it has room for
# 64 MiB per worker (containers often give /dev/shm 64 MiB in all), else in the work folder.
scratch_parent=$work
if [[ -d /dev/shm && -w /dev/shm ]] && (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') >= cores * 65536)); then
  scratch_parent=/dev/shm
fi
export RPL_FUZZ_SCRATCH=$scratch_parent/rpl-fuzz-long.$$
mkdir -p "$RPL_FUZZ_SCRATCH"
start=$(date +%s)
deadline=$((start + seconds))

worker() {  # worker TARGET INDEX SEED: libFuzzer runs until the deadline; restarts after a finding
  local t=$1 k=$2 seed=$3 run=0 found=0 left rc log max_len
  max_len=$(max_len_of "$t")
  while :; do
    left=$((deadline - $(date +%s)))
    ((left >= 5)) || break
    run=$((run + 1))
    log=$work/logs/$t.w$k.r$run.log
    # libFuzzer stops itself at max_total_time, between inputs; the outer timeout only catches a run still
    # going one input timeout later (SIGINT: libFuzzer still prints its final stats), so the whole script
    # ends within about LONG_SECONDS + FUZZ_TIMEOUT + 30 s.
    timeout -s INT -k 15 $((left + timeout_s + 15)) \
      "$bin/$t" "$work/corpus/$t" -max_total_time="$left" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
      -max_len="$max_len" -seed="$seed" -print_final_stats=1 \
      -artifact_prefix="$work/artifacts/$t-" >"$log" 2>&1
    rc=$?
    echo "$rc" >"$log.rc"
    ((rc == 0 || rc == 124)) && break
    found=$((found + 1))
    ((found < max_findings)) || break
    [[ $seed == 0 ]] || seed=$((seed + 1000))
  done
}

echo "long_run.sh: ${seconds}s, $cores cores, work folder $work, scratch $RPL_FUZZ_SCRATCH" >&2
k=0
for t in "${names[@]}"; do
  echo "  $t: ${workers[$t]} workers" >&2
  for ((i = 0; i < workers[$t]; i++)); do
    k=$((k + 1))
    s=0
    [[ ${FUZZ_SEED:-0} == 0 ]] || s=$((FUZZ_SEED + k))
    worker "$t" "$i" "$s" &
  done
done
wait
end=$(date +%s)
wall=$((end - start))
rm -rf "$RPL_FUZZ_SCRATCH"

# Executions of one worker log: libFuzzer's final stats, else (a run killed hard) its last "#N" line.
executions_of() {
  local n
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$1" | grep -o '[0-9]*$' | tail -1)
  [[ -n $n ]] || n=$(grep -oE '^#[0-9]+' "$1" | tr -d '#' | tail -1)
  echo "${n:-0}"
}

status=0
summary=$out/fuzz_summary.txt
{
  echo "# fuzz/long_run.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), host ${HOSTNAME:-$(uname -n)}, $(nproc) CPUs, $cores workers, LONG_SECONDS=$seconds"
  [[ -f $here/STAGED_FROM ]] && echo "# binaries: $(cat "$here/STAGED_FROM")"
  printf '%-18s %7s %5s %13s %9s %6s %8s %s\n' target workers runs executions exec/s wall findings status
  for t in "${names[@]}"; do
    execs=0 runs=0 bad=0 interrupted=0
    for log in "$work/logs/$t".w*.log; do
      [[ -f $log ]] || continue
      runs=$((runs + 1))
      execs=$((execs + $(executions_of "$log")))
      rc=$(cat "$log.rc" 2>/dev/null || echo missing)
      [[ $rc == 124 ]] && interrupted=$((interrupted + 1))
      [[ $rc == 0 || $rc == 124 ]] || bad=$((bad + 1))
    done
    findings=$(find "$work/artifacts" -name "$t-*" \( -name "$t-crash-*" -o -name "$t-leak-*" -o -name "$t-timeout-*" -o -name "$t-oom-*" \) | wc -l)
    slow=$(find "$work/artifacts" -name "$t-slow-unit-*" | wc -l)
    result=ok
    if ((findings > 0 || bad > 0)); then
      result="FINDINGS ($bad runs ended non-zero)"
      status=1
    fi
    ((interrupted > 0)) && result="$result, $interrupted runs stopped by the outer timeout"
    ((slow > 0)) && result="$result, $slow slow units (>10 s)"
    ((execs >= 10000000)) && result="$result, >=1e7"
    printf '%-18s %7s %5s %13s %9s %6s %8s %s\n' "$t" "${workers[$t]}" "$runs" "$execs" $((execs / (wall > 0 ? wall : 1))) \
      "$wall" "$findings" "$result"
  done
  # The first line that says what each finding is.
  for log in "$work/logs"/*.log; do
    rc=$(cat "$log.rc" 2>/dev/null || echo missing)
    [[ $rc == 0 || $rc == 124 ]] && continue
    echo "$(basename "$log") exit $rc: $(grep -m1 -E 'FINDING|ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error|Test unit written' "$log")"
  done
} >"$summary"
cat "$summary"

tar -C "$work" -czf "$out/fuzz_artifacts.tar.gz" artifacts
# Logs shortened to their start and end (NEW_FUNC lines make full logs large).
mkdir -p "$work/short-logs"
for log in "$work/logs"/*.log; do
  [[ -f $log ]] || continue
  { head -n 60 "$log"; echo "[...]"; grep -v 'NEW_FUNC' "$log" | tail -n 200; } >"$work/short-logs/$(basename "$log")"
  cp "$log.rc" "$work/short-logs/" 2>/dev/null
done
tar -C "$work" -czf "$out/fuzz_logs.tar.gz" short-logs
# The grown corpora, to go on from them (FUZZ_CORPUS_IN), unless too large to bring back (16 MiB).
tar -C "$work" -czf "$out/fuzz_corpus.tar.gz" corpus
if (($(stat -c %s "$out/fuzz_corpus.tar.gz") > 16 * 1024 * 1024)); then
  rm -f "$out/fuzz_corpus.tar.gz"
  echo "long_run.sh: the corpora packed exceed 16 MiB; left in $work/corpus only" >&2
fi
echo "long_run.sh: summary $summary; artifacts $out/fuzz_artifacts.tar.gz; logs $out/fuzz_logs.tar.gz; corpora $work/corpus" >&2
exit $status
