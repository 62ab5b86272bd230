#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Tests/Fuzz/*/Corpus): real
payloads from Tests/CastKitTests/Conformance and hand-built packets in the
wire formats of Docs/spec. The device-auth seed is written by the target
itself (`cast-fuzz device-auth --seed FILE`, see scripts/fuzz.sh)."""
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "Tests", "Fuzz")
CONFORMANCE = os.path.join(ROOT, "Tests", "CastKitTests", "Conformance")


def write(target, name, data):
    directory = os.path.join(FUZZ, target, "Corpus")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def conformance():
    for name in sorted(os.listdir(CONFORMANCE)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(CONFORMANCE, name)) as f:
            fixture = json.load(f)
        message = fixture.get("payload") or fixture.get("payload_from_python_repr")
        if isinstance(message, dict):
            yield name, fixture.get("type", ""), json.dumps(message, separators=(",", ":"))


def status_json():
    texts = []
    for name, kind, text in conformance():
        if kind != "ANSWER":
            write("StatusJSON", name, text)
            texts.append(text)
    # Merges: LOADING then the failure (040 → 041), several messages per input cut at 0x00.
    by_name = {name: text for name, _, text in conformance()}
    write("StatusJSON", "merge-040-041", by_name["040-media-status-chromecast.json"] + "\0"
          + by_name["041-media-status-chromecast.json"])


def offer_answer():
    for name, kind, text in conformance():
        if kind == "ANSWER":
            write("OfferAnswer", name, text)
    offer = {"type": "OFFER", "seqNum": 1, "offer": {"castMode": "mirroring", "receiverGetStatus": True,
             "supportedStreams": [
                 {"index": 0, "type": "audio_source", "codecName": "opus", "rtpProfile": "cast",
                  "rtpPayloadType": 127, "ssrc": 12087, "targetDelay": 400, "aesKey": "95f15eaf4f26aca3b37211fd5e48da9a",
                  "aesIvMask": "1d14032c7bd53d1ca5fe4750ad635d08", "timeBase": "1/48000", "channels": 2,
                  "bitRate": 128000, "sampleRate": 48000},
                 {"index": 1, "type": "video_source", "codecName": "vp8", "rtpProfile": "cast",
                  "rtpPayloadType": 96, "ssrc": 849271, "targetDelay": 400,
                  "aesKey": "95f15eaf4f26aca3b37211fd5e48da9a", "aesIvMask": "1d14032c7bd53d1ca5fe4750ad635d08",
                  "timeBase": "1/90000", "maxFrameRate": "30000/1000", "maxBitRate": 5000000,
                  "resolutions": [{"width": 1280, "height": 720}]}]}}
    write("OfferAnswer", "offer-chrome-shape.json", json.dumps(offer, separators=(",", ":")))
    # VP9 beside VP8, as Chrome lists them (VP9 first, its codecParameter).
    vp9 = dict(offer["offer"]["supportedStreams"][1], index=1, codecName="vp9", codecParameter="vp09.00.40.08",
               ssrc=849270)
    vp8 = dict(offer["offer"]["supportedStreams"][1], index=2)
    both = {"type": "OFFER", "seqNum": 2, "offer": dict(offer["offer"], supportedStreams=[
        offer["offer"]["supportedStreams"][0], vp9, vp8])}
    write("OfferAnswer", "offer-vp9-and-vp8.json", json.dumps(both, separators=(",", ":")))
    answer = {"type": "ANSWER", "seqNum": 1, "result": "ok", "answer": {
        "udpPort": 2344, "sendIndexes": [0, 1], "ssrcs": [12088, 849272],
        "constraints": {"video": {"maxDimensions": {"width": 1920, "height": 1080, "frameRate": "30"},
                                  "maxPixelsPerSecond": 62208000.0, "maxBitRate": 10000000, "minBitRate": 300000,
                                  "maxDelay": 1500},
                        "audio": {"maxSampleRate": 48000, "maxChannels": 2, "maxBitRate": 256000,
                                  "minBitRate": 32000, "maxDelay": 1500}},
        "display": {"dimensions": {"width": 1024, "height": 768, "frameRate": "30"}, "aspectRatio": "4:3",
                    "scaling": "sender"}}}
    write("OfferAnswer", "answer-open-screen-shape.json", json.dumps(answer, separators=(",", ":")))


def dns_name(name):
    return b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"


def dns_record(name, rtype, data, ttl=120, flush=False):
    rclass = 1 | (0x8000 if flush else 0)
    return dns_name(name) + struct.pack(">HHIH", rtype, rclass, ttl, len(data)) + data


def dns():
    service = "_googlecast._tcp.local"
    instance = "Chromecast-0123456789abcdef0123456789abcdef." + service
    host = "0123456789abcdef.local"
    txt = b"".join(bytes([len(s)]) + s for s in [b"id=0123456789abcdef0123456789abcdef", b"fn=Living Room",
                                                 b"md=Chromecast", b"ca=201221", b"st=0", b"ve=05", b"rs="])
    answers = [dns_record(service, 12, dns_name(instance)),
               dns_record(instance, 33, struct.pack(">HHH", 0, 0, 8009) + dns_name(host), flush=True),
               dns_record(instance, 16, txt, flush=True),
               dns_record(host, 1, bytes([10, 0, 0, 7]), flush=True),
               dns_record(host, 28, bytes.fromhex("fe800000000000000000000000000007"), flush=True)]
    write("DNSMessage", "response-full", struct.pack(">HHHHHH", 0, 0x8400, 0, len(answers), 0, 0) + b"".join(answers))
    query = dns_name(service) + struct.pack(">HH", 12, 1)
    write("DNSMessage", "query-ptr", struct.pack(">HHHHHH", 0, 0, 1, 0, 0, 0) + query)
    spoofed = answers[:3] + [dns_record(host, 1, bytes([0, 0, 0, 0]), flush=True)]
    write("DNSMessage", "response-spoofed", struct.pack(">HHHHHH", 0, 0x8400, 0, 4, 0, 0) + b"".join(spoofed))


def varint(value):
    out = b""
    while True:
        byte = value & 0x7F
        value >>= 7
        out += bytes([byte | (0x80 if value else 0)])
        if not value:
            return out


def field(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def cast_message(namespace, payload, source="receiver-0", destination="sender-0"):
    body = (varint(1 << 3) + varint(0) + field(2, source.encode()) + field(3, destination.encode())
            + field(4, namespace.encode()) + varint(5 << 3) + varint(0) + field(6, payload.encode()))
    return struct.pack(">I", len(body)) + body


def cast_frames():
    write("CastFrame", "ping-pong", cast_message("urn:x-cast:com.google.cast.tp.heartbeat", '{"type":"PING"}')
          + cast_message("urn:x-cast:com.google.cast.tp.heartbeat", '{"type":"PONG"}'))
    write("CastFrame", "close", cast_message("urn:x-cast:com.google.cast.tp.connection", '{"type":"CLOSE"}'))
    for name, kind, text in conformance():
        if kind == "RECEIVER_STATUS":
            write("CastFrame", name, cast_message("urn:x-cast:com.google.cast.receiver", text))
            break


def rtcp_header(count, ptype, body):
    return bytes([0x80 | count, ptype]) + struct.pack(">H", len(body) // 4) + body


def rtcp():
    rr = rtcp_header(1, 201, struct.pack(">I", 500002) + struct.pack(">IIIIII", 500001, 0, 100, 0, 0x12345678, 655))
    xr = rtcp_header(0, 207, struct.pack(">I", 500002) + bytes([4, 0]) + struct.pack(">HII", 2, 0xE0000000, 1))
    cast = struct.pack(">II", 500002, 500001) + b"CAST" + bytes([2, 1]) + struct.pack(">H", 400)
    cast += bytes([3]) + struct.pack(">H", 1) + bytes([0b101])
    cast += b"CST2" + bytes([1, 4, 0b101, 0, 0, 0]) + b"\0\0"
    feedback = rtcp_header(15, 206, cast)
    pli = rtcp_header(1, 206, struct.pack(">II", 500002, 500001))
    write("RTCP", "video-feedback", rr + xr + feedback)
    write("RTCP", "pli", rr + pli)
    audio = rtcp_header(0, 201, struct.pack(">I", 12)) + rtcp_header(
        0, 207, struct.pack(">I", 12) + bytes([4, 0]) + struct.pack(">HII", 2, 0xE0000001, 1))
    write("RTCP", "audio-rr-xr", audio)


def rtp():
    sender_report = rtcp_header(0, 200, struct.pack(">IIIIII", 500001, 0xE0000000, 0, 0, 3, 300))

    def packet(frame, packet_id, count, payload=b"\x11" * 40):
        header = bytes([0x80, (0x80 if packet_id == count - 1 else 0) | 96]) + struct.pack(">HII", packet_id, 0, 500001)
        header += bytes([0xC0, frame]) + struct.pack(">HH", packet_id, count - 1) + bytes([frame])
        return header + payload

    datagrams = [sender_report] + [packet(f, p, 3) for f in range(3) for p in range(3) if (f, p) != (1, 1)]
    write("RTP", "frames-with-a-gap", b"".join(struct.pack(">H", len(d)) + d for d in datagrams))
    write("RTP", "packet-zero-before-report", b"".join(struct.pack(">H", len(d)) + d
                                                        for d in [packet(0, 0, 2), sender_report, packet(0, 1, 2)]))


def media_files():
    width, height = 16, 8
    frame = bytes(range(width * height)) + bytes([128]) * (width * height // 2)
    y4m = f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C420jpeg\n".encode() + (b"FRAME\n" + frame) * 2
    write("MediaFiles", "two-frames.y4m", y4m)
    pcm = struct.pack("<8h", 0, 1000, 2000, 3000, -3000, -2000, -1000, 0)
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(pcm)) + pcm
    write("MediaFiles", "mono-16bit.wav", b"RIFF" + struct.pack("<I", len(body)) + body)
    floats = struct.pack("<4f", 0.0, 0.5, -0.5, 1.0)
    fmt = struct.pack("<HHIIHH", 3, 2, 48000, 384000, 8, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(floats)) + floats
    write("MediaFiles", "stereo-float.wav", b"RIFF" + struct.pack("<I", len(body)) + body)


if __name__ == "__main__":
    media_files()
    status_json()
    offer_answer()
    dns()
    cast_frames()
    rtcp()
    rtp()
