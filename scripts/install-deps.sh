#!/usr/bin/env bash
# Installs the system packages netsim needs, only those that are missing.
#   Debian/Ubuntu: libpcap-dev (capture and analyze), tcpdump and tshark (pcap tests and
#   benchmarks), socat (the relay the proxy benchmark compares with), curl and openssl (the
#   proxy front ends' end-to-end tests: a real client, a self-signed certificate), iperf3 (a
#   real bulk transfer through a trace-driven link), chromium and chromium-driver (the live
#   dashboard's test in a real browser), nodejs (the dashboard's JavaScript: scripts/js-test.sh).
#   macOS: libpcap ships with the SDK; the rest comes from Homebrew if present.
#   Python (both): grpcio, websockets and python-socks, the real clients and servers of the
#   proxy front ends' end-to-end tests (Tests/NetsimProxyTests/Peers), and selenium, which
#   drives Chromium for the dashboard's, if python3 is there.
set -euo pipefail

debian_packages=(libpcap-dev tcpdump tshark socat curl openssl iperf3 python3 python3-pip chromium chromium-driver nodejs)

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
        for package in socat wireshark iperf3 node; do
            brew list "$package" >/dev/null 2>&1 || brew install "$package"
        done
    fi
else
    echo "install-deps: no apt-get or Homebrew; install libpcap, tcpdump, tshark and socat yourself" >&2
fi

python_modules=(grpc:grpcio websockets:websockets python_socks:python-socks junitparser:junitparser selenium:selenium aioquic:aioquic)
if command -v python3 >/dev/null 2>&1; then
    missing=()
    for entry in "${python_modules[@]}"; do
        python3 -c "import ${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing python packages: ${missing[*]}"
        python3 -m pip install --quiet --user "${missing[@]}" 2>/dev/null \
            || python3 -m pip install --quiet "${missing[@]}" 2>/dev/null \
            || python3 -m pip install --quiet --break-system-packages "${missing[@]}" \
            || echo "install-deps: could not install ${missing[*]}; the tests that need them are skipped" >&2
    fi
fi

command -v swift >/dev/null 2>&1 || {
    echo "install-deps: Swift 6.1 or later is needed (https://www.swift.org/install)" >&2
    exit 1
}
