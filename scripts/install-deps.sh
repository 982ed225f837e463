#!/usr/bin/env bash
# Installs the system packages netsim needs, only those that are missing.
#   Debian/Ubuntu: libpcap-dev (capture and analyze), tcpdump and tshark (pcap tests and
#   benchmarks), socat (the relay the proxy benchmark compares with).
#   macOS: libpcap ships with the SDK; the rest comes from Homebrew if present.
set -euo pipefail

debian_packages=(libpcap-dev tcpdump tshark socat)

if command -v apt-get >/dev/null 2>&1; then
    missing=()
    for package in "${debian_packages[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing: ${missing[*]}"
        sudo_cmd=()
        [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
        export DEBIAN_FRONTEND=noninteractive
        "${sudo_cmd[@]}" apt-get update -qq
        "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
elif [ "$(uname)" = Darwin ]; then
    if command -v brew >/dev/null 2>&1; then
        for package in socat wireshark; do
            brew list "$package" >/dev/null 2>&1 || brew install "$package"
        done
    fi
else
    echo "install-deps: no apt-get or Homebrew; install libpcap, tcpdump, tshark and socat yourself" >&2
fi

command -v swift >/dev/null 2>&1 || {
    echo "install-deps: Swift 6.1 or later is needed (https://www.swift.org/install)" >&2
    exit 1
}
