#!/usr/bin/env bash
# The one release build of netsim: `swift build -c release` with testable imports
# (-enable-testing), so that scripts/test.sh's test build, in the same configuration, reuses
# every module scripts/bench.sh and scripts/install.sh compiled and compiles only the test
# targets. Every script that builds the release netsim builds it through here: a release build
# with other flags would compile every module and dependency again in .build/release.
# Arguments go to `swift build` (`--product netsim`, `--build-tests`, `--show-bin-path`).
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift build -c release -Xswiftc -enable-testing "$@"
