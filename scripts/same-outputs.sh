#!/usr/bin/env bash
# Shows that two netsim binaries write the same reports, byte for byte, for the same seeds: the
# model engine's benches (every transport over TCP and QUIC, stalls, blackholes, resets,
# handovers, a NAT that forgets connections, the client strategies the model plays), the
# keepalive tuner (QUIC included) and the capture analyzer. A change that should not move a
# number (a refactor, a speed-up) is checked by building the binary before it and after it:
#
#   scripts/same-outputs.sh /path/to/netsim-before .build/release/netsim
#
# Prints each output that differs, and exits 1 if any does (a command that fails counts its
# message as its output: failing with one binary and not the other, or with another message,
# is a difference). The profiles are written here, in the keys every release
# since the model engine reads, so that an older binary plays the same ones.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: $0 BEFORE_NETSIM AFTER_NETSIM (two netsim binaries)" >&2
    exit 64
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/nat.yaml" <<'EOF'
name: nat
description: lte-good behind a carrier NAT that forgets a TCP connection after 30 s idle, silently.
networks:
  lte:
    radio: lte
    link: {delay: 25ms, jitter: 5ms, down: {rate: 12mbps}, up: {rate: 5mbps}}
nat: {idleTimeout: 30s, mode: silent}
EOF
cat > "$work/blackholes.yaml" <<'EOF'
name: blackholes
description: LTE with a blackholing outage, a blackholing handover to WiFi and a resetting one back, every 10 minutes.
networks:
  lte:
    radio: lte
    link: {delay: 25ms, jitter: 5ms, down: {rate: 12mbps}, up: {rate: 5mbps}}
  wifi:
    radio: wifi
    link: {delay: 10ms, down: {rate: 30mbps}, up: {rate: 10mbps}}
timeline:
  repeat: 10m
  events:
    - {at: 1m, outage: {duration: 20s, mode: blackhole}}
    - {at: 4m, handover: {to: wifi, mode: blackhole}}
    - {at: 7m, handover: {to: lte, mode: reset}}
EOF
cat > "$work/keepalive.yaml" <<'EOF'
grpc:
  keepalive: {time: 20s, timeout: 5s, permitWithoutCalls: true}
websocket:
  pingInterval: 20s
rest:
  pollInterval: 5s
EOF

# One command per line: NAME ARGUMENTS... (OUT is replaced by the output path). The benches say
# --devices, the spelling of --phones that older binaries know too.
# The tuner's runs sweep keepalives up to 10 minutes: a horizon must hold three periods of the
# longest one swept.
commands=(
    "tunnel bench --engine model --profile lte-tunnel --duration 2h --devices 20 --seed 7 --out OUT --quiet --format md,json,html"
    "handover bench --engine model --profile lte-handover --duration 30m --devices 10 --seed 3 --out OUT --quiet --format md,json,html"
    "subway bench --engine model --profile subway --duration 1h --devices 10 --seed 3 --client clients/no-deadlines.yaml --out OUT --quiet --format md,json,html"
    "vbn bench --engine model --profile very-bad-network --duration 1h --devices 5 --seed 4 --out OUT --quiet --format md,json"
    "nat bench --engine model --profile $work/nat.yaml --duration 2h --devices 10 --seed 5 --client clients/no-deadlines.yaml --out OUT --quiet --format md,json"
    "nat-keepalive bench --engine model --profile $work/nat.yaml --duration 2h --devices 10 --seed 5 --client $work/keepalive.yaml --out OUT --quiet --format md,json"
    "blackholes bench --engine model --profile $work/blackholes.yaml --duration 2h --devices 10 --seed 5 --client clients/no-deadlines.yaml --out OUT --quiet --format md,json"
    "blackholes-keepalive bench --engine model --profile $work/blackholes.yaml --duration 2h --devices 10 --seed 6 --client $work/keepalive.yaml --out OUT --quiet --format json"
    "tune-grpc tune keepalive --seeds 1 --horizon 30m --keepalive-times 10s,20s,60s,270s,5m,10m --out OUT --quiet --format md,json"
    "tune-paths tune keepalive --transport ws --seeds 1 --horizon 30m --keepalive-times 10s,20s,60s,270s,5m,10m --profile $work/nat.yaml --profile $work/blackholes.yaml --out OUT --quiet --format json"
    "tune-heartbeat tune keepalive --transport heartbeat --seeds 1 --horizon 30m --keepalive-times 10s,20s,60s,270s,5m,10m --profile $work/nat.yaml --out OUT --quiet --format json"
    "quic bench --engine model --transports rest,quic --profile lte-handover --duration 30m --devices 5 --seed 8 --out OUT --quiet --format md,json"
    "tune-quic tune keepalive --transport quic --seeds 1 --horizon 30m --keepalive-times 10s,20s,60s,270s,5m,10m --profile lte-good --profile $work/blackholes.yaml --out OUT --quiet --format md,json"
)
for seed in scripts/fuzz/seeds/*.seed; do
    name=$(basename "$seed" .seed)
    commands+=("analyze-$name analyze $seed --radio umts --format json --out OUT/report.json")
done

status=0
for line in "${commands[@]}"; do
    read -r name rest <<< "$line"
    for side in before after; do
        binary=$1
        [ "$side" = after ] && binary=$2
        out="$work/$side/$name"
        mkdir -p "$out"
        # A failure is an output too: its message (the fuzz seeds include files that are not
        # captures), compared like the reports.
        # shellcheck disable=SC2086 # the arguments are split on purpose
        "$binary" ${rest//OUT/$out} > "$work/$side/$name.log" 2>&1 || tail -n 1 "$work/$side/$name.log" > "$out/FAILED"
    done
    if ! diff -rq "$work/before/$name" "$work/after/$name" > "$work/diff.txt"; then
        status=1
        echo "$name: differs"
        sed 's/^/  /' "$work/diff.txt"
    fi
done
files=$(find "$work/after" -type f | wc -l)
if [ $status -eq 0 ]; then echo "same: ${#commands[@]} commands, $files files, byte for byte"; fi
exit $status
