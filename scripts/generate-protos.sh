#!/usr/bin/env bash
# Regenerates Modules/Transport/Generated/ (and the tests' Tests/CastTransportTests/Generated/)
# from Protos/*.proto.
#
# Needs protoc (Debian: protobuf-compiler) and protoc-gen-swift built from the
# swift-protobuf version Package.swift names, e.g.
#   git clone -b 1.39.0 https://github.com/apple/swift-protobuf /tmp/swift-protobuf
#   (cd /tmp/swift-protobuf && swift build --product protoc-gen-swift)
#   PROTOC_GEN_SWIFT=/tmp/swift-protobuf/.build/debug/protoc-gen-swift scripts/generate-protos.sh
# The generated code is committed, so a normal build never runs this.
set -euo pipefail
cd "$(dirname "$0")/.."

plugin="${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}"
[ -x "$plugin" ] || { echo "generate-protos: set PROTOC_GEN_SWIFT to a protoc-gen-swift binary" >&2; exit 1; }
command -v protoc >/dev/null || { echo "generate-protos: protoc is missing (apt-get install protobuf-compiler)" >&2; exit 1; }

# generate OUTPUT_FOLDER PROTO…
generate() {
    local output="$1"
    shift
    mkdir -p "$output"
    protoc \
        --plugin=protoc-gen-swift="$plugin" \
        --swift_opt=Visibility=Package \
        --swift_opt=UseAccessLevelOnImports=true \
        --swift_opt=FileNaming=DropPath \
        --swift_out="$output" \
        --proto_path=Protos \
        "$@"
}

generate Modules/Transport/Generated Protos/cast_channel.proto Protos/cast_revocation.proto
# Open Screen's certificate test vectors: only the tests read them.
generate Tests/CastTransportTests/Generated Protos/cast_certificate_test_suite.proto
