#!/usr/bin/env bash
# Runs the built tests (`swift test --skip-build`). CI shows only the end of a
# run's output, where a failure recorded minutes earlier is out of sight, so a
# failed run ends by repeating every failure line with the lines that follow it.
set -uo pipefail

log="$(mktemp "${TMPDIR:-/tmp}/cast-tests.XXXXXX")"
results="$(mktemp -d "${TMPDIR:-/tmp}/cast-results.XXXXXX")"
trap 'rm -rf "$log" "$results"' EXIT

# The console output of a full run loses lines now and then (a whole run's
# log has lacked dozens of result lines and its summary, and once a failed
# test's issue line, all while every test ran), so the failures are also read
# back from the xUnit reports the test runners write themselves.
source "$(dirname "$0")/watchdog.sh"
watch_tests "${TEST_TIME_LIMIT:-1500}" "$log" &
watchdog=$!
stdbuf -oL -eL "${SWIFT:-swift}" test --skip-build --xunit-output "$results/tests.xml" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
kill "$watchdog" 2>/dev/null
python3 "$(dirname "$0")/turns-summary.py" "$log" || true
if [ "$status" -ne 0 ]; then
    echo
    echo "=== The failures of this run, again ==="
    grep -n -A6 -E '✘|error:|Fatal error|Test Case .* failed' "$log" | grep -v -E '^[0-9]+-(◇|✔)' | cut -c1-600 | head -200
    echo
    echo "=== The failures the test runners reported ==="
    python3 - "$results"/*.xml <<'PY'
import sys
import xml.etree.ElementTree as tree

for path in sys.argv[1:]:
    try:
        cases = tree.parse(path).iter("testcase")
    except (OSError, tree.ParseError) as error:
        print(f"{path}: {error}")
        continue
    for case in cases:
        for failure in list(case.iter("failure")) + list(case.iter("error")):
            # At most 500 characters each: an expectation on two byte arrays
            # prints both, and pushed every other failure out of CI's view.
            message = " ".join((failure.get("message") or failure.text or "").split())
            if len(message) > 500:
                message = message[:500] + f" … ({len(message)} characters)"
            print(f"{case.get('classname')}.{case.get('name')}: {message}")
PY
fi
exit "$status"
