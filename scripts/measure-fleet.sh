#!/usr/bin/env bash
# A thousand devices in one process: N devices on one cast-receiver, watched
# by our sender (one CastDeviceLink each) and by pychromecast (a thread
# each), in the same run; discovery of all N over mDNS by each side. Builds
# the comparison and cast-receiver in release first.
#
#   scripts/measure-fleet.sh [DEVICES [IDLE_SECONDS [PYCHROMECAST_UP_TO]]]
#   (defaults: 10,100,1000, 60 s, 1000)
#
# Needs root: the fleet and the senders run in two network namespaces joined
# by a veth pair (10.203.0.2 and 10.203.0.1), so its mDNS never reaches a
# real interface.
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-10,100,1000}
idle=${2:-60}
python_up_to=${3:-1000}
python3 -c "import pychromecast" 2>/dev/null || { echo "measure-fleet: needs pychromecast (make setup)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "measure-fleet: needs root for its network namespaces" >&2; exit 1; }
swift build -c release --package-path Benchmarks --product FleetComparison >/dev/null
swift build -c release --package-path Benchmarks --product cast-receiver >/dev/null
bin=$(swift build -c release --package-path Benchmarks --show-bin-path 2>/dev/null)

senders=castfleetA$$ fleet=castfleetB$$
cleanup() { ip netns del "$senders" 2>/dev/null || true; ip netns del "$fleet" 2>/dev/null || true; }
trap cleanup EXIT
for ns in "$senders" "$fleet"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
done
ip -n "$senders" link add vA type veth peer name vB netns "$fleet"
ip -n "$senders" addr add 10.203.0.1/24 dev vA
ip -n "$fleet" addr add 10.203.0.2/24 dev vB
ip -n "$senders" link set vA up
ip -n "$fleet" link set vB up
for _ in $(seq 50); do  # each end's carrier comes up to a second later (linkwatch)
    ip -n "$senders" -o link show dev vA | grep -q "state UP" \
        && ip -n "$fleet" -o link show dev vB | grep -q "state UP" && break
    sleep 0.1
done

# A thousand connections each way: descriptors for both ends.
ulimit -n "$(ulimit -Hn)"
FLEET_HOST=10.203.0.2 FLEET_RECEIVER_PREFIX="ip netns exec $fleet" FLEET_ADVERTISE_INTERFACE=vB \
    FLEET_BROWSE_INTERFACE=vA FLEET_BROWSE_ADDRESS=10.203.0.1 \
    ip netns exec "$senders" "$bin/FleetComparison" "$bin/cast-receiver" scripts/interop/pychromecast_fleet.py \
    "$devices" "$idle" "$python_up_to"
