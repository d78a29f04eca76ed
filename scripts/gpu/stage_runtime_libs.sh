#!/usr/bin/env bash
# Copies into DEST/lib every shared library that the staged programs and libraries (DEST/lib, DEST/bin) load
# and that the GPU machine may lack (it has no Debian dev packages: libclang/LLVM, RE2, xgboost, muparser,
# ...), leaving out the C/C++ runtime and the NVIDIA driver's own libraries, which must come from that machine.
#   scripts/gpu/stage_runtime_libs.sh DEST
set -euo pipefail
DEST=$1
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread\.so|libutil\.so|libresolv\.so|libstdc\+\+\.so|libgcc_s\.so|libcuda\.so|libnvidia-)'
for f in "$DEST"/lib/* "$DEST"/bin/*; do
  file -L "$f" | grep -q ELF || continue
  { ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  [ -e "$DEST/lib/$name" ] || cp -L "$path" "$DEST/lib/$name"
done
du -sh "$DEST/lib"
