#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/dev.sh example   install what is missing, build, analyse the embedded example trace
#   scripts/dev.sh test      install what is missing, build, run the whole test suite
# Environment: BUILD_DIR (default build), RPL_SANITIZE=1 for an ASan/UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case "$mode" in example|test) ;; *) echo "usage: $0 example|test" >&2; exit 2 ;; esac

build_dir=${BUILD_DIR:-build}
example_trace=examples/traces/multistream-h100-roofline.db  # a --roofline run on an H100: counters included

install_missing() {
  local missing=()
  while read -r pkg; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done < scripts/packages.txt
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    local sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() {
  local sanitize=OFF
  [[ "${RPL_SANITIZE:-0}" == 1 ]] && sanitize=ON
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRPL_SANITIZE=$sanitize >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}

install_missing
build
case "$mode" in
  example)
    "$build_dir"/src/cli/rocm-perf analyze "$example_trace" --output-dir rocm-perf-out
    ls -l rocm-perf-out
    ;;
  test)
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
    ;;
esac
