#!/usr/bin/env bash
# Completes the Kernel Tuner anchor of issue 30 (every strategy, every space, both budgets, 50 seeds) in one call
# on a many-core machine without network, from the folder kt_anchor_pack.sh made (carried as an ignored path).
# Also runs our search (the packed autotune_quality) on every cell at 50 seeds, on part of the cores.
#
# Usage (from the repository root): bench/autotune/kt_anchor_batch.sh PACK OUT [SECONDS] [--no-ours]
#   PACK     the packed folder (.kt-anchor)
#   OUT      output folder (created): env_check.txt, kt_runs.jsonl (the committed runs of
#            bench/results/2026-11-28/autotune/kernel_tuner_anchor_2026-11-28/kt_runs.jsonl plus every run added here), kt.log,
#            ours/SPACE_Ppct_*.jsonl (copies of that folder's ours/ files; the new runs are appended to the
#            _seeds0 files), ours.log, batch.txt (what ran, how long, what was skipped, runs per strategy)
#   SECONDS  wall-clock limit for the whole batch (default 540); both parts stop at it, keeping what finished
# Environment: SPACES="NAME ..." runs only those spaces (e.g. the unseen_* ones of bench/autotune/spaces/unseen/),
# SEEDS=N seeds per cell (default 50), FRESH=1 starts from no runs (the committed anchor's are not copied), and
# OURS_SHARE=K/D gives our search K/D of the cores (default 2/5). Our runs are cut at B evaluations, failed ones
# included (ours_batch.py --evaluations-as-budget), as the report's are since session 14.
# Needs python3 with numpy. Strategies that need what the machine lacks are skipped and named in env_check.txt
# and batch.txt: dual_annealing needs scipy; bayes_opt needs scipy and scikit-learn.
set -uo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 PACK OUT [SECONDS] [--no-ours]" >&2; exit 2; }
pack=$(realpath "$1") out=$2 limit=${3:-540} ours=1
[[ ${4:-} == --no-ours || ${3:-} == --no-ours ]] && ours=0
[[ ${3:-} == --no-ours ]] && limit=540
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/ours"
out=$(realpath "$out")
start=$(date +%s)
cores=$(nproc)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# 1. What this machine has.
{
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ) host $(uname -n) cores $cores"
  cat "$pack/PACKED.txt" 2>/dev/null
  python3 - "$pack" <<'EOF'
import importlib, sys
print("python3", sys.version.split()[0], sys.executable)
have = {}
for m in ("numpy", "scipy", "sklearn", "jsonschema", "attr", "pyrsistent", "packaging", "xmltodict"):
    try:
        mod = importlib.import_module(m)
        have[m] = getattr(mod, "__version__", "present")
    except Exception as e:
        have[m] = None
    print(f"module {m}: {have[m] or 'MISSING'}" + ("" if have[m] or m in ("numpy", "scipy", "sklearn")
                                                    else " (the packed deps/ copy is used)"))
skip = []
if not have["scipy"]:
    skip += ["dual_annealing", "bayes_opt"]
elif not have["sklearn"]:
    skip += ["bayes_opt"]
print("skip", " ".join(skip) if skip else "-")
EOF
} > "$out/env_check.txt" 2>&1
cat "$out/env_check.txt"
if ! grep -q '^module numpy: [0-9]' "$out/env_check.txt"; then
  echo "$0: python3 with numpy is needed (env_check.txt)" >&2
  exit 1
fi
skip=$(sed -n 's/^skip //p' "$out/env_check.txt")
strategies=()
for s in random_sample genetic_algorithm simulated_annealing dual_annealing greedy_ils bayes_opt hybrid_vndx \
         adaptive_tabu_greywolf; do
  [[ " $skip " == *" $s "* ]] || strategies+=("$s")
done

# 2. Kernel Tuner (and ours beside it, on a share of the cores).
kt_jobs=$cores ours_jobs=0
if [[ $ours == 1 && -x $pack/ours/autotune_quality ]]; then
  # About 2/5 of the work at 50 seeds is ours (xgboost refits), 3/5 Kernel Tuner's (bayes_opt above all).
  share=${OURS_SHARE:-2/5}
  ours_jobs=$(( cores * ${share%/*} / ${share#*/} > 0 ? cores * ${share%/*} / ${share#*/} : 1 ))
  kt_jobs=$(( cores - ours_jobs > 0 ? cores - ours_jobs : 1 ))
fi
# The committed runs: the new ones are added to copies of them (both scripts skip the runs already there).
anchor=$here/../results/2026-11-28/autotune/kernel_tuner_anchor_2026-11-28
if [[ ${FRESH:-0} != 1 ]]; then
  cp "$anchor/kt_runs.jsonl" "$out/kt_runs.jsonl"
  cp "$anchor"/ours/*.jsonl "$out/ours/"
fi
seeds=${SEEDS:-50}
space_args=()
[[ -n ${SPACES:-} ]] && read -r -a space_args <<< "--spaces $SPACES"
left=$(( limit - ($(date +%s) - start) - 5 ))
timeout --signal=INT --kill-after=10 "$left" python3 "$here/kernel_tuner_anchor.py" \
  --kernel-tuner "$pack/kernel_tuner" --python-constraint "$pack/python-constraint" --deps "$pack/deps" \
  --kernel-tuner-commit "$(sed -n 's/^kernel_tuner_commit \([^ ]*\).*/\1/p' "$pack/PACKED.txt")" \
  --out "$out/kt_runs.jsonl" --resume --seeds "$seeds" --jobs "$kt_jobs" --slow-first "${space_args[@]}" \
  --strategies "${strategies[@]}" > "$out/kt.log" 2>&1 &
kt_pid=$!
ours_pid=
if [[ $ours_jobs -gt 0 ]]; then
  timeout --signal=INT --kill-after=10 "$left" python3 "$here/ours_batch.py" --pack "$pack" --out "$out/ours" \
    --seeds "$seeds" --jobs "$ours_jobs" --evaluations-as-budget "${space_args[@]}" > "$out/ours.log" 2>&1 &
  ours_pid=$!
fi
wait $kt_pid; kt_rc=$?
ours_rc=-
[[ -n $ours_pid ]] && { wait "$ours_pid"; ours_rc=$?; }

# 3. What finished.
{
  echo "strategies run: ${strategies[*]}"
  echo "skipped: ${skip:--}"
  echo "kernel tuner: $kt_jobs processes, exit $kt_rc (124 or 130: stopped at the time limit)"
  echo "ours: $ours_jobs processes, exit $ours_rc"
  echo "seconds $(( $(date +%s) - start ))"
  python3 - "$out/kt_runs.jsonl" "$out/ours" <<'EOF'
import collections, glob, json, sys
count = collections.Counter()
for path in [sys.argv[1]] + sorted(glob.glob(sys.argv[2] + "/*.jsonl")):
    for line in open(path):
        r = json.loads(line)
        if "strategy" in r:
            count[(r["strategy"], r["budget_pct"])] += 1
for (s, b), n in sorted(count.items()):
    print(f"runs {s} {b:g}%: {n}")
EOF
} > "$out/batch.txt" 2>&1
cat "$out/batch.txt"
