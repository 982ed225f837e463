#!/usr/bin/env bash
# netsim's main job: installs what is missing, builds the optimized netsim, installs it on the
# PATH (scripts/install.sh: PREFIX/bin/netsim with its completions and man page; PREFIX is
# ~/.local, or /usr/local as root), and runs the protocol benchmark on the built-in default
# profile with it, writing reports into reports/. Extra arguments go to `netsim bench` (e.g.
# --profile lte-good --duration 120s).
#
# A release build, because what a user runs next is the model engine and the tuner, which run
# about 50 times slower in a debug build. scripts/test.sh builds the tests in debug on its own;
# the release build is the quick start's extra cost (docs/performance.md has its time).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product netsim
scripts/install.sh
.build/release/netsim bench "$@"
