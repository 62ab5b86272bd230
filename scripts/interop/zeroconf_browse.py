#!/usr/bin/env python3
"""Browses for Cast devices with python-zeroconf, an mDNS stack independent of ours.

Usage: zeroconf_browse.py IPV4 SECONDS

Prints one JSON line per resolved `_googlecast._tcp` service — its name,
server, port, addresses, TXT properties and the seconds from browser start —
and exits after SECONDS. The interop tests and the discovery measurement run
it inside a network namespace of their own.
"""
import json
import socket
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

SERVICE = "_googlecast._tcp.local."


def main() -> None:
    address, seconds = sys.argv[1], float(sys.argv[2])
    started = time.monotonic()
    zeroconf = Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
    seen = set()

    def changed(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Added or name in seen:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is None:
            return
        seen.add(name)
        print(
            json.dumps(
                {
                    "name": name,
                    "server": info.server,
                    "port": info.port,
                    "addresses": [socket.inet_ntoa(a) for a in info.addresses],
                    "properties": {k.decode(): (v or b"").decode() for k, v in info.properties.items()},
                    "seconds": time.monotonic() - started,
                }
            ),
            flush=True,
        )

    ServiceBrowser(zeroconf, SERVICE, handlers=[changed])
    time.sleep(seconds)
    zeroconf.close()


if __name__ == "__main__":
    main()
