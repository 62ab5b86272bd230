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
# The receiver side (the emulator) reads and writes these messages too; it may use no `package`
# declaration of another module (scripts/check-package-access.py), so the messages are offered to
# it as `@_spi(Receiver)` public API, as the rest of what a receiver needs of CastTransport is.
sed -i -E \
    -e 's/^package import /public import /' \
    -e 's/(^|[[:space:]])package ((static |mutating |final |nonisolated )*((struct|class|enum|func|var|let|typealias|case)[[:space:]]|init[(?]))/\1@_spi(Receiver) public \2/' \
    Modules/Transport/Generated/cast_channel.pb.swift Modules/Transport/Generated/cast_revocation.pb.swift
# Open Screen's certificate test vectors: only the tests read them.
generate Tests/CastTransportTests/Generated Protos/cast_certificate_test_suite.proto
