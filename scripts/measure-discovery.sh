#!/usr/bin/env bash
# Measures discovery side by side with python-zeroconf's browser, on the same
# kind of namespace pair: a python-zeroconf advertiser in one namespace, the
# browser in the other, joined by a veth pair. Nothing leaves the machine.
#
#   scripts/measure-discovery.sh [RUNS]     (root; builds cast first)
#
# Prints, for each browser: the median seconds from browser start to the
# first device resolved (over RUNS short runs, default 10), and the packets
# the browser's namespace sent in its first minute (IPv4 only: IPv6 is off in
# the namespaces so neighbour discovery does not count; IGMP joins do).
#
# Then, for cast alone (python-zeroconf has neither): the first device with
# the cache warm (a first run remembered the device; then the browser's
# namespace drops all multicast, so only the remembered address can answer),
# and a /24 scan of a bridged LAN with 3 cast-receivers and multicast dropped
# (first device, and all three).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
[ "$(id -u)" -eq 0 ] || { echo "measure-discovery: needs root for network namespaces" >&2; exit 1; }
swift build --product cast >/dev/null
swift build --product cast-receiver >/dev/null
ours="$(swift build --show-bin-path)/cast"
receiver="$(swift build --show-bin-path)/cast-receiver"
# Caches of its own: cast remembers the devices it finds and asks their
# addresses at its next start, and these namespaces' addresses must never be
# asked from the machine's own network. Each run gets a new one (a cold
# start must be cold) unless it is given one (the warm runs).
caches="$(mktemp -d)"
export XDG_CACHE_HOME="$caches/unused"
interop=scripts/interop
device=a1b2c3d4e5f60718293a4b5c6d7e8f90

