#!/usr/bin/env bash
# netsim's main job: installs what is missing, builds the optimized netsim, installs it on the
# PATH (scripts/install.sh: PREFIX/bin/netsim with its completions and man page; PREFIX is
# ~/.local, or /usr/local as root), and runs the protocol benchmark on the built-in default
# profile with it, writing reports into reports/. Extra arguments go to `netsim bench` (e.g.
# --profile lte-good --duration 120s).
#
# A release build, because what a user runs next is the model engine and the tuner, which run
# about 50 times slower in a debug build. scripts/release-build.sh keeps testable imports, so that
# scripts/test.sh, which builds the tests in that same configuration, compiles only the test
# targets after it (docs/performance.md has both times).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/release-build.sh --product netsim
scripts/install.sh
.build/release/netsim bench "$@"
