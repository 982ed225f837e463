#!/usr/bin/env bash
# The runs and tables of docs/strategies.md's sections 2, 3 and 5 (batching, offline queue,
# slow consumer), for scripts/strategies.sh, which writes the document: one function per
# strategy, each running its benches with `netsim bench` (live engine, real time) and writing
# its commands and table as Markdown to $OUT/<section>.md (default reports/strategies).
# `scripts/strategies-buffers.sh [strategy ...]` runs the named ones (all by default). Runs are short (1-3 minutes each, 2 devices per transport),
# so the numbers move a little between runs; what they show does not.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NETSIM=${NETSIM:-.build/debug/netsim}
OUT=${OUT:-reports/strategies}

# bench NAME ARGS...: one run, its JSON and Markdown reports in $OUT/NAME/ (bench-PROFILE.*).
bench() {
    local name=$1
    shift
    echo "strategies: netsim bench $* (reports in $OUT/$name)" >&2
    "$NETSIM" bench --quiet --format json,md --out "$OUT/$name" "$@" >/dev/null
}

# table COLUMNS ROW...: a Markdown table, a row per transport of each run ("LABEL=NAME": the
# run's reports are in $OUT/NAME/), with the named columns (see column in scripts/report-table.sh).
source scripts/report-table.sh
table() { report_table "$OUT" "$@"; }

# section NAME: the section's Markdown on standard input, into $OUT/NAME.md and echoed.
section() {
    mkdir -p "$OUT"
    tee "$OUT/$1.md"
}

# --- Strategy 2: batching ----------------------------------------------------------------------
strategy_batching() {
    local common=(--profile lte-good --workload workloads/analytics-burst.yaml --phones 2 --duration 4m --seed 1)
    # Three light runs (mostly idle) side by side, so the section takes one run's time.
    bench batching-off "${common[@]}" --client clients/batching-off.yaml &
    bench batching-on "${common[@]}" --client clients/batching-on.yaml &
    bench batching-long "${common[@]}" --client clients/batching-long.yaml &
    wait
    # The model engine on the same commands: virtual time, a second each.
    for run in off on long; do bench "batching-$run-model" "${common[@]}" --engine model --client "clients/batching-$run.yaml"; done
    {
        echo "Command: \`netsim bench ${common[*]} --client clients/batching-{off,on,long}.yaml\`"
        echo
        table bytes,wire,promotions,wake,energy,uplink,messages \
            "off=batching-off" "10 / 0.5 s=batching-on" "40 / 2 m=batching-long"
        echo
        echo "The same commands with \`--engine model\`:"
        echo
        table bytes,wire,promotions,wake,energy,uplink,messages \
            "off=batching-off-model" "10 / 0.5 s=batching-on-model" "40 / 2 m=batching-long-model"
    } | section batching
}

# --- Strategy 3: offline queue -----------------------------------------------------------------
strategy_offline_queue() {
    local roomy
    roomy=$(mktemp --suffix=.yaml)
    sed 's/^outboxLimit: 8 .*/outboxLimit: 64/' workloads/offline-queue.yaml >"$roomy"
    bench offline-subway-8 --profile subway --workload workloads/offline-queue.yaml --phones 2 --duration 100s --seed 1 &
    bench offline-subway-64 --profile subway --workload "$roomy" --phones 2 --duration 100s --seed 1 &
    bench offline-tunnel-8 --profile lte-tunnel --workload workloads/offline-queue.yaml --phones 2 --duration 100s --seed 1 &
    wait
    # The model engine on the same commands: virtual time, a second each.
    bench offline-subway-8-model --engine model --profile subway --workload workloads/offline-queue.yaml --phones 2 --duration 100s --seed 1
    bench offline-subway-64-model --engine model --profile subway --workload "$roomy" --phones 2 --duration 100s --seed 1
    bench offline-tunnel-8-model --engine model --profile lte-tunnel --workload workloads/offline-queue.yaml --phones 2 --duration 100s --seed 1
    rm -f "$roomy"
    {
        echo "Commands: \`netsim bench --profile subway|lte-tunnel --workload workloads/offline-queue.yaml --phones 2 --duration 100s --seed 1\`"
        echo "(outbox of 8; the subway run again with \`outboxLimit: 64\`)"
        echo
        table messages,outboxDrops,lostByCause,outOfOrder,uplink \
            "subway, outbox 8=offline-subway-8" "subway, outbox 64=offline-subway-64" "lte-tunnel, outbox 8=offline-tunnel-8"
        echo
        echo "The same commands with \`--engine model\` (its reports split no losses by cause here: \`-\`):"
        echo
        table messages,outboxDrops,lostByCause,outOfOrder,uplink \
            "subway, outbox 8=offline-subway-8-model" "subway, outbox 64=offline-subway-64-model" "lte-tunnel, outbox 8=offline-tunnel-8-model"
    } | section offline-queue
}

# --- Strategy 5: slow consumer and flow control ------------------------------------------------
strategy_slow_consumer() {
    local common=(--profile lte-good --workload workloads/server-burst.yaml --phones 2 --duration 60s --seed 1)
    for mode in unbounded bounded pull; do
        bench "consumer-$mode" "${common[@]}" --client "clients/consumer-$mode.yaml"
    done
    # The model engine on the same commands: virtual time, a second each.
    for mode in unbounded bounded pull; do
        bench "consumer-$mode-model" "${common[@]}" --engine model --client "clients/consumer-$mode.yaml"
    done
    {
        echo "Command: \`netsim bench ${common[*]} --client clients/consumer-{unbounded,bounded,pull}.yaml\`"
        echo
        table delivered,rbDrops,lostByCause,clientPeak,serverPeak,eventLatency \
            "unbounded=consumer-unbounded" "bounded 64=consumer-bounded" "pull=consumer-pull"
        echo
        echo "The same commands with \`--engine model\`:"
        echo
        table delivered,rbDrops,lostByCause,clientPeak,serverPeak,eventLatency \
            "unbounded=consumer-unbounded-model" "bounded 64=consumer-bounded-model" "pull=consumer-pull-model"
    } | section slow-consumer
}

# Sourced (to re-render a table from reports already there), it only defines the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ $# -eq 0 ]; then set -- batching offline_queue slow_consumer; fi
    for strategy in "$@"; do "strategy_${strategy//-/_}"; done
fi
