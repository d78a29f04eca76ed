#!/usr/bin/env bash
# Assembles in DEST what fuzz/long_run.sh needs on a machine without a compiler or dev packages: the fuzz
# binaries (debug info stripped), every shared library they load except glibc's own and the NVIDIA driver's,
# the JSON schemas, the seed corpora, and long_run.sh itself; then DEST.tar.xz beside it.
#   [FUZZ_BUILD_DIR=build-fuzz] fuzz/stage.sh DEST
# On the other machine: tar -xJf DEST.tar.xz && DEST/long_run.sh (it sets LD_LIBRARY_PATH=DEST/lib and
# RPL_SCHEMA_DIR=DEST/schemas itself; see its header for LONG_SECONDS, FUZZ_CORES, OUT).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: fuzz/stage.sh DEST" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
targets="fuzz_rocpd_bytes fuzz_rocpd_sql fuzz_capture fuzz_ncu_csv fuzz_att fuzz_code_object fuzz_ceilings fuzz_rocprofv3_json"
dest=$1
rm -rf "$dest"
mkdir -p "$dest"/{bin,lib,schemas}
dest=$(cd "$dest" && pwd)

for t in $targets; do
  [[ -x $build/fuzz/$t ]] || { echo "stage.sh: $build/fuzz/$t missing (cmake --build $build --target fuzz_all)" >&2; exit 2; }
  # Symbols stay (sanitizer reports name functions); line tables go (reproduce a finding here for lines).
  strip --strip-debug -o "$dest/bin/$t" "$build/fuzz/$t"
done
# glibc (libc, libm, libdl, librt, libpthread, libutil, libresolv, the loader) must be the machine's own;
# everything else comes along.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread\.so|libutil\.so|libresolv\.so|libcuda\.so|libnvidia-)'
for f in "$dest"/bin/*; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] && continue
  # The C++ runtime apart: long_run.sh uses it only where the machine's own is missing or too old (this
  # libstdc++ needs glibc 2.36, the binaries and other libraries 2.35).
  sub=lib
  [[ $name =~ ^(libstdc\+\+|libgcc_s)\.so ]] && sub=lib/cxx && mkdir -p "$dest/lib/cxx"
  strip --strip-debug -o "$dest/$sub/$name" "$(readlink -f "$path")"
done
cp "$root"/schemas/*.schema.json "$dest/schemas/"
bash "$root/fuzz/seed_corpora.sh" "$dest/seeds" "$build/fuzz"
cp "$root/fuzz/long_run.sh" "$root/fuzz/seed_corpora.sh" "$dest/"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (uncommitted changes)" || true)
echo "commit $commit$dirty, staged $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build" >"$dest/STAGED_FROM"

# Every binary must resolve all its libraries from DEST/lib plus glibc.
missing=$(for f in "$dest"/bin/*; do LD_LIBRARY_PATH=$dest/lib:$dest/lib/cxx ldd "$f" | grep 'not found' || true; done)
[[ -z $missing ]] || { echo "stage.sh: unresolved libraries: $missing" >&2; exit 1; }

tar -C "$(dirname "$dest")" -cJf "$dest.tar.xz" "$(basename "$dest")"
du -sh "$dest"
ls -la "$dest.tar.xz"
