#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/dev.sh example   install what is missing, build, analyse the embedded example trace
#   scripts/dev.sh test      install what is missing, build, run the whole test suite, then build the Debian
#                            package and check the installed copy (scripts/check_package.sh; dpkg -i under CI)
# Environment: BUILD_DIR (default build), RPL_SANITIZE=1 for an ASan/UBSan build, RPL_FUZZ_SECONDS (default
# 20; 0 skips): `test` also builds the libFuzzer targets with clang 15 in build-fuzz and runs each that long.
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

# build DEBUG_FLAG [TARGET...]: everything, or only the named targets and what they link.
build() {
  local debug=$1
  shift
  local sanitize=OFF
  [[ "${RPL_SANITIZE:-0}" == 1 ]] && sanitize=ON
  # A build from a clean tree (a first run, CI) is made cheaper in CPU, never in what it builds:
  #   RPL_UNITY_BUILD  each library's sources compile as one batch (CMakeLists.txt; batch size 0 = the whole
  #                    library): headers parsed and templates instantiated once per library. The same program.
  #                    On the same libraries, 20-30% less CPU than batches of 8; precompiled headers on top
  #                    cost more than they saved.
  #   -g1 (test)       line tables only (backtraces, sanitizer reports and profilers still name file:line),
  #                    no variable info, which is a quarter of the compile time. The same code (-O2); for a
  #                    debugger's view of variables, configure a build of your own with the plain -g.
  #   -g0 (example)    a first result needs no debug info (2-4% less CPU than -g1). A later `test` in the same
  #                    build directory recompiles the libraries with -g1.
  # bench/results/2026-11-29/first-run/ has the measurements.
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $debug -DNDEBUG" -DRPL_SANITIZE=$sanitize -DRPL_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >/dev/null
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
}

install_missing
case "$mode" in
  example)
    # A first result in minutes: only the CLI and the libraries it links; `test` builds the rest.
    build -g0 rocm-perf
    "$build_dir"/src/cli/rocm-perf analyze "$example_trace" --output-dir rocm-perf-out
    ls -l rocm-perf-out
    ;;
  test)
    build -g1
    ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
    # CI runs as root on a fresh machine: install the package for real; elsewhere extract it to a scratch root.
    if [[ "${CI:-}" == true && $(id -u) -eq 0 ]]; then
      scripts/check_package.sh --install "$build_dir"
    else
      scripts/check_package.sh "$build_dir"
    fi
    fuzz_seconds=${RPL_FUZZ_SECONDS:-20}
    if ((fuzz_seconds > 0)); then
      # Only the fuzz targets and the library sources they link are built (fuzz/CMakeLists.txt).
      CC=clang-15 CXX=clang++-15 cmake -S . -B build-fuzz -G Ninja -DRPL_FUZZ=ON -DCMAKE_BUILD_TYPE=Fuzz \
        -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" >/dev/null
      cmake --build build-fuzz -j "$(nproc)" --target fuzz_all
      fuzz/run_all.sh "$fuzz_seconds"
    fi
    ;;
esac
