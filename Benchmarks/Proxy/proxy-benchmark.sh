#!/usr/bin/env bash
# The proxy's own cost, side by side with a direct connection and socat as a plain relay, in
# the same run on the same machine:
#   1. throughput on loopback (iperf3, 3 runs each, median; and for every path including the
#      SOCKS5 front end, which iperf3 cannot speak, a python bulk sender into a discard
#      server: 3 runs of 5 s, median),
#   2. the added latency of one small round trip (64-byte ping-pong, median and p99),
#      through --listen and through the SOCKS5 front end (`netsim run --socks5`),
#   3. resident memory per connection with 10,000 concurrent idle connections (fewer if the
#      open-file limit cannot be raised: netsim holds two sockets per proxied connection),
#   4. UDP beside it: iperf3 -u at full speed (what arrives, and the share lost: UDP has no
#      backpressure, so a relay that cannot keep up drops), and a 64-byte datagram ping-pong,
#      through --udp-forward (netsim's datagram path) and socat's UDP relay.
# netsim runs the pass-through profile (no radio, no shaping). Release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Benchmarks/Proxy
scripts/install-deps.sh
command -v iperf3 >/dev/null || { export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq iperf3 >/dev/null; }
# NETSIM=PATH measures another netsim binary (one commit's build against another's, alternated
# in the same minutes); unset, this checkout's release build.
if [ -n "${NETSIM:-}" ]; then
    netsim=$NETSIM
else
    swift build -c release --product netsim >/dev/null
    netsim=.build/release/netsim
fi
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
idle_connections=$(( $(ulimit -n) / 2 - 500 ))
[ "$idle_connections" -gt 10000 ] && idle_connections=10000

pids=()
# socat's UDP relays fork a child per peer that outlives its parent: those go too.
cleanup() { for pid in "${pids[@]}"; do pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

iperf3 -s -p 15201 >/dev/null 2>&1 & pids+=($!)
python3 $here/loopback_peers.py echo 15202 & pids+=($!)
python3 $here/loopback_peers.py sink 15203 & pids+=($!)
socat TCP-LISTEN:16201,fork,reuseaddr TCP:127.0.0.1:15201 & pids+=($!)
socat TCP-LISTEN:16202,fork,reuseaddr TCP:127.0.0.1:15202 & pids+=($!)
socat TCP-LISTEN:16203,fork,reuseaddr TCP:127.0.0.1:15203 & pids+=($!)
python3 $here/loopback_peers.py udp-echo 15204 & pids+=($!)
socat UDP4-LISTEN:16204,fork,reuseaddr UDP4:127.0.0.1:15204 & pids+=($!)
# iperf3 -u: its control connection is TCP, its data UDP, on the same port.
socat UDP4-LISTEN:16201,fork,reuseaddr UDP4:127.0.0.1:15201 & pids+=($!)
$netsim run --quiet --profile $here/pass-through.yaml --forward :17201=127.0.0.1:15201 --forward :17202=127.0.0.1:15202 \
    --forward :17203=127.0.0.1:15203 --socks5 :17300 --udp-forward :17201=127.0.0.1:15201 \
    --udp-forward :17204=127.0.0.1:15204 >/dev/null 2>&1 & netsim_pid=$!; pids+=($netsim_pid)
sleep 1

throughput() {  # port -> median Gbit/s of 3 runs of 5 s
    for _ in 1 2 3; do
        iperf3 -c 127.0.0.1 -p "$1" -t 5 -J | python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)'
    done | sort -n | sed -n 2p
}

bulk_throughput() {  # port [socks5 target] -> median Gbit/s of 3 runs of 5 s
    for _ in 1 2 3; do python3 $here/loopback_peers.py bulk "$@"; done | sort -n | sed -n 2p
}

echo "| path | iperf3 throughput (Gbit/s) | bulk sender (Gbit/s) | 64 B round trip median (us) | p99 (us) |"
echo "|---|---|---|---|---|"
# name:iperf3 port:sink port:echo port[:SOCKS5 targets]
for path in direct:15201:15203:15202 socat:16201:16203:16202 netsim-listen:17201:17203:17202 netsim-socks5:-:17300:17300:15203:15202; do
    IFS=: read -r name iperf sink echo sink_target echo_target <<<"$path"
    if [ "$iperf" = - ]; then gbps=-; else gbps=$(printf "%.2f" "$(throughput "$iperf")"); fi
    bulk_gbps=$(bulk_throughput "$sink" 5 ${sink_target:+socks5 "$sink_target"})
    read -r median p99 <<<"$(python3 $here/loopback_peers.py ping "$echo" 5000 ${echo_target:+socks5 "$echo_target"})"
    printf "| %s | %s | %s | %s | %s |\n" "$name" "$gbps" "$bulk_gbps" "$median" "$p99"
done

udp_throughput() {  # port -> median of 3 runs of 5 s: "Gbit/s received, percent lost"
    for _ in 1 2 3; do
        iperf3 -c 127.0.0.1 -p "$1" -u -b 0 -l 1400 -t 5 -J | python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]["sum"]; print("%.2f %.1f" % (e["bits_per_second"]*(1-e["lost_percent"]/100)/1e9, e["lost_percent"]))'
    done | sort -n | sed -n 2p
}

echo
echo "| UDP path | iperf3 -u received (Gbit/s) | lost (%) | 64 B datagram round trip median (us) | p99 (us) |"
echo "|---|---|---|---|---|"
for path in direct:15201:15204 socat:16201:16204 netsim-udp-forward:17201:17204; do
    IFS=: read -r name iperf echo <<<"$path"
    read -r gbps lost <<<"$(udp_throughput "$iperf")"
    read -r median p99 <<<"$(python3 $here/loopback_peers.py udp-ping "$echo" 5000)"
    printf "| %s | %s | %s | %s | %s |\n" "$name" "$gbps" "$lost" "$median" "$p99"
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
