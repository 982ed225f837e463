#!/usr/bin/env bash
# The test command: installs what is missing, builds once, then runs every test (Swift Testing)
# in three lanes at once, each lane one test at a time, and beside them the docs test
# (scripts/docs-test.py: every command block of README.md and docs/*.md) once the first side
# lane is done. The dashboard's JavaScript (scripts/js-test.sh) is checked and tested before.
#
# Why lanes: the suite spends most of its time waiting. Its live tests play real seconds of
# benches and phones on loopback (the whole suite uses about a third of its wall time in CPU), so
# three lanes share 2 cores without starving one another. Each lane is serial because the
# end-to-end tests time round trips to a few milliseconds and must not run beside each other
# in numbers. The two side lanes hold the long live suites whose checks are counts, bytes,
# energy and orders rather than milliseconds; everything else runs in the main lane, whose
# output is shown as it goes. A side lane's log is printed whole if it fails.
#
# The lanes run the test executable itself: `swift test` plans the build again before it runs
# anything, which takes up to a minute on a busy machine and cannot run twice at once. Where
# the tests are not an executable (macOS builds an .xctest bundle), and with arguments
# (`scripts/test.sh --filter LinkTests`), it runs `swift test --no-parallel`, in one lane.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ $# -gt 0 ]; then
    exec swift test --no-parallel "$@"
fi
# The dashboard's JavaScript first: seconds, and its failures say which file and line.
scripts/js-test.sh
swift build --build-tests
tests="$(swift build --show-bin-path)/netsimPackageTests.xctest"
if [ ! -f "$tests" ] || [ ! -x "$tests" ]; then
    exec swift test --skip-build --no-parallel
fi

# Suites by name, as `swift test --list-tests` names tests (Module.Suite/test).
side_lanes=(
    'EngineAgreementTests|BenchShardTests|QUICModelAgreementTests'
    'StrategyEndToEndTests|ReconnectionStrategyTests|DeadlineAndNetworkWatchTests|DatagramEndToEndTests|GRPCCoreKeepaliveTests'
)
pattern() { echo "\\.($1)/"; }
lane() { "$tests" --testing-library swift-testing --no-parallel "$@"; }
[ -t 1 ] || export NO_COLOR=1

logs=.build/test-lanes
mkdir -p "$logs"
pids=()
for index in "${!side_lanes[@]}"; do
    NO_COLOR=1 lane --filter "$(pattern "${side_lanes[$index]}")" > "$logs/lane-$((index + 1)).log" 2>&1 &
    pids+=($!)
done
# The docs test (every command block of README.md and docs/*.md, with the debug netsim just
# built) is a lane of its own: its blocks mostly wait on short live runs, as the side lanes do.
# It starts when the first side lane is done: that lane compares live benches with the model
# engine, and a fourth busy lane on 2 cores slows the live clients enough to move their
# timings.
netsim="$(swift build --show-bin-path)/netsim"
(
    while kill -0 "${pids[0]}" 2> /dev/null; do sleep 1; done
    scripts/docs-test.py "$netsim"
) > "$logs/docs.log" 2>&1 &
docs=$!
status=0
lane --skip "$(pattern "$(IFS='|'; echo "${side_lanes[*]}")")" || status=$?
for index in "${!pids[@]}"; do
    log="$logs/lane-$((index + 1)).log"
    if wait "${pids[$index]}"; then
        echo "side lane $((index + 1)) ($log): $(grep -E 'Test run with' "$log" | tail -n 1)"
    else
        status=1
        echo "side lane $((index + 1)) failed ($log):"
        cat "$log"
    fi
done
if wait "$docs"; then
    echo "docs lane ($logs/docs.log): $(tail -n 1 "$logs/docs.log")"
else
    status=1
    echo "docs lane failed ($logs/docs.log):"
    cat "$logs/docs.log"
fi
exit $status
