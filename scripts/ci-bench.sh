#!/usr/bin/env bash
# CI's short bench: every transport on lte-tunnel for 90 s, its Markdown report printed and,
# when GITHUB_STEP_SUMMARY is set, appended to the job summary. Fails (exit 3) if any transport
# loses or duplicates an event or loses a message. Expects a built netsim (release or debug).
set -euo pipefail
cd "$(dirname "$0")/.."
netsim="${NETSIM:-$( [ -x .build/release/netsim ] && echo .build/release/netsim || echo .build/debug/netsim )}"
out="${BENCH_OUT:-reports/ci}"
status=0
"$netsim" bench --profile lte-tunnel --duration "${BENCH_DURATION:-90s}" --devices "${BENCH_DEVICES:-5}" --out "$out" --quiet \
  --fail-if 'rest.events.lost > 0' --fail-if 'ws.events.lost > 0' --fail-if 'grpc.events.lost > 0' \
  --fail-if 'rest.events.duplicated > 0' --fail-if 'ws.events.duplicated > 0' --fail-if 'grpc.events.duplicated > 0' \
  --fail-if 'rest.messages.lost > 0' --fail-if 'ws.messages.lost > 0' --fail-if 'grpc.messages.lost > 0' \
  > /dev/null || status=$?
if [ -f "$out/bench-lte-tunnel.md" ]; then
  cat "$out/bench-lte-tunnel.md"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/bench-lte-tunnel.md" >> "$GITHUB_STEP_SUMMARY"; fi
fi
exit "$status"
