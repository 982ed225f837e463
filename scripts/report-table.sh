# Sourced by scripts/strategies.sh and scripts/strategies-buffers.sh: their tables, made by
# `netsim report table` from the bench reports their runs wrote.

# column NAME: the `netsim report table` column (TITLE=CELL) of a figure the strategy tables show.
column() {
    case $1 in
    delivered) echo 'events delivered={events.delivered}/{events.sent}' ;;
    skipped) echo 'lost by skipping={resilience.eventsLostBySkipping}' ;;
    lost) echo 'lost (all causes)={events.lost}' ;;
    inflight) echo 'in flight at the end={events.inFlight}' ;;
    peak) echo 'attempts, fleet peak={resilience.connectionAttempts.peakPerSecond}/s at {resilience.connectionAttempts.peakSecond:.0f} s' ;;
    attempts) echo 'attempts, total={resilience.connectionAttempts.total}' ;;
    failed) echo 'failed attempts={client.failedAttempts}' ;;
    energy) echo 'energy per device, J={perDevice.energyJoules.mean:.1f} ± {perDevice.energyJoules.standardDeviation:.1f}' ;;
    power) echo 'mean power, mW={radioFleetTotal.meanPowerMilliwatts:.0f}' ;;
    wake) echo 'radio awake per device, s={perDevice.wakeSeconds.mean:.1f}' ;;
    zombie) echo 'zombie s: mean / max (deaths)={resilience.zombieSeconds.mean:.1f} / {resilience.zombieSeconds.max:.1f} ({resilience.zombieSeconds.deaths})' ;;
    p95) echo 'event latency p95={latencyMs.p95/1000:.1f} s' ;;
    recovery) echo 'recovery after a gap, mean={recoverySeconds.mean:.1f} s' ;;
    bytes) echo 'bytes up / down per device={bytes.up/1000:.1f} KB / {bytes.down/1000:.1f} KB' ;;
    wire) echo 'wire est. up / down per device={bytes.wire.up/1000:.1f} KB / {bytes.wire.down/1000:.1f} KB' ;;
    promotions) echo 'promotions per device={perDevice.promotions.mean:.1f}' ;;
    uplink) echo 'message latency p50 / p95={uplinkLatencyMs.p50:.0f} / {uplinkLatencyMs.p95:.0f} ms' ;;
    messages) echo 'messages delivered / sent={messages.delivered}/{messages.sent}' ;;
    outboxDrops) echo 'outbox drops={client.outboxDrops}' ;;
    lostByCause) echo 'lost: outbox / receive buffer / other={buffers.lost.outboxOverflow} / {buffers.lost.receiveBufferOverflow} / {buffers.lost.other}' ;;
    outOfOrder) echo 'messages out of order={messages.outOfOrder}' ;;
    rbDrops) echo 'receive-buffer drops={client.receiveBufferDrops}' ;;
    clientPeak) echo 'client peak held (worst device)={buffers.clientPeakEvents} events, {buffers.clientPeakBytes/1000:.1f} KB' ;;
    serverPeak) echo 'server queue peak (worst device)={buffers.serverQueuePeakEvents} events, {buffers.serverQueuePeakBytes/1000:.1f} KB' ;;
    eventLatency) echo 'event latency p50 / p95={latencyMs.p50/1000:.1f} / {latencyMs.p95/1000:.1f} s' ;;
    *) echo "no table column '$1'" >&2; exit 1 ;;
    esac
}

# report_table DIR COLUMNS ROW...: a Markdown table, a row per transport of each ROW
# ("LABEL=RUN": the run's bench-*.json is in DIR/RUN/). COLUMNS is a comma-separated list of
# names of `column` above.
report_table() {
    local dir=$1 names args=() name row
    IFS=, read -ra names <<<"$2"
    shift 2
    for name in "${names[@]}"; do args+=(--column "$(column "$name")"); done
    for row in "$@"; do args+=("${row%%=*}=$(echo "$dir/${row#*=}"/bench-*.json)"); done
    "$NETSIM" report table "${args[@]}"
}
