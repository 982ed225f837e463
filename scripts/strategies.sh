#!/usr/bin/env bash
# Regenerates docs/strategies.md: each client strategy of issue 12 played against its
# alternative on the built-in profiles, with the live bench, and the measured table of each.
#
# One function per strategy (strategy_*), each running its benches and printing its own
# section of the document; the list at the bottom says which run and in what order. To add a
# strategy, add its function and its line there.
#
# Usage: scripts/strategies.sh [section ...]   (default: every section; e.g. `reconnection`)
# Environment: NETSIM (default .build/debug/netsim, built if missing), DEVICES (5), DURATION
# (80s), SEED (1), OUT (docs/strategies.md). The runs of one section play at once (they are
# mostly waiting on the emulated network), so the whole script takes about eight minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

NETSIM=${NETSIM:-.build/debug/netsim}
DEVICES=${DEVICES:-5}
DURATION=${DURATION:-80s}
SEED=${SEED:-1}
OUT=${OUT:-docs/strategies.md}
WORKLOAD=workloads/feed.yaml
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ ! -x "$NETSIM" ]; then swift build --product netsim; fi

# bench RUN PROFILE CLIENT [TRANSPORTS]: one live bench into $WORK/RUN/ (JSON only), in the
# background; wait_all collects it. CLIENT "-" is the built-in (resilient) client.
pids=()
bench() {
    run_bench "$@" &
    pids+=($!)
}

# wait_all: waits for every bench started, failing if one did.
wait_all() {
    local pid
    for pid in "${pids[@]}"; do wait "$pid"; done
    pids=()
}

run_bench() {
    local run=$1 profile=$2 client=$3 transports=${4:-rest,ws,grpc}
    local args=(bench --profile "$profile" --devices "$DEVICES" --duration "$DURATION" --seed "$SEED"
        --workload "$WORKLOAD" --transports "$transports" --format json --out "$WORK/$run" --quiet)
    [ "$client" = "-" ] || args+=(--client "$client")
    # A bench lasts its duration plus a drain of at most a minute here; five minutes is a hang.
    timeout 300 "$NETSIM" "${args[@]}" >"$WORK/$run.log" 2>&1 || {
        echo "bench $run failed:" >&2
        cat "$WORK/$run.log" >&2
        exit 1
    }
}

# command_line PROFILE CLIENT [TRANSPORTS]: the command line a reader can paste, for the document.
command_line() {
    local client=""
    [ "$2" = "-" ] || client=" --client $2"
    echo "netsim bench --profile $1 --devices $DEVICES --duration $DURATION --seed $SEED --workload $WORKLOAD" \
        "--transports ${3:-rest,ws,grpc}$client"
}

# table COLUMNS ROW...: a Markdown table from the runs' JSON reports. Each ROW is
# "LABEL=RUN" (the run's directory under $WORK); COLUMNS names the figures (see figure() below).
table() {
    python3 - "$WORK" "$@" <<'PY'
import glob, json, sys
work, columns, rows = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
def figure(name, t):
    r = t.get("resilience") or {}
    attempts = r.get("connectionAttempts") or {}
    zombie = r.get("zombieSeconds") or {}
    ev = t["events"]
    e = t["perDevice"]["energyJoules"]
    return {
        "delivered": f'{ev["delivered"]}/{ev["sent"]}',
        "skipped": str(r.get("eventsLostBySkipping", 0)),
        "lost": str(ev["lost"]),
        "inflight": str(ev["inFlight"]),
        "peak": f'{attempts.get("peakPerSecond", 0)}/s at {attempts.get("peakSecond", 0):.0f} s',
        "attempts": str(attempts.get("total", 0)),
        "failed": str(t["client"]["failedAttempts"]),
        "energy": f'{e["mean"]:.1f} ± {e["standardDeviation"]:.1f}',
        "power": f'{t["radioFleetTotal"]["meanPowerMilliwatts"]:.0f}',
        "wake": f'{t["perDevice"]["wakeSeconds"]["mean"]:.1f}',
        "zombie": "no deaths" if not zombie.get("deaths") else f'{zombie["mean"]:.1f} / {zombie["max"]:.1f} ({zombie["deaths"]})',
        "p95": f'{t["latencyMs"]["p95"] / 1000:.1f} s' if t["latencyMs"]["count"] else "none",
        "recovery": f'{t["recoverySeconds"]["mean"]:.1f} s' if t["recoverySeconds"]["count"] else "none",
    }[name]
titles = {"delivered": "events delivered", "skipped": "lost by skipping", "lost": "lost (all causes)",
          "inflight": "in flight at the end", "peak": "attempts, fleet peak", "attempts": "attempts, total",
          "failed": "failed attempts", "energy": "energy per device, J", "power": "mean power, mW", "wake": "radio awake per device, s",
          "zombie": "zombie s: mean / max (deaths)", "p95": "event latency p95",
          "recovery": "recovery after a gap, mean"}
print("| profile | client | transport | " + " | ".join(titles[c] for c in columns) + " |")
print("|---|---|---|" + "---:|" * len(columns))
for row in rows:
    label, run = row.split("=", 1)
    profile, client = label.split("/", 1)
    report = json.load(open(glob.glob(f"{work}/{run}/*.json")[0]))
    for transport in ("rest", "ws", "grpc"):
        if transport in report["transports"]:
            cells = [figure(c, report["transports"][transport]) for c in columns]
            print(f"| {profile} | {client} | {transport} | " + " | ".join(cells) + " |")
PY
}

