#!/usr/bin/env bash
# The test command: installs what is missing, then runs every test (Swift Testing).
# Serially: the end-to-end tests measure round trips to a few milliseconds on loopback and must
# not share 2 cores with the benchmark's transport tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift test --no-parallel "$@"
