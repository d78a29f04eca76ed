#!/usr/bin/env bash
# Builds the Debian package from a finished build and checks the installed copy (docs/install.md):
#   scripts/check_package.sh [BUILD_DIR]            dpkg -x into a scratch root (no change to the machine)
#   scripts/check_package.sh --install [BUILD_DIR]  dpkg -i for real (CI: root on a fresh machine), then dpkg -r
# Either way: every Depends entry must be a Debian package apt knows, and the installed rocm-perf must print
# its version, analyse the example trace, and find its helpers (lib/rocm-perf) with the build tree out of reach.
set -euo pipefail
cd "$(dirname "$0")/.."
install=0
if [[ "${1:-}" == --install ]]; then install=1; shift; fi
build_dir=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$build_dir" && cpack -G DEB -B "$work/cpack" >/dev/null)
deb=$(ls "$work"/cpack/rocm-perf_*.deb)
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
[[ -n "$depends" ]] || { echo "FAIL: no Depends (dpkg-shlibdeps did not run?)" >&2; exit 1; }
for dep in $(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | sort -u); do
  # A Debian package: installed here (the build needed it), or known to apt.
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" || apt-cache show "$dep" >/dev/null 2>&1 ||
    { echo "FAIL: Depends names $dep, which is neither installed nor known to apt" >&2; exit 1; }
done
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
grep -qx './usr/bin/rocm-perf' <<<"$contents" || { echo "FAIL: no usr/bin/rocm-perf in the package" >&2; exit 1; }
echo "helpers: $(grep '^./usr/lib/rocm-perf/.' <<<"$contents" | xargs -n1 basename | tr '\n' ' ')"
echo "data: $(grep -c '^./usr/share/rocm-perf/.*[^/]$' <<<"$contents") files under usr/share/rocm-perf"

if ((install)); then
  dpkg -i "$deb" >/dev/null
  root=/
  trap 'dpkg -r rocm-perf >/dev/null || true; rm -rf "$work"' EXIT
else
  root="$work/root"
  dpkg -x "$deb" "$root"
fi
bin="$root/usr/bin/rocm-perf"
# Out of reach of the build tree: helpers and data are found relative to the executable only.
export -n RPL_SHARE_DIR RPL_HSA_CAPTURE RPL_CUDA_COLLECTOR 2>/dev/null || true
version=$(cd "$work" && "$bin" --version)
echo "installed: $version"
[[ "$version" == *"$(sed -n 's/^project(rocm_perf_lab VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"* ]] ||
  { echo "FAIL: --version printed '$version'" >&2; exit 1; }
cp examples/traces/multistream-h100.db "$work/trace.db"
(cd "$work" && "$bin" analyze trace.db -o out --quiet >/dev/null)
[[ -s "$work/out/profile.json" && -s "$work/out/report.html" ]] || { echo "FAIL: analyze wrote no outputs" >&2; exit 1; }
echo "analyze: ok ($(ls "$work/out" | tr '\n' ' '))"
if [[ -e "$root/usr/lib/rocm-perf/librpl_hsa_capture.so" ]]; then
  # The capture library is found in ../lib/rocm-perf: the application runs, captures nothing (exit 11); a
  # missing library would be exit 8 before anything runs.
  set +e
  (cd "$work" && "$bin" capture --platform rocm -o cap --quiet -- /bin/true 2>"$work/capture.err")
  rc=$?
  set -e
  [[ $rc == 11 ]] || { echo "FAIL: capture from the install exited $rc: $(cat "$work/capture.err")" >&2; exit 1; }
  echo "helpers: found in $root/usr/lib/rocm-perf"
fi
echo "package check: ok"