# Strategy 1: reconnection, naive (at once, in a loop, from now) against resilient.
strategy_reconnection() {
    local profiles=(lte-tunnel subway lte-handover) rows=()
    for profile in "${profiles[@]}"; do
        bench "reconnect-$profile-resilient" "$profile" -
        bench "reconnect-$profile-naive" "$profile" clients/naive.yaml
        rows+=("$profile/resilient=reconnect-$profile-resilient" "$profile/naive=reconnect-$profile-naive")
    done
    wait_all
    cat <<EOF
## 1. Reconnection: naive against resilient

\`clients/naive.yaml\` (\`reconnect: naive\`) against the built-in client, on each profile:

    $(command_line "<profile>" clients/naive.yaml)
    $(command_line "<profile>" -)

EOF
    table delivered,skipped,lost,inflight,peak,attempts,failed,energy,power "${rows[@]}"
    cat <<'EOF'

What it shows:

- **Loss.** The resilient client delivers every event on every profile; the naive one loses
  the events produced while it was away, and every one is counted as lost by skipping (lost
  by skipping = lost: nothing else lost anything). On lte-tunnel and subway the 30 s outage
  stalls rather than kills, but each transport's connection ends during or just after it
  (REST's 10 s request timeout, the WebSocket's pong missing by the next ping, the gRPC call
  ending: the resilient client reconnects as often, it just resumes), and the naive client
  comes back subscribing from now. A 30 s outage holds about 80 of the run's 215 events; the
  naive client loses about that many, or more where its new subscription reaches the server
  late (only when TCP's backed-off retransmission after the outage gets through). On lte-handover (2 s and 1 s gaps that reset connections) it
  loses the few events of the gaps; its REST poller loses none, because a kept-alive
  connection reset between polls is replaced by the HTTP client without a failure, so the
  poller never starts over.
- **The herd.** Both fleets' busiest second has about every device in it (5 devices): when the
  network returns, the resilient clients also try at once (gRPC on its reachability callback,
  REST and WebSocket when their waiting connect completes). Backoff spreads the retries of
  failures; in this emulator a connect made while the phone is offline does not fail, it waits
  for the network (the SYN is retransmitted), so neither fleet spins during the outage, and
  the naive loop only shows where a timeout fires (REST on lte-tunnel: 20 attempts against
  15). The tests construct the storm (a blackhole with 0.3 s request timeouts: the naive
  REST fleet's peak is higher). A network stack that fails a connect at once when there is no
  signal would make the naive loop spin.
- **Energy.** Energy per device covers each device's whole run, drain included (the drain
  does not wait for events a naive client skipped: they will never come), and mean power
  compares per second of radio time. Here the naive client spends about what the resilient
  one does (within 4%): without a storm there is nothing to pay for, and the radio's tails,
  not the few bytes it skipped, set the energy. Its cost on these profiles is the lost events.
EOF
    echo
}

# Strategy 4: deadlines against none, across a blackhole outage: zombie seconds.
strategy_deadlines() {
    # lte-tunnel's outage as a blackhole: the open connections die silently.
    sed -e 's/^name: lte-tunnel$/name: lte-tunnel-blackhole/' -e 's/mode: stall/mode: blackhole/' \
        profiles/lte-tunnel.yaml >"$WORK/lte-tunnel-blackhole.yaml"
    local rows=()
    for profile in lte-tunnel-blackhole lte-handover; do
        local path=$profile
        if [ "$profile" = lte-tunnel-blackhole ]; then path="$WORK/lte-tunnel-blackhole.yaml"; fi
        bench "deadline-$profile-default" "$path" -
        bench "deadline-$profile-none" "$path" clients/no-deadlines.yaml
        rows+=("$profile/deadlines=deadline-$profile-default" "$profile/none=deadline-$profile-none")
    done
    wait_all
    cat <<EOF
## 4. Deadlines against none: zombie seconds

The built-in client's deadlines (REST requests time out after 10 s, WebSocket pings every 30 s,
gRPC keepalive 60 s / 10 s) against \`clients/no-deadlines.yaml\` (no request timeout, no
pings, gRPC keepalive 2 h and no call deadline). \`lte-tunnel-blackhole\` is lte-tunnel with its
30 s outage in \`blackhole\` mode (the script writes it with \`sed\` from profiles/lte-tunnel.yaml):
the open connections never deliver another byte and nobody is told. Zombie seconds: per
connection death, the time until the app noticed (or the run's end, if it never did).

    $(command_line "<profile>" clients/no-deadlines.yaml)
    $(command_line "<profile>" -)

EOF
    table zombie,delivered,lost,inflight,failed,energy,power "${rows[@]}"
    cat <<'EOF'

What it shows:

- **Blackhole.** With deadlines each transport learns its connection is dead within its
  deadline: REST at its 10 s request timeout, gRPC at keepalive (a ping unanswered for 10 s;
  25 s after the death here, where the pings' phase fell), the WebSocket at its ping (a pong
  missing by the next ping: between 30 s and 60 s). Then they reconnect when the network
  returns and deliver everything. Without deadlines nobody ever learns: the zombie time is the
  rest of the run, and the events after the outage are never delivered (counted in flight,
  since a reconnect would still resume them). The deadline clients spend more energy per
  second of radio time because they receive those events; the others' radios idle on a dead
  connection (and their runs last longer: the drain waits for the events in flight to its
  limit).
- **Reset.** A reset tells both sides at once: WebSocket and gRPC notice in no time with or
  without deadlines. REST's figure is the time to its next answered poll (its HTTP client
  replaces the reset connection without a failure; the bench notes the first answer of each
  second, so the figure is within a second). Deadlines only matter where the network fails
  silently.
EOF
    echo
}

# Strategy 6: REST and WebSocket clients that watch the network against ones that do not.
strategy_network_watch() {
    local rows=()
    for profile in lte-tunnel subway lte-handover; do
        bench "watch-$profile-blind" "$profile" - rest,ws
        bench "watch-$profile-watching" "$profile" clients/watch-network.yaml rest,ws
        rows+=("$profile/not watching=watch-$profile-blind" "$profile/watchNetwork=watch-$profile-watching")
    done
    wait_all
    cat <<EOF
## 6. REST and WebSocket clients that watch the network

\`clients/watch-network.yaml\` (\`watchNetwork: true\`: no request or connection attempt while
the phone is offline, one at once when it is back, as the gRPC client does) against the
built-in REST and WebSocket clients, which do not watch:

    $(command_line "<profile>" clients/watch-network.yaml rest,ws)
    $(command_line "<profile>" - rest,ws)

EOF
    table failed,attempts,delivered,recovery,p95,wake,energy,power "${rows[@]}"
    cat <<'EOF'

What it shows:

- **REST.** Watching the network removes (almost) all the failed requests of the outages
  (0 to 2 over the fleet instead of three or four per device) and brings the poller back as
  the network returns: the recovery after the outage (from the network's return to the last
  held event's delivery) drops from 12 s to 5 s on lte-tunnel and from 19 s to under 1 s on
  subway, and the event latency's p95 with it. The blind poller sent a request into the
  outage, waited out its 10 s timeout, and then a backoff. The price is radio time: back
  sooner, the watching poller polls every second for those extra seconds of the run, so its
  radio is awake 6 s (subway) to 16 s (lte-tunnel) longer per device and spends more energy.
  Same events delivered, sooner, for more energy within a run of fixed length.
- **WebSocket.** No change on these profiles: its connection survives the stalls until its
  ping notices, and a connect made while offline waits for the network rather than failing,
  so there is no failed attempt for watching to save; on lte-handover it reconnects after the
  gap either way. Watching matters where a client would fail and back off while offline.
- **lte-handover.** Gaps of 2 s and 1 s: too short for watching to change anything.
EOF
    echo
}

sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(reconnection deadlines network_watch)
{
    cat <<EOF
# Client strategies, measured

<!-- Generated by scripts/strategies.sh from live benches; edit the script, not this file. -->

Patterns mobile guides recommend, each a switch in the client file (docs/bench.md), played
against its alternative on netsim's built-in profiles. Every run: the live bench, $DEVICES devices
per transport, $DURATION, seed $SEED, the \`$WORKLOAD\` workload (an event every 2 s on
average per device, a message every 10 s). Figures are fleet totals except energy and wake time
(per device, mean ± standard deviation). The runs of a section play at the same time on one
machine, so latencies carry some noise; counts and energies do not depend on it.

EOF
    for section in "${sections[@]}"; do "strategy_$section"; done
} >"$WORK/strategies.md"
mv "$WORK/strategies.md" "$OUT"
echo "wrote $OUT" >&2
