# Sourced by test.sh and tsan.sh. `watch_tests LIMIT LOG &` stops a test
# run that goes over LIMIT seconds (a whole run takes under 10 minutes), so
# CI reports a failure with what was stuck instead of running out of time
# with nothing to read: the tests that started and did not end (from LOG,
# the run's output so far), every thread of the test process and the
# processes it started. Stop the watchdog with `kill` once the run ends.
watch_tests() {
    local limit=$1 log=$2 waited=0 pid
    # Short sleeps: a killed watchdog leaves no long sleep holding CI's output open.
    while [ "$waited" -lt "$limit" ]; do
        sleep 5
        waited=$((waited + 5))
    done
    echo
    echo "=== The tests ran over $limit s and are stopped. The tests that started and did not end: ==="
    python3 - "$log" <<'PY'
import re
import sys

started, ended = [], set()
with open(sys.argv[1], errors="replace") as log:
    for line in log:
        if match := re.search(r"◇ (Test|Suite) (.+?) started", line):
            started.append(match.group(2))
        elif match := re.search(r"[✔✘] (Test|Suite) (.+?) (passed|failed)", line):
            ended.add(match.group(2))
for name in started:
    if name not in ended:
        print(f"  {name}")
PY
    for pid in $(pgrep -f 'PackageTests\.xctest'); do
        echo "=== Test process $pid: the processes it started ==="
        ps -o pid,etimes,stat,args --ppid "$pid" || true
        echo "=== Test process $pid: every thread ==="
        timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt 30' 2>/dev/null \
            | grep -E '^(Thread|#)' | cut -c1-300 || true
        kill -KILL "$pid"
    done
}
