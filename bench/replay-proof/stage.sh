#!/usr/bin/env bash
# Builds and assembles what the capture/replay proof needs on the GPU machine (which has no dev packages):
#   [JOBS=2] bench/replay-proof/stage.sh DEST [BUILD_DIR=build]
# DEST/lib: rocm-perf, librpl_cuda_capture.so, rpl_replay_cuda, librpl_cuda_collector.so and the shared libraries
# they need beyond libc/libstdc++ (libcupti, libsqlite3, libfmt, libzstd, libelf); DEST/bin: va_chase, attention,
# va_chase_rebuilt.cubin (same source, ptxas -O1), va_chase_perturbed.cubin (a different kernel);
# DEST/bench/replay-proof and DEST/scripts/gpu (the checkers).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:?usage: stage.sh DEST [BUILD_DIR]}
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
ninja -C "$BUILD" -j"${JOBS:-2}" rocm-perf rpl_cuda_capture rpl_replay_cuda rpl_cuda_collector
make -C "$ROOT/examples/apps" -j"${JOBS:-2}" OUT="$BUILD/apps" CUDA_ARCHS=90 "$BUILD/apps/va_chase" "$BUILD/apps/attention"
rm -rf "$DEST"; mkdir -p "$DEST/lib" "$DEST/bin" "$DEST/bench" "$DEST/scripts"
for f in rocm-perf librpl_cuda_capture.so rpl_replay_cuda librpl_cuda_collector.so; do
  strip --strip-debug -o "$DEST/lib/$f" "$BUILD/src/cli/$f"
  ldd "$BUILD/src/cli/$f" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$name" in libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl.so*|librt.so*|libutil*|ld-linux*) continue ;; esac
    [ -e "$DEST/lib/$name" ] || cp -L "$path" "$DEST/lib/$name"
  done
done
cp "$BUILD/apps/va_chase" "$BUILD/apps/attention" "$DEST/bin/"
NVCC=${NVCC:-nvcc}
(cd "$ROOT/examples/apps" &&
  "$NVCC" -cubin -arch=sm_90 -std=c++17 -I. -DVA_CHASE_KERNELS_ONLY -Xptxas -O1 -o "$DEST/bin/va_chase_rebuilt.cubin" va_chase.cu &&
  "$NVCC" -cubin -arch=sm_90 -std=c++17 -I. -DVA_CHASE_KERNELS_ONLY -DVA_CHASE_PERTURB -o "$DEST/bin/va_chase_perturbed.cubin" va_chase.cu)
cp -r "$ROOT/bench/replay-proof" "$DEST/bench/"
cp -r "$ROOT/scripts/gpu" "$DEST/scripts/"
. "$ROOT/scripts/gpu/staged_commit.sh"; write_staged_commit "$DEST" "$ROOT"  # batch logs name it
du -sh "$DEST"; ls -la "$DEST/lib"
