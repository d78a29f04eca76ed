#!/usr/bin/env bash
# The capture/replay proof (bench/replay-proof/run_proof.sh) as one phase of scripts/gpu/batch.sh: the staged tree is
# the folder above RPL_BIN_DIR (scripts/gpu/stage_all.sh DEST: DEST/lib holds the binaries).
#   OUT=/dir RPL_BIN_DIR=$PWD/.devbuild/lib bash scripts/gpu/replay_proof.sh   [REPS=5 ITERS=10]
set -euo pipefail
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR to the staged binaries}"
DEVBUILD=$(cd "$RPL_BIN_DIR/.." && pwd)
exec bash "$DEVBUILD/bench/replay-proof/run_proof.sh" --devbuild "$DEVBUILD" --out "$OUT" \
  --work "${WORK:-/tmp/rpl-replay-proof}" --reps "${REPS:-5}" --iters "${ITERS:-10}"
