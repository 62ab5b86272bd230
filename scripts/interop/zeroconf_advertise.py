#!/usr/bin/env python3
"""Advertises a Cast device with python-zeroconf, an mDNS stack independent of ours.

Usage: zeroconf_advertise.py IPV4 DEVICE_ID FRIENDLY_NAME

Registers `_googlecast._tcp` with the TXT record a Chromecast Ultra sends,
prints "registered" once announced, and on SIGTERM unregisters, prints
"withdrawn" once its three goodbye packets are sent, and exits. The interop tests run it inside a network
namespace of their own.
"""
import asyncio
import signal
import socket
import sys
import threading

from zeroconf import IPVersion, ServiceInfo, Zeroconf


async def withdraw(zeroconf: Zeroconf, info: ServiceInfo) -> None:
    """Unregisters `info` and waits until all of its goodbyes are sent."""
    broadcast = await zeroconf.async_unregister_service(info)
    await broadcast


def main() -> None:
    address, device_id, friendly_name = sys.argv[1:4]
    dashed = f"{device_id[0:8]}-{device_id[8:12]}-{device_id[12:16]}-{device_id[16:20]}-{device_id[20:32]}"
    properties = {
        "id": device_id,
        "cd": "0123456789ABCDEF0123456789ABCDEF",
        "rm": "",
        "ve": "05",
        "md": "Chromecast Ultra",
        "ic": "/setup/icon.png",
        "fn": friendly_name,
        "ca": "463365",
        "st": "0",
        "bs": "FA8FCA9E1B2C",
        "nf": "1",
        "rs": "",
    }
    info = ServiceInfo(
        "_googlecast._tcp.local.",
        f"Chromecast-Ultra-{device_id}._googlecast._tcp.local.",
        addresses=[socket.inet_aton(address)],
        port=8009,
        properties=properties,
        server=f"{dashed}.local.",
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # A parent that blocks signals in its threads passes the mask on; take them back.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    # Handlers first: a SIGTERM right after "registered" must still send the goodbye.
    zeroconf = Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
    zeroconf.register_service(info)
    print("registered", flush=True)
    while not stop.wait(0.1):
        pass
    # Zeroconf.unregister_service returns once the goodbyes are scheduled, not sent
    # (python-zeroconf 0.154, _core.py), and close() stops all sending: closing right
    # after it sent one goodbye of three, and under load none. Wait for all three.
    asyncio.run_coroutine_threadsafe(withdraw(zeroconf, info), zeroconf.loop).result(timeout=10)
    print("withdrawn", flush=True)
    zeroconf.close()


if __name__ == "__main__":
    main()
