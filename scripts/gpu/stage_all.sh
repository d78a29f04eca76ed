#!/usr/bin/env bash
# Assembles in one folder what every GPU suite needs (scripts/gpu/all_suites.sh --devbuild DEST): the CUDA
# collector's and the roofline suite's (stage_devbuild.sh) plus the capture/replay proof's
# (bench/replay-proof/stage.sh: the capture library, the replay runner, va_chase's cubins).
#   [JOBS=2] [CUDA_ARCHS="80 90"] scripts/gpu/stage_all.sh [DEST=.devbuild] [BUILD_DIR=build]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$ROOT/.devbuild}
BUILD=${2:-$ROOT/build}
mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd)
bash "$ROOT/scripts/gpu/stage_devbuild.sh" "$DEST" "$BUILD"
bash "$ROOT/bench/replay-proof/stage.sh" "$DEST.replay" "$BUILD"
for f in "$DEST.replay"/lib/*; do [ -e "$DEST/lib/$(basename "$f")" ] || cp "$f" "$DEST/lib/"; done
cp "$DEST.replay"/bin/* "$DEST/bin/"
cp -r "$DEST.replay/bench/replay-proof" "$DEST/bench/"
rm -rf "$DEST.replay"
du -sh "$DEST"
# The LLM proposer's replay server (bench/optimize/llm_gpu_suite.sh), where it was built.
[ -x "$BUILD/src/optimize/llm/rpl-llm-replay" ] && strip --strip-debug -o "$DEST/lib/rpl-llm-replay" "$BUILD/src/optimize/llm/rpl-llm-replay"
bash "$ROOT/scripts/gpu/stage_runtime_libs.sh" "$DEST"
