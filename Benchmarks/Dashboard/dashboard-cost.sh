#!/usr/bin/env bash
# What the live dashboard costs: its weight (the page, its script and style sheet, one /status),
# and the CPU `netsim run` spends over 60 s on lte-good while a client makes two requests a
# second (about 9 events a second on the stream), with no page open and with the page open in
# headless Chromium (Selenium), alternately, ROUNDS times (default 2). Linux (/proc). NETSIM=PATH
# picks the binary; the default is the debug build the quick start makes.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Benchmarks/Dashboard
scripts/install-deps.sh >/dev/null
netsim=${NETSIM:-.build/debug/netsim}
[ -x "$netsim" ] || swift build --product netsim >/dev/null
rounds=${ROUNDS:-2}
upstream_port=18190 listen_port=18191 admin_port=18192
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

echo hello > "$work/index.html"
python3 -m http.server $upstream_port --bind 127.0.0.1 --directory "$work" >/dev/null 2>&1 & pids+=($!)

# One run of 75 s: prints the proxy's CPU seconds over its middle 60 s, and the events streamed.
measure() {
    local page=$1
    "$netsim" run --profile lte-good --forward 127.0.0.1:$listen_port=127.0.0.1:$upstream_port --admin :$admin_port \
        --duration 80s >/dev/null 2>&1 &
    local proxy=$!
    sleep 1
    timeout 75 curl -sN "http://127.0.0.1:$admin_port/events" > "$work/events" &
    local stream=$!
    python3 $here/dashboard_load.py requests $listen_port 72 &
    local load=$!
    local browser=
    if [ "$page" = open ]; then
        python3 $here/dashboard_load.py page "http://127.0.0.1:$admin_port/" 72 & browser=$!
    fi
    sleep 8
    local before after
    before=$(awk '{print $14 + $15}' /proc/$proxy/stat)
    sleep 60
    after=$(awk '{print $14 + $15}' /proc/$proxy/stat)
    local rss
    rss=$(awk '/VmRSS/ {print $2}' /proc/$proxy/status)
    wait $load $stream ${browser:+$browser} 2>/dev/null || true
    kill $proxy 2>/dev/null || true
    wait $proxy 2>/dev/null || true
    awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v rss="$rss" -v page="$page" \
        -v events="$(grep -c '^event:' "$work/events")" \
        'BEGIN { printf "page %-6s  CPU %.2f s in 60 s (%.2f%% of a core)  RSS %.0f MB  %.1f events/s\n",
                 page, ticks / hz, ticks / hz / 60 * 100, rss / 1024, events / 75 }'
}

"$netsim" run --profile lte-good --forward 127.0.0.1:$listen_port=127.0.0.1:$upstream_port --admin :$admin_port \
    --duration 3s >/dev/null 2>&1 &
proxy=$!
sleep 1
for path in / /dashboard.js /dashboard.css /status; do
    curl -s -o "$work/body" "http://127.0.0.1:$admin_port$path"
    printf '%-15s %6d B (%5d B gzipped)\n' "$path" "$(wc -c < "$work/body")" "$(gzip -9c "$work/body" | wc -c)"
done
wait $proxy

for _ in $(seq "$rounds"); do
    measure closed
    measure open
done
