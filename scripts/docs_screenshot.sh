#!/usr/bin/env bash
# Regenerates docs/images/report-example.png (docs/visual-reports.md): report.html of the example H100 trace with
# counters (examples/traces/multistream-h100-roofline.db, one what-if scenario) as headless Chromium draws it at
# 1400 px, the width the layout test checks (tests/test_html_layout.cpp).
#   scripts/docs_screenshot.sh [ROCM_PERF]   (default: build/src/cli/rocm-perf; needs chromium)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RP=${1:-$ROOT/build/src/cli/rocm-perf}
CHROMIUM=$(command -v chromium || command -v chromium-browser) || { echo "chromium is not installed" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$RP" analyze "$ROOT/examples/traces/multistream-h100-roofline.db" -o "$W/out" --quiet --what-if 'stage_a1=0.5' >/dev/null
"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --window-size=1400,2600 \
  --user-data-dir="$W/profile" --screenshot="$ROOT/docs/images/report-example.png" "file://$W/out/report.html" \
  >/dev/null 2>&1
echo "wrote $ROOT/docs/images/report-example.png"
