#!/usr/bin/env bash
# `make tsan`: the whole suite under ThreadSanitizer, in its own build
# folder (.build/tsan). Fails on any test failure and on any TSan report.
# Real-time tests see CAST_SANITIZER and keep their checks of correctness,
# not their throughput floors (a TSan build is 5–15 times slower).
#
# The Swift code is instrumented (-Xswiftc -sanitize=thread), and the TSan
# runtime linked; C targets are built as for `make test`: ours are system
# library headers (compiled into the Swift modules that import them, so
# instrumented), the dependencies' are BoringSSL (twice) and NIO's syscall
# shims, whose locks TSan sees through its pthread interceptors. So the C
# objects of a build in the same folder are reused (TSAN_SCRATCH; CI shares
# .build with `make test`, saving a cold build of both BoringSSL copies).
set -uo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
scratch="${TSAN_SCRATCH:-.build/tsan}"
sanitize=(-Xswiftc -sanitize=thread)

# TSAN_STEP: build, run, or both (the default). CI builds first, then runs
# the tests beside the fuzz targets (.ci/run).
step="${TSAN_STEP:-all}"
if [ "$step" != run ]; then
    "$swift" build --build-tests "${sanitize[@]}" --scratch-path "$scratch" 2>&1 | grep -E "error|warning: |Build complete" || true
fi
[ "$step" = build ] && exit 0
log="$(mktemp "${TMPDIR:-/tmp}/cast-tsan.XXXXXX")"
trap 'rm -f "$log"' EXIT
# Four tests at a time (Swift Testing's maximum parallelization width): a
# TSan build is 5-15 times slower, and with every suite starting at once on
# 2 cores, TLS handshakes with device authentication ran past their 10 s
# connect timeout at the start of the run. One at a time the run took 298 s
# on a fresh clone (Nov 2026), two at a time 222 s, then 393 s as real-time
# tests were added, all of them in one line (RealTimeTurns). The run used
# about one core of two: with two lines (this process's streams, and the
# programs the tests start) and four at a time it took 289 s, the longer
# line (237 s of child processes) its floor. TSAN_WIDTH sets another width.
# The programs the tests start (cast, the samples) are this build's, instrumented
# too, as in CI, where TSAN_SCRATCH is .build itself.
case "$scratch" in /*) products="$scratch/debug" ;; *) products="$PWD/$scratch/debug" ;; esac
source "$(dirname "$0")/watchdog.sh"
watch_tests "${TEST_TIME_LIMIT:-1800}" "$log" &
watchdog=$!
# scripts/tsan.supp names each known false positive it suppresses, and why.
CAST_PRODUCTS="$products" CAST_SANITIZER=thread TSAN_OPTIONS="${TSAN_OPTIONS:-second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp}" \
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${TSAN_WIDTH:-4}" \
    stdbuf -oL -eL "$swift" test --skip-build "${sanitize[@]}" --scratch-path "$scratch" "$@" >"$log" 2>&1
status=$?
kill "$watchdog" 2>/dev/null
reports=$(grep -c -E "WARNING: ThreadSanitizer|ERROR: ThreadSanitizer" "$log" || true)
# TSAN_KEEP_LOG=PATH keeps the whole run's output (every turn, every test) for a look afterwards.
if [ -n "${TSAN_KEEP_LOG:-}" ]; then cp "$log" "$TSAN_KEEP_LOG"; fi
tail -3 "$log"
python3 "$(dirname "$0")/turns-summary.py" "$log" || true
if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
    echo
    echo "=== ThreadSanitizer: $reports reports, test status $status ==="
    grep -n -A30 "WARNING: ThreadSanitizer" "$log" | head -300
    grep -n -A6 -E '✘|Fatal error' "$log" | grep -v -E '^[0-9]+-(◇|✔)' | cut -c1-600 | head -100
    # A test process that died (a signal, a sanitizer's error) names no test: what it printed last.
    if ! grep -q '✘' "$log"; then
        echo "--- no test failed by name; the run's last lines:"
        grep -n -B3 -A60 -E 'DEADLYSIGNAL|ERROR: ThreadSanitizer|Crash|signal [0-9]+' "$log" | cut -c1-400 | head -150
        tail -40 "$log" | cut -c1-400
    fi
    exit 1
fi
echo "tsan: 0 reports"
