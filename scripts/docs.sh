#!/usr/bin/env bash
# Builds the DocC documentation of every product module into
# .build/docs/<Module>.doccarchive with the toolchain's docc (no plugin, so
# apps embedding the modules never pull a documentation dependency).
#
#   scripts/docs.sh            (make docs)
#
# Symbol graphs come from `swift package dump-symbol-graph`, which reuses the
# regular debug build. Any DocC warning is printed and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=(CastCommon CastLogging CastDiscovery CastTransport CastChannels CastMedia CastKit CastUI CastTerminalUI CastMPRIS CastSystemSleep CastTray CastStreaming CastRemoteDisplay CastSoundCapture CastCapture CastSpeakers CastMediaServer CastLocalMedia CastEmulator)
swift package dump-symbol-graph --minimum-access-level public >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
work=.build/docs-symbols
rm -rf "$work" && mkdir -p "$work" .build/docs
status=0
for module in "${modules[@]}"; do
    catalog=$(find Modules -maxdepth 2 -name "$module.docc" -type d)
    mkdir -p "$work/$module"
    cp "$graphs/$module".symbols.json "$work/$module"/
    cp "$graphs/$module"@*.symbols.json "$work/$module"/ 2>/dev/null || true
    log="$work/$module.log"
    docc convert "$catalog" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.swift-cast.$module" \
        --additional-symbol-graph-dir "$work/$module" --output-path ".build/docs/$module.doccarchive" \
        >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    if grep -qE "(warning|error):" "$log"; then
        grep -A3 -E "(warning|error):" "$log" >&2
        status=1
    fi
    echo "docs: .build/docs/$module.doccarchive"
done
exit $status
