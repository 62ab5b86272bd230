#!/usr/bin/env python3
"""Watches many receivers with pychromecast, as Home Assistant does: one
Chromecast object (a socket client thread) per device.

Usage:
  pychromecast_fleet.py HOST PORT,PORT,...
  pychromecast_fleet.py browse ADDRESS COUNT TIMEOUT
      Browses for Cast devices with pychromecast's CastBrowser (python-zeroconf)
      on the interface holding ADDRESS until COUNT are found or TIMEOUT
      seconds pass; prints {"phase": "browsed", "seconds": …, "found": …,
      "rss_kib_added": …}. Run it inside a network namespace: it sends mDNS.

Driven by Benchmarks/Comparisons/FleetComparison over standard input and
output, one JSON object per line. It connects to every port at once and
prints {"phase": "connected", ...} with the time until every device's first
status, and the process's resident memory and thread count before and after.
Then, per command line on standard input:
  idle SECONDS   sleeps and prints the CPU seconds the process used meanwhile
  status         asks every device for its status (GET_STATUS) at once and
                 prints when each answer arrived (monotonic nanoseconds)
  watch LEVEL    prints {"phase": "watching"}; then waits (up to 60 s) for a
                 status with volume LEVEL from every device and prints when
                 each arrived (time.monotonic_ns, the clock cast-receiver
                 stamps its changes with; null for a device never heard)
  quit           disconnects every device and exits
It never looks for devices itself and talks only to HOST (127.0.0.1).
"""
import json
import resource
import ssl
import sys
import threading
import time
import uuid

import pychromecast


def serialize_each_tls_socket() -> None:
    """One lock per TLS socket around its reads and writes.

    pychromecast writes from the caller's thread while the socket's own thread
    reads it, and an OpenSSL connection is not safe for that (pychromecast
    issue #1030; see pychromecast_session.py). The session script uses one
    lock for its one socket; with a thousand sockets a shared lock would
    serialize every device, so each socket gets its own.
    """
    creating = threading.Lock()

    def lock_of(sock):
        lock = sock.__dict__.get("_fleet_lock")
        if lock is None:
            with creating:
                lock = sock.__dict__.setdefault("_fleet_lock", threading.RLock())
        return lock

    def guarded(method):
        def call(self, *args, **kwargs):
            with lock_of(self):
                return method(self, *args, **kwargs)

        return call

    for name in ("recv", "send", "sendall"):
        setattr(ssl.SSLSocket, name, guarded(getattr(ssl.SSLSocket, name)))


def memory_and_threads() -> tuple[int, int]:
    rss, threads = 0, 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class LevelWatch:
    """Records when each device first reports a volume level."""

    def __init__(self, count: int) -> None:
        self.level = None
        self.arrived = [None] * count
        self.remaining = 0
        self.lock = threading.Lock()
        self.done = threading.Event()

    def expect(self, level: float) -> None:
        with self.lock:
            self.level = level
            self.arrived = [None] * len(self.arrived)
            self.remaining = len(self.arrived)
            self.done.clear()

    def seen(self, index: int, level) -> None:
        now = time.monotonic_ns()
        with self.lock:
            if self.level is None or level is None or abs(level - self.level) > 1e-6:
                return
            if self.arrived[index] is None:
                self.arrived[index] = now
                self.remaining -= 1
                if self.remaining == 0:
                    self.done.set()


class Listener:
    def __init__(self, index: int, watch: LevelWatch) -> None:
        self.index = index
        self.watch = watch

    def new_cast_status(self, status) -> None:
        self.watch.seen(self.index, status.volume_level)


def say(value: dict) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def connect_all(host: str, ports: list[int]) -> list:
    casts = [
        pychromecast.get_chromecast_from_host(
            (host, port, uuid.uuid4(), "Chromecast", f"Fleet {index}"), tries=1, timeout=30
        )
        for index, port in enumerate(ports)
    ]
    for cast in casts:
        cast.start()
    for cast in casts:
        cast.wait(timeout=60)
    return casts


def ask_status(casts: list) -> list:
    arrived = [None] * len(casts)
    done = threading.Event()
    remaining = [len(casts)]
    lock = threading.Lock()

    def answered(index):
        def callback(success, _response):
            now = time.monotonic_ns()
            with lock:
                arrived[index] = now if success else None
                remaining[0] -= 1
                if remaining[0] == 0:
                    done.set()

        return callback

    for index, cast in enumerate(casts):
        cast.socket_client.receiver_controller.update_status(callback_function=answered(index))
    done.wait(timeout=60)
    return arrived


def browse(address: str, count: int, timeout: float) -> None:
    import zeroconf
    from pychromecast.discovery import CastBrowser, SimpleCastListener

    found = set()
    lock = threading.Lock()
    everyone = threading.Event()

    def added(uuid_, _service):
        with lock:
            found.add(uuid_)
            if len(found) >= count:
                everyone.set()

    before, _ = memory_and_threads()
    started = time.monotonic()
    instance = zeroconf.Zeroconf(interfaces=[address])
    browser = CastBrowser(SimpleCastListener(add_callback=added), instance)
    browser.start_discovery()
    complete = everyone.wait(timeout=timeout)
    seconds = time.monotonic() - started
    after, _ = memory_and_threads()
    with lock:
        count_found = len(found)
    browser.stop_discovery()
    instance.close()
    say({"phase": "browsed", "seconds": seconds if complete else None, "found": count_found,
         "rss_kib_added": after - before})


def main() -> None:
    if sys.argv[1] == "browse":
        browse(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    host, ports = sys.argv[1], [int(port) for port in sys.argv[2].split(",")]
    serialize_each_tls_socket()
    baseline_rss, baseline_threads = memory_and_threads()
    started = time.monotonic()
    casts = connect_all(host, ports)
    seconds = time.monotonic() - started
    rss, threads = memory_and_threads()
    watch = LevelWatch(len(casts))
    for index, cast in enumerate(casts):
        cast.register_status_listener(Listener(index, watch))
    say({
        "phase": "connected", "seconds": seconds, "rss_kib": rss, "threads": threads,
        "baseline_rss_kib": baseline_rss, "baseline_threads": baseline_threads,
    })
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "idle":
            before = cpu_seconds()
            time.sleep(float(words[1]))
            rss, threads = memory_and_threads()
            say({"phase": "idle", "cpu_seconds": cpu_seconds() - before, "rss_kib": rss, "threads": threads})
        elif words[0] == "status":
            sent = time.monotonic_ns()
            say({"phase": "status", "sent": sent, "arrived": ask_status(casts)})
        elif words[0] == "watch":
            watch.expect(float(words[1]))
            say({"phase": "watching"})
            watch.done.wait(timeout=60)
            say({"phase": "broadcast", "arrived": watch.arrived})
        elif words[0] == "quit":
            break
    for cast in casts:
        cast.socket_client.disconnect()
    for cast in casts:
        cast.socket_client.join(timeout=10)
    say({"phase": "quit"})


if __name__ == "__main__":
    main()
