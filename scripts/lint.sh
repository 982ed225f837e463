#!/usr/bin/env bash
# Checks that the Swift sources are formatted as .swift-format says (swift-format, part of the
# Swift toolchain: `swift format`). `scripts/lint.sh --fix` formats them in place. Generated
# files (gRPC and protobuf code, the embedded built-in profiles) are left as their generators
# write them.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(
    { find Sources Tests Benchmarks -name '*.swift'; echo Package.swift; } |
        grep -v -e '/GRPC/Generated/' -e '\.generated\.swift$' | sort
)
if [ "${1:-}" = "--fix" ]; then
    swift format format --in-place --parallel "${files[@]}"
else
    swift format lint --strict --parallel "${files[@]}"
fi
