#!/usr/bin/env bash
# Analysis throughput: `netsim analyze` (release build) side by side with
# `tcpdump -r FILE -w /dev/null` on the same generated capture, in packets per second.
#
#   scripts/bench-analyze.sh [PACKETS]     default 4,000,000 (about 470 MB in .build/bench)
#
# The capture comes from scripts/make-bench-capture.py (a phone's interleaved HTTP downloads,
# snapshot length 128). Timing uses hyperfine when installed (mean of 5 runs after a warm-up
# run, so both read from the page cache), else the best of 3 runs by `date`.
set -euo pipefail
cd "$(dirname "$0")/.."
packets="${1:-4000000}"
out=.build/bench
mkdir -p "$out"
capture="$out/analyze-$packets.pcap"

if ! command -v tcpdump >/dev/null; then
    echo "installing tcpdump..."
    if [ "$(id -u)" = 0 ]; then apt-get install -y tcpdump >/dev/null; else sudo apt-get install -y tcpdump >/dev/null; fi
fi
tcpdump="$(command -v tcpdump)"

echo "building netsim (release)..."
swift build -c release --product netsim >/dev/null
netsim="$(swift build -c release --show-bin-path)/netsim"

if [ ! -f "$capture" ]; then
    echo "generating $packets packets..."
    python3 scripts/make-bench-capture.py "$packets" "$capture"
fi
echo "capture: $capture ($(du -h "$capture" | cut -f1))"

analyze="$netsim analyze $capture --format json --out /dev/null"
dump="$tcpdump -r $capture -w /dev/null"
if command -v hyperfine >/dev/null; then
    hyperfine --warmup 1 --runs 5 --export-json "$out/analyze-hyperfine.json" \
        --command-name "netsim analyze" "$analyze" --command-name "tcpdump -r -w /dev/null" "$dump" >&2
    seconds=$(python3 -c 'import json,sys; print(" ".join(str(r["mean"]) for r in json.load(open(sys.argv[1]))["results"]))' \
        "$out/analyze-hyperfine.json")
else
    best() {
        local best=""
        for _ in 1 2 3; do
            local start end
            start=$(date +%s.%N)
            "$@" 2>/dev/null
            end=$(date +%s.%N)
            best=$(python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(t if not b else min(t, float(b)))" "$start" "$end" "$best")
        done
        echo "$best"
    }
    # shellcheck disable=SC2086
    seconds="$(best $analyze) $(best $dump)"
fi
read -r analyze_seconds dump_seconds <<<"$seconds"
python3 - "$packets" "$analyze_seconds" "$dump_seconds" <<'PY'
import sys
packets, analyze, dump = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"{'':28}{'seconds':>10}{'packets/s':>16}")
print(f"{'netsim analyze':28}{analyze:10.3f}{packets / analyze:16,.0f}")
print(f"{'tcpdump -r FILE -w /dev/null':28}{dump:10.3f}{packets / dump:16,.0f}")
PY
