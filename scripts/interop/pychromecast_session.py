#!/usr/bin/env python3
"""Drives a receiver with pychromecast, a Cast sender independent of ours.

Usage:
  pychromecast_session.py interop HOST PORT
      Connects, reads the receiver status, launches the Default Media
      Receiver, sets the volume to 0.4 and mutes; prints one JSON object with
      what pychromecast saw at each step.
  pychromecast_session.py media HOST PORT
      Connects, plays a video through pychromecast's media controller, then
      pauses, seeks to 30 s (which resumes playing) and sets the rate to 1.5,
      waiting for each state;
      prints one JSON object with the media status after each step.
  pychromecast_session.py measure HOST PORT RUNS
      RUNS times: connect, launch the Default Media Receiver, and time that
      (connect -> app session started); then stop the app and disconnect,
      untimed. Prints a JSON list of seconds.

  pychromecast_session.py details HOST PORT
      Reads the device's details from its setup server the way
      pychromecast does (dial.get_device_info: HTTPS on 8443, then HTTP on
      8008; PORT unused), and prints them as one JSON object.

Results go to stdout as the last line; in interop and media modes
pychromecast's debug log goes to stderr. The session interop test and scripts/measure-session-start.sh run it
against the emulator on 127.0.0.1; it never looks for devices itself.
"""
import json
import logging
import ssl
import sys
import threading
import time
import uuid

import pychromecast

DEFAULT_MEDIA_RECEIVER = "CC1AD845"


def serialize_tls_socket_use() -> None:
    """Makes pychromecast use its TLS socket from one thread at a time.

    pychromecast writes from the caller's thread while its socket thread reads
    and writes the same ssl.SSLSocket, with no lock; an OpenSSL connection is
    not safe for that. Under CPU load a record then leaves corrupted: the
    emulator's TLS layer rejected one with BAD_DECRYPT, and pychromecast
    reported "EOF occurred in violation of protocol" when the emulator closed
    the connection. Real devices see the same (pychromecast issue #1030,
    home-assistant/core #141619). This is a fault of the peer under test, not
    of the protocol, so the script takes it out: one lock around the socket's
    reads and writes (re-entrant, as sendall calls send).
    """
    lock = threading.RLock()

    def guarded(method):
        def call(self, *args, **kwargs):
            with lock:
                return method(self, *args, **kwargs)

        return call

    for name in ("recv", "send", "sendall"):
        setattr(ssl.SSLSocket, name, guarded(getattr(ssl.SSLSocket, name)))


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


def wait_for(cast: pychromecast.Chromecast, predicate, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate(cast.media_controller.status):
            return
        time.sleep(0.05)
    raise TimeoutError(f"the media status did not reach the expected state: {cast.media_controller.status}")


def media_of(cast: pychromecast.Chromecast) -> dict:
    status = cast.media_controller.status
    return {
        "player_state": status.player_state,
        "content_id": status.content_id,
        "content_type": status.content_type,
        "current_time": status.current_time,
        "playback_rate": status.playback_rate,
        "media_session_id": status.media_session_id,
        "supports_pause": status.supports_pause,
        "supports_seek": status.supports_seek,
    }


def media(host: str, port: int) -> None:
    cast = connect(host, port)
    controller = cast.media_controller
    controller.play_media("https://media.example/bbb.mp4", "video/mp4", title="Big Buck Bunny")
    controller.block_until_active(timeout=10)
    wait_for(cast, lambda status: status.player_state == "PLAYING")
    report = {"playing": media_of(cast)}
    controller.pause()
    wait_for(cast, lambda status: status.player_state == "PAUSED")
    report["paused"] = media_of(cast)
    controller.seek(30)  # pychromecast resumes playback after a seek (resumeState PLAYBACK_START)
    wait_for(cast, lambda status: status.player_state == "PLAYING" and abs(status.current_time - 30) < 0.5)
    report["seeked"] = media_of(cast)
    controller.set_playback_rate(1.5)
    wait_for(cast, lambda status: status.playback_rate == 1.5)
    report["rate"] = media_of(cast)
    cast.disconnect(timeout=5)
    print(json.dumps(report))


def served(host: str, port: int, url: str) -> None:
    """Plays a URL our media server serves (100 s long, by its metadata),
    then seeks to its middle: the emulator fetches both parts from the server."""
    cast = connect(host, port)
    controller = cast.media_controller
    controller.play_media(url, "video/mp4", title="Served", media_info={"duration": 100})
    controller.block_until_active(timeout=10)
    wait_for(cast, lambda status: status.player_state == "PLAYING")
    report = {"playing": media_of(cast)}
    controller.seek(50)
    wait_for(cast, lambda status: status.player_state == "PLAYING" and abs(status.current_time - 50) < 0.5)
    report["seeked"] = media_of(cast)
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


def details(host: str) -> None:
    from pychromecast import dial

    status = dial.get_device_info(host, timeout=10)
    if status is None:
        print(json.dumps(None))
        return
    print(json.dumps({
        "friendly_name": status.friendly_name,
        "model_name": status.model_name,
        "manufacturer": status.manufacturer,
        "uuid": str(status.uuid) if status.uuid else None,
        "cast_type": status.cast_type,
        "multizone_supported": status.multizone_supported,
    }))


def main() -> None:
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    serialize_tls_socket_use()
    if mode != "measure":  # a failing test shows pychromecast's own log; timings stay unlogged
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    if mode == "interop":
        interop(host, port)
    elif mode == "media":
        media(host, port)
    elif mode == "served":
        served(host, port, sys.argv[4])
    elif mode == "measure":
        measure(host, port, int(sys.argv[4]))
    elif mode == "details":
        details(host)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
