#!/usr/bin/env bash
# Builds the code objects the code-object tests read, with Debian's hipcc (apt-get install hipcc):
#   kernels-gfx90a.co kernels-gfx940.co kernels-gfx1030.co  bare AMDGPU code objects (ELF)
#   kernels.hipfb     `--cuda-device-only` clang offload bundle for gfx90a + gfx1030
#   kernels-app       host executable with .hip_fatbin for gfx90a, gfx940, gfx1030
#   libkernels.so     shared library with .hip_fatbin for gfx90a
# Usage: make_code_objects.sh OUT_DIR [HIPCC]
set -euo pipefail
out=${1:?usage: make_code_objects.sh OUT_DIR [HIPCC]}
hipcc=${2:-hipcc}
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kernels.hip"
mkdir -p "$out"
# Debian's hipcc 5.2 asks rocm_agent_enumerator for the local GPU even when --offload-arch is given;
# an empty target list keeps it quiet on machines without a GPU.
export ROCM_TARGET_LST=/dev/null
# clang leaves empty kernels-XXXXXX folders in TMPDIR; keep them inside the output and remove them.
export TMPDIR="$out/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
for arch in gfx90a gfx940 gfx1030; do
  "$hipcc" --offload-arch="$arch" --cuda-device-only --no-gpu-bundle-output -c "$src" -o "$out/kernels-$arch.co"
done
"$hipcc" --offload-arch=gfx90a --offload-arch=gfx1030 --cuda-device-only -c "$src" -o "$out/kernels.hipfb"
"$hipcc" --offload-arch=gfx90a --offload-arch=gfx940 --offload-arch=gfx1030 "$src" -o "$out/kernels-app"
"$hipcc" --offload-arch=gfx90a -fPIC -shared "$src" -o "$out/libkernels.so"
