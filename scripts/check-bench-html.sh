#!/usr/bin/env bash
# Renders a netsim bench HTML report with headless Chromium to a PNG, to check it by eye
# (apt-get install -y chromium). Usage: scripts/check-bench-html.sh reports/bench-lte-tunnel.html [out.png]
set -euo pipefail
report="${1:?usage: $0 REPORT.html [OUT.png]}"
png="${2:-${report%.html}.png}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$browser" ] || { echo "no Chromium found: apt-get install -y chromium" >&2; exit 1; }
grep -q "<svg " "$report" || { echo "$report has no SVG chart" >&2; exit 1; }
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,3000 \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$report")" 2>/dev/null
[ -s "$png" ] || { echo "no screenshot written" >&2; exit 1; }
echo "rendered $report to $png"
