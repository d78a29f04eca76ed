#!/usr/bin/env bash
# `rocm-perf profile` on every testbed app, on the GPU machine, through the real CLI and the CUPTI collector:
# kernel counts per app, and the multistream app's designed critical path and slack. Skips without a GPU.
#   scripts/gpu/profile_suite.sh --devbuild DIR --out DIR
set -u
while [ $# -gt 0 ]; do case "$1" in --devbuild) DEVBUILD="$2"; shift 2 ;; --out) OUT="$2"; shift 2 ;; *) exit 2 ;; esac; done
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no NVIDIA GPU: rocm-perf profile suite not run"; exit 0; fi
DEVBUILD=$(cd "$DEVBUILD" && pwd); mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
export LD_LIBRARY_PATH="$DEVBUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$DEVBUILD/lib/rocm-perf"; BIN="$DEVBUILD/bin"; FAILS=0
. "$(dirname "$0")/staged_commit.sh"; echo "binaries: commit $(staged_commit "$DEVBUILD")"
declare -A ARGS=(
  [attention]="--seq=1024 --iters=5" [naive_softmax]="--iters=5" [multistream]="--iters=3"
  [launch_bound]="20000" [gpu_bound]="--launches=20 --inner=16384" [graph_launch]="--launches=10"
)
for app in multistream attention naive_softmax launch_bound gpu_bound graph_launch; do
  echo "== rocm-perf profile: $app"
  # Eager module loading: with CUDA's lazy loading the first launch of each kernel waits for its module on
  # the host, which really does change the first iteration's critical path (seen: stage_c1 on it).
  env_prefix=(); [ "$app" = multistream ] && env_prefix=(env CUDA_MODULE_LOADING=EAGER)
  if ! "${env_prefix[@]}" "$RP" profile --platform cuda --runs 3 -o "$OUT/$app" -- "$BIN/$app" ${ARGS[$app]} >"$OUT/$app.summary" 2>"$OUT/$app.err"; then
    echo "FAIL: $app: rocm-perf exit $?"; cat "$OUT/$app.err"; FAILS=$((FAILS + 1)); continue
  fi
  head -4 "$OUT/$app.summary"
  extra=""; [ "$app" = multistream ] && extra="--multistream $DEVBUILD/examples/apps/multistream.json --iters 3"
  python3 "$DEVBUILD/scripts/gpu/check_profile.py" "$OUT/$app" $extra || FAILS=$((FAILS + 1))
done
echo "== rocm-perf analyze on the multistream trace, offline"
db=$(python3 -c "import json;p=json.load(open('$OUT/multistream/profile.json'));r=p['runs'];print(r['per_run'][r['representative_run']-1]['databases'][0])")
cp "$db" "$OUT/multistream-trace.db"
"$RP" analyze "$OUT/multistream-trace.db" -o "$OUT/analyze" --what-if 'stage_b1=0.5' --what-if 'stage_a1=0.5' | tail -12
echo "profile suite: $FAILS failure(s)"
exit $((FAILS > 0))
