#!/usr/bin/env bash
# The test command: installs what is missing, then runs every test (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift test "$@"
