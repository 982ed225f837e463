#!/usr/bin/env bash
# The test command: installs what is missing, builds once, then runs every test (Swift Testing)
# in lanes at once, and beside them the docs test (scripts/docs-test.py: every command block of
# README.md and docs/*.md). The dashboard's JavaScript (scripts/js-test.sh) is checked and
# tested before.
#
# The lanes:
# - the pure lane: the suites that only compute (`.computes`: models, parsers, reports, the
#   model engine, proxies on virtual time): no socket, no wall-clock verdict. In parallel, as
#   Swift Testing runs tests by default, under `nice`, so that the other lanes' timed work gets
#   the CPU first;
# - the main lane and the side lanes of `.playsLive(.LANE)` (agreement, benches, strategies,
#   commands, peers, quic), each one test at a time: the tests that play real seconds of
#   benches, phones and commands on loopback. They mostly wait, so seven share 2 cores without
#   starving one another; each is serial because the end-to-end tests time round trips to a few
#   milliseconds and must not run beside each other in numbers. (Plain `swift test` runs them
#   all in one parallel process, where the same traits keep them in the same lanes and off
#   each other's threads: docs/development.md.) The side lanes hold the long live suites and
#   the command-line runs, whose checks are counts, bytes, energy, orders and exit statuses
#   rather than milliseconds; the main lane runs the rest, and its output is shown as it goes.
# A lane's log is printed whole if it fails.
#
# The lanes run the test executable itself: `swift test` plans the build again before it runs
# anything, which takes up to a minute on a busy machine and cannot run twice at once. Where
# the tests are not an executable (macOS builds an .xctest bundle), it runs `swift test
# --no-parallel` on that build, in one lane. With arguments (`scripts/test.sh --filter
# LinkTests`, a developer's loop) it runs `swift test --no-parallel` with them in one lane, in
# debug, whose incremental builds are quicker than release's whole-module ones.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ $# -gt 0 ]; then
    exec swift test --no-parallel "$@"
fi
# The dashboard's JavaScript first: seconds, and its failures say which file and line.
scripts/js-test.sh
# The tests build in the configuration with the least left to compile. Where the release netsim
# is built (scripts/bench.sh, the quick start's first command, builds it with testable imports:
# scripts/release-build.sh), that is release, and only the test targets compile; elsewhere,
# debug, which compiles every module and dependency faster than release does.
if [ -x "$(scripts/release-build.sh --show-bin-path)/netsim" ]; then
    build=(scripts/release-build.sh)
    configuration=(-c release -Xswiftc -enable-testing)
else
    build=(swift build)
    configuration=()
fi
"${build[@]}" --build-tests
bin="$("${build[@]}" --show-bin-path)"
tests="$bin/netsimPackageTests.xctest"
if [ ! -f "$tests" ] || [ ! -x "$tests" ]; then
    exec swift test "${configuration[@]}" --skip-build --no-parallel
fi

# The lanes' suites, by the traits they carry (scripts/test-lanes.py: a line a lane, its name and
# its suites), named as `swift test --list-tests` names tests (Module.Suite/test): the suites
# that only compute, and the side lanes of `.playsLive`; the main lane takes the rest. Read in a
# plain assignment, so that a failure of the script stops this one (`set -e` does not see a
# failure inside another command's arguments).
lanes=$(scripts/test-lanes.py)
suites() { echo "\\.($1)/"; }
side_names=()
side_lanes=()
while read -r name names; do
    if [ "$name" = computes ]; then
        pure="$(suites "$names")"
    else
        side_names+=("$name")
        side_lanes+=("$names")
    fi
done <<< "$lanes"
lane() { "$tests" --testing-library swift-testing --no-parallel "$@"; }
[ -t 1 ] || export NO_COLOR=1

logs=.build/test-lanes
mkdir -p "$logs"
logfiles=("$logs/pure.log")
pids=()
NO_COLOR=1 nice -n 19 "$tests" --testing-library swift-testing --filter "$pure" > "$logs/pure.log" 2>&1 &
pids+=($!)
for index in "${!side_lanes[@]}"; do
    log="$logs/${side_names[$index]}.log"
    logfiles+=("$log")
    NO_COLOR=1 lane --filter "$(suites "${side_lanes[$index]}")" > "$log" 2>&1 &
    pids+=($!)
done
# The docs test (every command block of README.md and docs/*.md, with the netsim built beside
# the tests): its blocks mostly wait on short live runs, as the side lanes do.
netsim="$bin/netsim"
logfiles+=("$logs/docs.log")
scripts/docs-test.py "$netsim" > "$logs/docs.log" 2>&1 &
pids+=($!)
status=0
lane --skip "$pure|$(suites "$(IFS='|'; echo "${side_lanes[*]}")")" || status=$?
for index in "${!pids[@]}"; do
    log="${logfiles[$index]}"
    if wait "${pids[$index]}"; then
        echo "$(basename "$log" .log) ($log): $(grep -E 'Test run with|docs test:' "$log" | tail -n 1)"
    else
        status=1
        echo "$(basename "$log" .log) failed ($log):"
        cat "$log"
    fi
done
exit $status