# make_pair N: namespaces mdA$N / mdB$N, 10.210.N.1 and .2, IPv6 off.
make_pair() {
    local n=$1
    for ns in "mdA$n" "mdB$n"; do
        ip netns add "$ns"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$ns" link set lo up
    done
    ip -n "mdA$n" link add vA type veth peer name vB netns "mdB$n"
    ip -n "mdA$n" addr add "10.210.$n.1/24" dev vA
    ip -n "mdB$n" addr add "10.210.$n.2/24" dev vB
    ip -n "mdA$n" link set vA up
    ip -n "mdB$n" link set vB up
}
drop_pair() { ip netns del "mdA$1" 2>/dev/null || true; ip netns del "mdB$1" 2>/dev/null || true; }
# drop_multicast NS: NS neither sends nor receives multicast (a router that blocks mDNS).
drop_multicast() {
    ip netns exec "$1" nft -f - <<'RULES'
table ip castmeasure {
    chain input { type filter hook input priority 0; ip daddr 224.0.0.0/4 drop; }
    chain output { type filter hook output priority 0; ip daddr 224.0.0.0/4 drop; }
}
RULES
}
# seconds_of_found K: the seconds of the K-th "found" event in JSON lines on stdin ("-" if none).
seconds_of_found() {
    python3 -c '
import json, sys
found = [json.loads(line)["seconds"] for line in sys.stdin if line.startswith("{") and json.loads(line)["event"] == "found"]
print(round(found[int(sys.argv[1]) - 1], 4) if len(found) >= int(sys.argv[1]) else "-")' "$1"
}
median() { printf '%s\n' "$@" | grep -v '^-$' | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
tx_packets() { ip -n "mdB$1" -s -j link show vB | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["packets"])'; }

# browse N BROWSER SECONDS [CACHE]: runs one browser in mdB$N, prints its JSON lines.
browse() {
    local n=$1 browser=$2 seconds=$3 cache=${4:-}
    if [ "$browser" = swift ]; then
        [ -n "$cache" ] || cache="$(mktemp -d -p "$caches")"
        XDG_CACHE_HOME="$cache" ip netns exec "mdB$n" "$ours" discover --ipv4 --json --timeout "$seconds"
    else
        ip netns exec "mdB$n" python3 "$interop/zeroconf_browse.py" "10.210.$n.2" "$seconds"
    fi
}

# measure N BROWSER SECONDS: advertiser up, then the browser; prints "first-seconds packets".
measure() {
    local n=$1 browser=$2 seconds=$3 advertiser output before after
    make_pair "$n"
    ip netns exec "mdA$n" python3 "$interop/zeroconf_advertise.py" "10.210.$n.1" "$device" "Measured" >"/tmp/md-adv-$n" &
    advertiser=$!
    for _ in $(seq 50); do grep -q registered "/tmp/md-adv-$n" && break; sleep 0.1; done
    # The advertiser has just announced, and a responder multicasts a record
    # at most once a second (RFC 6762 §6): a browser started now would time
    # that rule, not itself. Ours asks QM (multicast answers, so that
    # avahi-daemon on the same port cannot take them), python-zeroconf's
    # first query QU, answered by unicast at once; so both start 1.5 s after.
    sleep 1.5
    before=$(tx_packets "$n")
    output=$(browse "$n" "$browser" "$seconds")
    after=$(tx_packets "$n")
    kill "$advertiser"; wait "$advertiser" 2>/dev/null || true
    drop_pair "$n"
    echo "$(echo "$output" | head -1 | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.read())["seconds"], 4))') $((after - before))"
}

# measure_warm N: the first device of a browser whose cache knows the
# advertiser, with multicast dropped in the browser's namespace.
measure_warm() {
    local n=$1 advertiser output
    make_pair "$n"
    local cache
    cache="$(mktemp -d -p "$caches")"
    ip netns exec "mdA$n" python3 "$interop/zeroconf_advertise.py" "10.210.$n.1" "$device" "Measured" >"/tmp/md-adv-$n" &
    advertiser=$!
    for _ in $(seq 50); do grep -q registered "/tmp/md-adv-$n" && break; sleep 0.1; done
    browse "$n" swift 2 "$cache" >/dev/null
    drop_multicast "mdB$n"
    output=$(browse "$n" swift 2 "$cache")
    kill "$advertiser"; wait "$advertiser" 2>/dev/null || true
    drop_pair "$n"
    echo "$output" | seconds_of_found 1
}

# A bridged LAN: mdS (the browser, br0 10.212.0.1/24, multicast dropped) and
# mdD0…mdD2 (10.212.0.10…12), each running cast-receiver advertising on eth0.
make_lan() {
    ip netns add mdS
    ip -n mdS link set lo up
    ip -n mdS link add br0 type bridge
    ip -n mdS addr add 10.212.0.1/24 dev br0
    ip -n mdS link set br0 up
    for i in 0 1 2; do
        ip netns add "mdD$i"
        ip -n "mdD$i" link set lo up
        ip -n mdS link add "p$i" type veth peer name eth0 netns "mdD$i"
        ip -n mdS link set "p$i" master br0 up
        ip -n "mdD$i" addr add "10.212.0.1$i/24" dev eth0
        ip -n "mdD$i" link set eth0 up
    done
    for ns in mdS mdD0 mdD1 mdD2; do
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    done
    drop_multicast mdS
    for i in 0 1 2; do
        ip netns exec "mdD$i" "$receiver" --host "10.212.0.1$i" --port 8009 --name "Speaker $i" \
            --advertise --interface eth0 >"/tmp/md-recv-$i" 2>&1 &
    done
    for i in 0 1 2; do
        for _ in $(seq 100); do grep -q advertising "/tmp/md-recv-$i" && break; sleep 0.1; done
    done
}
drop_lan() {
    for i in 0 1 2; do ip netns pids "mdD$i" 2>/dev/null | xargs -r kill 2>/dev/null || true; done
    for ns in mdS mdD0 mdD1 mdD2; do ip netns del "$ns" 2>/dev/null || true; done
}

trap 'for n in 1 2 3 4; do drop_pair $n; done; drop_lan; rm -rf "$caches"' EXIT
echo "browser      first device (median of $runs, s)   packets sent in 60 s"
for browser in swift zeroconf; do
    firsts=()
    for _ in $(seq "$runs"); do firsts+=("$(measure 1 "$browser" 3 | cut -d' ' -f1)"); done
    median=$(printf '%s\n' "${firsts[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
    packets=$(measure 2 "$browser" 60 | cut -d' ' -f2)
    printf '%-12s %-36s %s   (runs: %s)\n' "$browser" "$median" "$packets" "${firsts[*]}"
done

warm=()
for _ in $(seq "$runs"); do warm+=("$(measure_warm 3)"); done
printf '%-12s %-36s %s   (runs: %s)\n' "swift, cache warm, multicast dropped" "$(median "${warm[@]}")" "" "${warm[*]}"

make_lan
first=()
all=()
for _ in $(seq "$runs"); do
    output=$(XDG_CACHE_HOME="$(mktemp -d -p "$caches")" ip netns exec mdS "$ours" discover --ipv4 --json \
        --scan 10.212.0.0/24 --timeout 6)
    first+=("$(echo "$output" | seconds_of_found 1)")
    all+=("$(echo "$output" | seconds_of_found 3)")
done
drop_lan
printf '%-12s %-36s %s   (runs: %s)\n' "swift, /24 scan, 3 devices" "first $(median "${first[@]}"), all three $(median "${all[@]}")" "" "${all[*]}"
