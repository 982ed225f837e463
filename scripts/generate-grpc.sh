#!/usr/bin/env bash
# Regenerates the bench's protobuf and gRPC Swift code from Protos/bench.proto.
#
# The generated files are committed: grpc-swift-protobuf's build-tool plugin would compile
# protoc from C++ source on every clean build (about 12 minutes). This uses Debian's protoc
# (apt-get install -y protobuf-compiler) and the two code generator plugins built from the
# package's own dependencies, so the output matches the runtime libraries' versions.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v protoc >/dev/null || { echo "protoc not found: apt-get install -y protobuf-compiler" >&2; exit 1; }
swift build --product protoc-gen-swift
swift build --product protoc-gen-grpc-swift-2
bin="$(swift build --show-bin-path)"
out=Sources/NetsimBench/GRPC/Generated
mkdir -p "$out"

protoc --proto_path=Protos \
  --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
  --swift_out="$out" --swift_opt=Visibility=Internal \
  --plugin=protoc-gen-grpc-swift-2="$bin/protoc-gen-grpc-swift-2" \
  --grpc-swift-2_out="$out" --grpc-swift-2_opt=Visibility=Internal \
  bench.proto
echo "generated: $(ls "$out")"
