#!/usr/bin/env bash
# Fuzzes `netsim analyze`'s input path with libFuzzer and AddressSanitizer: libpcap file
# reading, the hand-written link/IP/TCP/UDP decoder and checksums, TLS/HTTP/HTTP2 name sniffing
# and its reassembly, the analyzer (flows, radio model, periodic transfers) and its reports.
#
#   scripts/fuzz-capture-reader.sh [SECONDS]     default 60; Linux, swiftc, libpcap-dev
#
# It compiles the sources with swiftc into .build/fuzz (not through `swift build`, whose build
# directory is shared): NetsimPcap's Reader, Analysis and Report folders, and the NetsimCore
# folders the radio model needs (not Profile, which needs Yams). Seeds: scripts/fuzz/seeds and
# the regression fixtures; the corpus grows in .build/fuzz/corpus. A crash leaves
# .build/fuzz/crash-<sha1>: copy it to Tests/NetsimPcapTests/Fixtures/ (FuzzRegressionTests
# analyzes every file there), fix the bug, run `swift test --filter FuzzRegressionTests`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
out=.build/fuzz
mkdir -p "$out/corpus" "$out/modules"
flags=(-sanitize=fuzzer,address -parse-as-library -package-name netsim -O -g)

# All of NetsimCore (it needs no package but the standard library and Foundation) and of
# NetsimPcap (the analyzer reads the writer's run-boundary records).
mapfile -t core < <(find Sources/NetsimCore -name '*.swift' | sort)
mapfile -t pcap < <(find Sources/NetsimPcap -name '*.swift' | sort)
pcap+=(scripts/fuzz/CaptureReaderFuzzer.swift)
echo "building the fuzzer (${#core[@]} NetsimCore files, ${#pcap[@]} NetsimPcap and harness files)..."
swiftc "${flags[@]}" -module-name NetsimCore -emit-library -static -o "$out/libNetsimCore.a" \
    -emit-module -emit-module-path "$out/modules/NetsimCore.swiftmodule" "${core[@]}"
swiftc "${flags[@]}" -use-ld=lld -module-name CaptureReaderFuzz -I "$out/modules" -I Sources/CPcap \
    -L "$out" -lNetsimCore -lpcap "${pcap[@]}" -o "$out/capture-reader-fuzzer"

echo "fuzzing for ${seconds}s..."
cd "$out"
./capture-reader-fuzzer -max_total_time="$seconds" -max_len=8192 -timeout=5 -rss_limit_mb=2048 \
    -print_final_stats=1 corpus ../../scripts/fuzz/seeds ../../Tests/NetsimPcapTests/Fixtures
