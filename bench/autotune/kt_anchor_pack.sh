#!/usr/bin/env bash
# Packs what bench/autotune/kt_anchor_batch.sh needs on a machine without network into one ignored folder of
# this repository (default .kt-anchor/, listed in .gitignore), to be carried there:
#   kernel_tuner/kernel_tuner/   Kernel Tuner's package (from a checkout obtained with `fetch`; nothing kept in git)
#   python-constraint/constraint/  python-constraint's pure-Python modules
#   deps/                        Debian's pure-Python modules Kernel Tuner imports (jsonschema, attr, pyrsistent,
#                                packaging, xmltodict), used only where the target's python3 lacks them
#   ours/                        build/bench/autotune_quality (stripped) with every shared library it loads and
#                                the dynamic loader, so it runs on any x86-64 Linux whatever its libraries
#   PACKED.txt                   what was packed, from where, commits
# Usage: bench/autotune/kt_anchor_pack.sh KT_CHECKOUT PC_CHECKOUT [--build BUILD_DIR] [--dest .kt-anchor]
#        [--kernel-tuner-commit SHA] [--python-constraint-commit SHA]   (for checkouts without .git)
set -euo pipefail
usage() { sed -n 2,15p "$0" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
kt=$1 pc=$2
shift 2
build=build dest=.kt-anchor kt_commit="" pc_commit=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --dest) dest=$2; shift 2 ;;
    --kernel-tuner-commit) kt_commit=$2; shift 2 ;;
    --python-constraint-commit) pc_commit=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -f $kt/kernel_tuner/interface.py ]] || { echo "$0: $kt/kernel_tuner/interface.py not found: not a Kernel Tuner checkout" >&2; exit 2; }
[[ -f $pc/constraint/problem.py ]] || { echo "$0: $pc/constraint/problem.py not found: not a python-constraint checkout" >&2; exit 2; }
bin=$build/bench/autotune_quality
[[ -x $bin ]] || { echo "$0: $bin not found: cmake --build $build --target autotune_quality" >&2; exit 2; }
rm -rf "$dest"
mkdir -p "$dest/kernel_tuner" "$dest/python-constraint" "$dest/deps" "$dest/ours/lib"
cp -r "$kt/kernel_tuner" "$dest/kernel_tuner/"
cp -r "$pc/constraint" "$dest/python-constraint/"
find "$dest" -name __pycache__ -prune -exec rm -rf {} +
# Cython sources and builds of python-constraint are not needed (its pure-Python modules are used).
find "$dest/python-constraint" \( -name '*.so' -o -name '*.c' -o -name '*.pyx' \) -delete
dist=/usr/lib/python3/dist-packages
for m in jsonschema attr pyrsistent packaging; do cp -r "$dist/$m" "$dest/deps/"; done
cp "$dist/xmltodict.py" "$dest/deps/"
find "$dest/deps" -name __pycache__ -prune -exec rm -rf {} +
find "$dest/deps" -name '*.so' -delete
strip -o "$dest/ours/autotune_quality" "$bin"
ldd "$bin" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do cp -L "$lib" "$dest/ours/lib/"; done
loader=$(ldd "$bin" | awk '/ld-linux/{print $1}')
cp -L "$loader" "$dest/ours/lib/ld-linux-x86-64.so.2"
[[ -n $kt_commit ]] || kt_commit=$(git -C "$kt" rev-parse HEAD 2>/dev/null || echo unknown)
[[ -n $pc_commit ]] || pc_commit=$(git -C "$pc" rev-parse HEAD 2>/dev/null || echo unknown)
{
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  echo "kernel_tuner_commit $kt_commit (from $kt)"
  echo "python_constraint_commit $pc_commit (from $pc)"
  echo "rocm_perf_lab_commit $(git rev-parse HEAD) (autotune_quality from $bin)"
  echo "deps from $dist: jsonschema attr pyrsistent packaging xmltodict"
} > "$dest/PACKED.txt"
# The carried copy must run: the binary through the packed loader, Kernel Tuner from the packed modules.
"$dest/ours/lib/ld-linux-x86-64.so.2" --library-path "$dest/ours/lib" "$dest/ours/autotune_quality" --help > /dev/null
du -sh "$dest"
cat "$dest/PACKED.txt"
