#!/usr/bin/env bash
# netsim's main job: installs what is missing, builds netsim (release), and runs the protocol
# benchmark on the built-in default profile, writing reports into reports/. Extra arguments go
# to `netsim bench` (e.g. --profile lte-good --duration 120s).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product netsim
.build/release/netsim bench "$@"
