#!/usr/bin/env bash
# Analysis throughput: `netsim analyze` (release build) side by side with
# `tcpdump -r FILE -w /dev/null` on the same generated capture, in packets per second.
#
#   scripts/bench-analyze.sh [PACKETS]     default 4,000,000 (about 450 MB in .build/bench)
#
# The capture comes from scripts/make-bench-capture.py (a phone's interleaved HTTP downloads,
# snapshot length 128). hyperfine times each command (mean of 5 runs after a warm-up run, so all
# read the file from the page cache). tcpdump and hyperfine are installed if missing (apt-get or
# Homebrew).
set -euo pipefail
cd "$(dirname "$0")/.."
packets="${1:-4000000}"
out=.build/bench
mkdir -p "$out"
capture="$out/analyze-$packets.pcap"

missing=()
for tool in tcpdump hyperfine; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}..."
    if command -v apt-get >/dev/null; then
        sudo_cmd=()
        [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v brew >/dev/null; then
        brew install "${missing[@]}"
    else
        echo "bench-analyze: install ${missing[*]} first" >&2
        exit 1
    fi
fi
tcpdump="$(command -v tcpdump)"

echo "building netsim (release)..."
scripts/release-build.sh --product netsim >/dev/null
netsim="$(scripts/release-build.sh --show-bin-path)/netsim"

if [ ! -f "$capture" ]; then
    echo "generating $packets packets..."
    python3 scripts/make-bench-capture.py "$packets" "$capture"
fi
echo "capture: $capture ($(du -h "$capture" | cut -f1))"

# The text report (the default) prints summaries; JSON also encodes every flow and every
# state change, which Foundation's JSONEncoder takes a while over on millions of packets.
commands=("netsim analyze" "$netsim analyze $capture --out /dev/null"
    "netsim analyze --format json" "$netsim analyze $capture --format json --out /dev/null"
    "tcpdump -r FILE -w /dev/null" "$tcpdump -r $capture -w /dev/null")
names=()
arguments=()
for ((i = 0; i < ${#commands[@]}; i += 2)); do
    names+=("${commands[i]}")
    arguments+=(--command-name "${commands[i]}" "${commands[i + 1]}")
done
hyperfine --warmup 1 --runs 5 --export-json "$out/analyze-hyperfine.json" "${arguments[@]}" >&2
seconds=$(python3 -c 'import json,sys; print(" ".join(str(r["mean"]) for r in json.load(open(sys.argv[1]))["results"]))' \
    "$out/analyze-hyperfine.json")
python3 - "$packets" "$seconds" "${names[@]}" <<'PY'
import sys
packets, seconds, names = int(sys.argv[1]), [float(s) for s in sys.argv[2].split()], sys.argv[3:]
print(f"{'':32}{'seconds':>10}{'packets/s':>16}")
for name, time in zip(names, seconds):
    print(f"{name:32}{time:10.3f}{packets / time:16,.0f}")
PY
