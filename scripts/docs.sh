#!/usr/bin/env bash
# Builds the DocC documentation of every product module into
# .build/docs/<Module>.doccarchive, with the toolchain's docc (no plugin, so
# apps embedding the modules never pull a documentation dependency).
#
#   scripts/docs.sh            (make docs)
#
# The symbol graphs come from a build in its own scratch directory, so the
# regular .build keeps its compiled tests.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(CastLogging CastDiscovery CastTransport CastChannels CastMedia CastKit CastRemoteDisplay CastEmulator)
scratch=.build/docs-build
graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
for module in "${modules[@]}"; do
    swift build --scratch-path "$scratch" --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
done
for module in "${modules[@]}"; do
    catalog=$(find Modules -maxdepth 2 -name "$module.docc" -type d)
    own="$graphs/$module"
    mkdir -p "$own"
    cp "$graphs/$module".symbols.json "$graphs/$module"@*.symbols.json "$own"/ 2>/dev/null || true
    docc convert "$catalog" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.swift-cast.$module" \
        --additional-symbol-graph-dir "$own" --output-path ".build/docs/$module.doccarchive" >/dev/null
    echo "docs: .build/docs/$module.doccarchive"
done
