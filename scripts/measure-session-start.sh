#!/usr/bin/env bash
# Connect → app session started against the emulator on 127.0.0.1: our
# SessionManager versus pychromecast on the same emulator, median of RUNS
# each (default 20), in one run. Builds the comparison in release first.
#
#   scripts/measure-session-start.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
python3 -c "import pychromecast" 2>/dev/null || { echo "measure-session-start: needs pychromecast (make setup)" >&2; exit 1; }
swift build -c release --package-path Benchmarks --product SessionStartComparison >/dev/null
"$(swift build -c release --package-path Benchmarks --show-bin-path)/SessionStartComparison" \
    "$runs" scripts/interop/pychromecast_session.py
