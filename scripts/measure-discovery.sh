#!/usr/bin/env bash
# Measures discovery side by side with python-zeroconf's browser, on the same
# kind of namespace pair: a python-zeroconf advertiser in one namespace, the
# browser in the other, joined by a veth pair. Nothing leaves the machine.
#
#   scripts/measure-discovery.sh [RUNS]     (root; builds cast first)
#
# Prints, for each browser: the median seconds from browser start to the
# first device resolved (over RUNS short runs, default 5), and the packets
# the browser's namespace sent in its first minute (IPv4 only: IPv6 is off in
# the namespaces so neighbour discovery does not count; IGMP joins do).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
[ "$(id -u)" -eq 0 ] || { echo "measure-discovery: needs root for network namespaces" >&2; exit 1; }
swift build --product cast >/dev/null
ours="$(swift build --show-bin-path)/cast"
# A cache of its own: cast remembers the devices it finds and asks their
# addresses at its next start, and these namespaces' addresses must never be
# asked from the machine's own network (and a cold start must be cold).
XDG_CACHE_HOME="$(mktemp -d)"
export XDG_CACHE_HOME
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
tx_packets() { ip -n "mdB$1" -s -j link show vB | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["packets"])'; }

# browse N BROWSER SECONDS: runs one browser in mdB$N, prints its JSON lines.
browse() {
    local n=$1 browser=$2 seconds=$3
    if [ "$browser" = swift ]; then
        ip netns exec "mdB$n" "$ours" discover --ipv4 --json --timeout "$seconds"
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
    before=$(tx_packets "$n")
    output=$(browse "$n" "$browser" "$seconds")
    after=$(tx_packets "$n")
    kill "$advertiser"; wait "$advertiser" 2>/dev/null || true
    drop_pair "$n"
    echo "$(echo "$output" | head -1 | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.read())["seconds"], 4))') $((after - before))"
}

trap 'for n in 1 2 3 4; do drop_pair $n; done; rm -rf "$XDG_CACHE_HOME"' EXIT
echo "browser      first device (median of $runs, s)   packets sent in 60 s"
for browser in swift zeroconf; do
    firsts=()
    for _ in $(seq "$runs"); do firsts+=("$(measure 1 "$browser" 3 | cut -d' ' -f1)"); done
    median=$(printf '%s\n' "${firsts[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
    packets=$(measure 2 "$browser" 60 | cut -d' ' -f2)
    printf '%-12s %-36s %s   (runs: %s)\n' "$browser" "$median" "$packets" "${firsts[*]}"
done
