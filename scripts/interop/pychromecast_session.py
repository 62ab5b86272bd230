#!/usr/bin/env python3
"""Drives a receiver with pychromecast, a Cast sender independent of ours.

Usage:
  pychromecast_session.py interop HOST PORT
      Connects, reads the receiver status, launches the Default Media
      Receiver, sets the volume to 0.4 and mutes; prints one JSON object with
      what pychromecast saw at each step.
  pychromecast_session.py measure HOST PORT RUNS
      RUNS times: connect, launch the Default Media Receiver, and time that
      (connect -> app session started); then stop the app and disconnect,
      untimed. Prints a JSON list of seconds.

The session interop test and scripts/measure-session-start.sh run it
against the emulator on 127.0.0.1; it never looks for devices itself.
"""
import json
import sys
import time
import uuid

import pychromecast

DEFAULT_MEDIA_RECEIVER = "CC1AD845"


def connect(host: str, port: int) -> pychromecast.Chromecast:
    cast = pychromecast.get_chromecast_from_host(
        (host, port, uuid.uuid4(), "Chromecast", "Cast Emulator"), tries=1, timeout=10
    )
    cast.wait(timeout=10)
    return cast


def status_of(cast: pychromecast.Chromecast) -> dict:
    status = cast.status
    return {
        "app_id": status.app_id,
        "session_id": status.session_id,
        "transport_id": status.transport_id,
        "namespaces": status.namespaces,
        "volume_level": status.volume_level,
        "volume_muted": status.volume_muted,
        "is_stand_by": status.is_stand_by,
    }


def interop(host: str, port: int) -> None:
    cast = connect(host, port)
    report = {"connected": status_of(cast)}
    cast.start_app(DEFAULT_MEDIA_RECEIVER, timeout=10)
    report["launched"] = status_of(cast)
    report["set_volume"] = cast.set_volume(0.4, timeout=10)
    cast.set_volume_muted(True, timeout=10)
    report["volume"] = status_of(cast)
    cast.disconnect(timeout=5)
    print(json.dumps(report))


def measure(host: str, port: int, runs: int) -> None:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        cast = connect(host, port)
        cast.start_app(DEFAULT_MEDIA_RECEIVER, timeout=10)
        durations.append(time.perf_counter() - started)
        cast.quit_app(timeout=10)
        cast.disconnect(timeout=5)
    print(json.dumps(durations))


def main() -> None:
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "interop":
        interop(host, port)
    elif mode == "measure":
        measure(host, port, int(sys.argv[4]))
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
