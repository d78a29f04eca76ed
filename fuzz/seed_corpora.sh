#!/usr/bin/env bash
# Writes each libFuzzer target's seed corpus into OUT/<target>/ (adds to what is there): real files of the
# repository (rocpd traces, ncu CSVs, code objects, ceilings) and the small ones in fuzz/seeds/. The capture
# target's seed is a manifest that fuzz_capture writes itself (it needs the binary: BIN_DIR/fuzz_capture).
#   fuzz/seed_corpora.sh OUT [BIN_DIR=build-fuzz/fuzz]
# Used by run_all.sh, long_run.sh (in the source tree) and stage.sh.
set -euo pipefail
mkdir -p "$1"
out=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$root/build-fuzz/fuzz}
[[ -d $bin ]] && bin=$(cd "$bin" && pwd)
cd "$root"

seed() {  # seed TARGET FILE [PREFIX_BYTE]: copy FILE into the target's corpus, optionally after one mode byte
  local dir="$out/$1" name
  mkdir -p "$dir"
  name=$(basename "$2")${3:+.$3}
  if [[ -n "${3:-}" ]]; then { printf "\\x$3"; cat "$2"; } >"$dir/$name"; else cp "$2" "$dir/$name"; fi
}
# A real trace at full size, and small ones (512-byte pages: 66-115 KB instead of 475 KB; fuzz/README.md).
seed fuzz_rocpd_bytes examples/traces/multistream-h100.db
for f in fuzz/seeds/rocpd/*.db; do seed fuzz_rocpd_bytes "$f"; done
mkdir -p "$out/fuzz_rocpd_sql" && printf '\x00\x00\x00\x00' >"$out/fuzz_rocpd_sql/empty"
for f in fuzz/seeds/rocpd_sql/*; do seed fuzz_rocpd_sql "$f"; done  # findings
for f in tests/data/ncu/*.csv; do seed fuzz_ncu_csv "$f"; done
# Inputs of past findings: every run replays them first.
for f in fuzz/seeds/ncu_csv/*; do seed fuzz_ncu_csv "$f"; done
for f in fuzz/seeds/att/*; do seed fuzz_att "$f"; done
seed fuzz_code_object tests/data/hip/kernels-gfx90a.co 00
for f in tests/data/cuobjdump/*.txt; do seed fuzz_code_object "$f" 02; done
seed fuzz_ceilings bench/results/2026-11-24/cuda/h100_ceilings.json
for f in fuzz/seeds/ceilings/*; do seed fuzz_ceilings "$f"; done
for f in fuzz/seeds/rocprofv3_json/*; do seed fuzz_rocprofv3_json "$f"; done
for f in fuzz/seeds/capture/*; do seed fuzz_capture "$f"; done  # findings (they carry their own mode byte)
# fuzz_capture builds a capture with real blobs at start-up and writes its manifest as the seed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.input"
if [[ -x "$bin/fuzz_capture" ]] &&
  RPL_FUZZ_WRITE_SEED="$tmp/manifest.json" "$bin/fuzz_capture" "$tmp/empty.input" >"$tmp/log" 2>&1; then
  seed fuzz_capture "$tmp/manifest.json" 00
else
  echo "seed_corpora.sh: no capture seed ($bin/fuzz_capture missing or failed); fuzz_capture starts empty" >&2
  mkdir -p "$out/fuzz_capture"
fi
