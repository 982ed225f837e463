#!/usr/bin/env bash
# The proxy's own cost, side by side with a direct connection and socat as a plain relay, in
# the same run on the same machine:
#   1. throughput on loopback (iperf3, 3 runs each, median),
#   2. the added latency of one small round trip (64-byte ping-pong, median and p99),
#   3. resident memory per connection with 10,000 concurrent idle connections (fewer if the
#      open-file limit cannot be raised: netsim holds two sockets per proxied connection).
# netsim runs the pass-through profile (no radio, no shaping). Release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Benchmarks/Proxy
scripts/install-deps.sh
command -v iperf3 >/dev/null || { export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq iperf3 >/dev/null; }
swift build -c release --product netsim >/dev/null
netsim=.build/release/netsim
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
idle_connections=$(( $(ulimit -n) / 2 - 500 ))
[ "$idle_connections" -gt 10000 ] && idle_connections=10000

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

iperf3 -s -p 15201 >/dev/null 2>&1 & pids+=($!)
python3 $here/loopback_peers.py echo 15202 & pids+=($!)
socat TCP-LISTEN:16201,fork,reuseaddr TCP:127.0.0.1:15201 & pids+=($!)
socat TCP-LISTEN:16202,fork,reuseaddr TCP:127.0.0.1:15202 & pids+=($!)
$netsim run --quiet --profile $here/pass-through.yaml --forward :17201=127.0.0.1:15201 --forward :17202=127.0.0.1:15202 \
    >/dev/null 2>&1 & netsim_pid=$!; pids+=($netsim_pid)
sleep 1

throughput() {  # port -> median Gbit/s of 3 runs of 5 s
    for _ in 1 2 3; do
        iperf3 -c 127.0.0.1 -p "$1" -t 5 -J | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)'
    done | sort -n | sed -n 2p
}

echo "| path | throughput (Gbit/s) | 64 B round trip median (us) | p99 (us) |"
echo "|---|---|---|---|"
for path in direct:15201:15202 socat:16201:16202 netsim:17201:17202; do
    IFS=: read -r name bulk echo <<<"$path"
    gbps=$(throughput "$bulk")
    read -r median p99 <<<"$(python3 $here/loopback_peers.py ping "$echo" 5000)"
    printf "| %s | %.2f | %s | %s |\n" "$name" "$gbps" "$median" "$p99"
done

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
before=$(rss $netsim_pid)
python3 $here/loopback_peers.py hold 17202 "$idle_connections" 5 & holder=$!; pids+=($holder)
for _ in $(seq 1 120); do
    sleep 1
    [ "$(ls /proc/$netsim_pid/fd | wc -l)" -ge $((idle_connections * 2)) ] && break
done
sleep 2
after=$(rss $netsim_pid)
wait $holder || true
echo
echo "$idle_connections idle connections: netsim RSS $((before / 1024)) MiB -> $((after / 1024)) MiB, $(( (after - before) * 1024 / idle_connections )) bytes per connection (both sockets and their state)"
