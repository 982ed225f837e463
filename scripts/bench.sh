#!/usr/bin/env bash
# netsim's main job: installs what is missing, builds netsim, and runs the protocol benchmark on
# the built-in default profile, writing reports into reports/. Extra arguments go to
# `netsim bench` (e.g. --profile lte-good --duration 120s).
#
# A debug build, the one scripts/test.sh builds too, so the two commands of the quick start
# compile the sources once: the default live bench gives the same figures as a release build
# (within 0.2%, see docs/performance.md), because its work is a sparse workload on real time.
# The model engine (`--engine model`) and the keepalive tuner do not: they run about 50 times
# slower in this build, and say so when they start. Build release (`swift build -c release
# --product netsim`) for them, for `netsim run` at high rates and for the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product netsim
.build/debug/netsim bench "$@"
