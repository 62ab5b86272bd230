#!/usr/bin/env bash
# Runs the built tests (`swift test --skip-build`). CI shows only the end of a
# run's output, where a failure recorded minutes earlier is out of sight, so a
# failed run ends by repeating every failure line with the lines that follow it.
set -uo pipefail

log="$(mktemp "${TMPDIR:-/tmp}/cast-tests.XXXXXX")"
trap 'rm -f "$log"' EXIT

"${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "=== The failures of this run, again ==="
    grep -n -A6 -E '✘|error:|Fatal error|Test Case .* failed' "$log" | grep -v -E '^[0-9]+-(◇|✔)' | head -200
fi
exit "$status"
