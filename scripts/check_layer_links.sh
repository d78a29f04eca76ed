#!/usr/bin/env bash
# The layering link check (docs/architecture.md): builds every layer as a shared library linked with
# -Wl,-z,defs (RPL_SHARED_LAYERS=ON), so a layer that calls code of a layer it does not link fails to link.
# The include check (scripts/check_includes.py) catches an upward #include; this catches what an include
# check cannot: a declaration written by hand, or a symbol reached through a layer linked only privately.
#   scripts/check_layer_links.sh [BUILD_DIR=build-shared]   (JOBS=2 by default)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-shared}
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRPL_SHARED_LAYERS=ON -DRPL_BUILD_TESTS=OFF \
  -DRPL_BUILD_BENCH=OFF >/dev/null
# Every layer library (src/<layer>/librpl_<layer>.so; the injection libraries under src/cli/ are not layers).
mapfile -t layers < <(ninja -C "$BUILD" -t targets all | grep -v '^src/cli/' |
  sed -n 's|^src/[a-z/]*/\(librpl_[a-z_]*\.so\): .*|\1|p' | sort -u)
[ ${#layers[@]} -gt 0 ] || { echo "no layer libraries found in $BUILD" >&2; exit 1; }
echo "layers linked with -z defs: ${layers[*]}" >&2
ninja -C "$BUILD" -j"${JOBS:-2}" "${layers[@]/#/}" rocm-perf 2>&1 | tail -20
echo "ok: every layer links on its own with -z defs, and rocm-perf links against them" >&2
