#!/usr/bin/env bash
# `make fuzz`: builds the fuzz targets (Tests/Fuzz, one executable,
# `cast-fuzz TARGET`) with libFuzzer and AddressSanitizer, then runs each
# for FUZZ_SECONDS (default 30) from its committed seed corpus. New inputs go to .build/fuzz/corpus/<target>,
# crashes to .build/fuzz/artifacts/; a crash fails the run. Prints the
# executions per target. FUZZ_TARGETS limits the run to some targets;
# FUZZ_JOBS sets how many run at once (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
targets=(${FUZZ_TARGETS:-dns-message device-cache cast-frame status-json offer-answer rtcp rtp media-files device-auth revocation-list trust-anchors portal-reply local-media mpris-call tray-call speakers-file})
scratch=.build/fuzz
swift="${SWIFT:-swift}"
# Where it is built (FUZZ_SCRATCH): only Swift is instrumented, so the C
# objects of another debug build in the same folder are reused (CI shares
# .build with `make test`); the corpus, logs and crashes stay in .build/fuzz.
build="${FUZZ_SCRATCH:-$scratch}"

# FUZZ_STEP: build, run, or both (the default). CI builds first, then runs
# the targets beside the ThreadSanitizer tests (.ci/run).
step="${FUZZ_STEP:-all}"
# One executable holds every target (`cast-fuzz TARGET`): one build, one link.
if [ "$step" != run ]; then
    "$swift" build --scratch-path "$build" --product cast-fuzz \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld 2>&1 | grep -E "error|warning: |Compiling cast_fuzz|Build of product" || true
fi
test -x "$build/debug/cast-fuzz" || { echo "fuzz: cast-fuzz did not build" >&2; exit 1; }
[ "$step" = build ] && exit 0
mkdir -p "$scratch"

# The device-auth seed is a reply the emulator makes, written by the replayer.
if [ ! -e Tests/Fuzz/DeviceAuth/Corpus/emulator-reply ]; then
    "$swift" run cast-fuzz device-auth --seed Tests/Fuzz/DeviceAuth/Corpus/emulator-reply
fi

mkdir -p "$scratch/artifacts"

# Runs one target; its one-line result goes to $scratch/<target>.result.
fuzz_one() {
    local target="$1" folder work log result runs
    folder="$(echo "$target" | sed -E 's/(^|-)([a-z])/\U\2/g; s/Dns/DNS/; s/Json/JSON/; s/Rtcp/RTCP/; s/Rtp$/RTP/')"
    work="$scratch/corpus/$target"
    mkdir -p "$work"
    log="$scratch/$target.log"
    # FUZZ_NICE: the niceness the targets run at (0; CI runs them at 19 beside the sanitizer's tests).
    if ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/Tests/Fuzz/lsan.supp" nice -n "${FUZZ_NICE:-0}" "$build/debug/cast-fuzz" "$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -timeout=10 -artifact_prefix="$scratch/artifacts/$target-" "$work" "Tests/Fuzz/$folder/Corpus" >"$log" 2>&1; then
        result="ok"
    else
        result="FAILED (see $log and $scratch/artifacts)"
    fi
    runs="$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo '?')"
    echo "fuzz-$target: $runs executions in ${seconds} s, $result" >"$scratch/$target.result"
}

# One target per core at a time (FUZZ_JOBS): each libFuzzer process is
# single-threaded, so two cores halve the wall time and give each target
# the same time on a core as a serial run.
jobs_max="${FUZZ_JOBS:-$(nproc)}"
for target in "${targets[@]}"; do
    rm -f "$scratch/$target.result"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    fuzz_one "$target" &
done
wait

status=0
for target in "${targets[@]}"; do
    if ! grep -q ', ok$' "$scratch/$target.result" 2>/dev/null; then
        status=1
        tail -40 "$scratch/$target.log" >&2
    fi
done
for target in "${targets[@]}"; do
    cat "$scratch/$target.result" 2>/dev/null || echo "fuzz-$target: no result"
done
exit "$status"
