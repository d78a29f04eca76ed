#!/usr/bin/env bash
# Builds what the GPU machine needs and assembles it in one folder to carry there (the GPU machine has no
# compiler dev packages: no libsqlite3-dev, fmt, nlohmann). Run here, on the build machine.
#   [JOBS=2] [CUDA_ARCHS="80 90"] scripts/gpu/stage_devbuild.sh [DEST=.devbuild] [BUILD_DIR=build]
# DEST/lib: librpl_cuda_collector.so, librpl_cupti_counters.so, librpl_pc_sampling.so, librpl_nccl_profiler.so and rpl_cupti_metrics (RUNPATH $ORIGIN) and the shared libraries it needs that the GPU
# machine may lack (libcupti, libsqlite3, libfmt); DEST/bin: testbed apps (nvcc, sm_80 + sm_90) and
# rpl_spill_convert; DEST/lib/rpl_ceilings_bench (the ceilings benchmark); DEST/scripts/gpu, DEST/bench/cuda, DEST/examples/apps/multistream.json.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$ROOT/.devbuild}
BUILD=${2:-$ROOT/build}
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
BUILD=$(cd "$BUILD" && pwd)  # absolute: make -C below changes directory
ninja -C "$BUILD" -j"${JOBS:-2}" rpl_cuda_collector rpl_cupti_counters rpl_pc_sampling rpl_spill_convert rocm-perf rpl_ceilings_bench \
  rpl_cupti_metrics rpl_nccl_profiler
make -C "$ROOT/examples/apps" -j"${JOBS:-2}" OUT="$BUILD/apps" CUDA_ARCHS="${CUDA_ARCHS:-80 90}" cuda
rm -rf "$DEST"; mkdir -p "$DEST/lib" "$DEST/bin" "$DEST/scripts" "$DEST/bench" "$DEST/examples/apps"
LIBSO="$BUILD/src/cli/librpl_cuda_collector.so"
strip --strip-debug -o "$DEST/lib/librpl_cuda_collector.so" "$LIBSO"
for dep in libcupti.so libsqlite3.so libfmt.so; do
  path=$(ldd "$LIBSO" | awk -v d="$dep" 'index($1, d) == 1 {print $3}')
  [ -n "$path" ] || { echo "no $dep in ldd of the collector" >&2; exit 1; }
  cp -L "$path" "$DEST/lib/$(basename "$(ldd "$LIBSO" | awk -v d="$dep" 'index($1, d) == 1 {print $1}')")"
done
strip --strip-debug -o "$DEST/lib/librpl_cupti_counters.so" "$BUILD/src/cli/librpl_cupti_counters.so"
strip --strip-debug -o "$DEST/lib/librpl_pc_sampling.so" "$BUILD/src/cli/librpl_pc_sampling.so"  # profile --pc-sampling
# NCCL's calls (NCCL_PROFILER_PLUGIN; profile --preset communication needs it beside rocm-perf).
strip --strip-debug -o "$DEST/lib/librpl_nccl_profiler.so" "$BUILD/src/cli/librpl_nccl_profiler.so"
# rocm-perf beside the collector, where `profile` looks for it.
strip --strip-debug -o "$DEST/lib/rocm-perf" "$BUILD/src/cli/rocm-perf"
cp "$BUILD/src/cli/rpl_ceilings_bench" "$DEST/lib/"  # `rocm-perf ceilings` looks next to itself
# `rocm-perf counters list` and the --counters check on NVIDIA (the CUPTI metric enumeration), next to rocm-perf.
strip --strip-debug -o "$DEST/lib/rpl_cupti_metrics" "$BUILD/src/cli/rpl_cupti_metrics"
strip --strip-debug -o "$DEST/bin/rpl_spill_convert" "$BUILD/src/collectors/nvidia/spill_convert/rpl_spill_convert"
cp "$BUILD"/apps/* "$DEST/bin/"
cp -r "$ROOT/scripts/gpu" "$DEST/scripts/"
cp -r "$ROOT/bench/cuda" "$DEST/bench/"
cp "$ROOT/examples/apps/multistream.json" "$DEST/examples/apps/"
. "$ROOT/scripts/gpu/staged_commit.sh"; write_staged_commit "$DEST" "$ROOT"  # batch logs name it
du -sh "$DEST"
