#!/usr/bin/env bash
# Runs the live bench and the model engine on the same profile, seed, fleet and duration and
# prints them side by side within the model engine's bounds (`netsim report agree`), for
# lte-good and lte-tunnel by default; exit 1 when a bound is missed.
# The live runs take their real duration each (about 2.5 min for 120 s with the drain).
#   scripts/compare-engines.sh [PROFILE...]      (env: DEVICES=10 DURATION=120s SEED=1)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product netsim
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(lte-good lte-tunnel)
out=$(mktemp -d)
status=0
for profile in "${profiles[@]}"; do
    for engine in live model; do
        .build/debug/netsim bench --engine "$engine" --profile "$profile" --phones "${DEVICES:-10}" \
            --duration "${DURATION:-120s}" --seed "${SEED:-1}" --out "$out/$engine" --format json --quiet >/dev/null
    done
    .build/debug/netsim report agree "$out/live/bench-$profile.json" "$out/model/bench-$profile.json" || status=1
    echo
done
exit $status
