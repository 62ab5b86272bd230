import CastEmulator
@_spi(Receiver) import CastStreaming
import Foundation

/// RTP and RTCP from a sender, on the emulator's receiving side: several
/// datagrams per input, each after its 2-byte big-endian length, parsed,
/// reassembled into frames, decrypted and checkpointed, 10 ms apart, with
/// the feedback written after each.
func fuzzRTP(_ bytes: [UInt8]) {
    let key = StreamKey(key: Array(repeating: 1, count: 16), ivMask: Array(repeating: 2, count: 16))!
    guard
        let stream = try? ReceiverStream(
            kind: .video, senderSSRC: 500_001, payloadType: 96, timebase: 90_000, key: key, channels: 2,
            playoutDelay: .milliseconds(400), decodes: false, reference: nil)
    else { return }
    var now = HostTime(nanoseconds: 5_000_000_000)
    var offset = 0
    var feedback: [UInt8] = []
    while offset + 2 <= bytes.count {
        let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        let datagram = Array(bytes[(offset + 2)..<min(bytes.count, offset + 2 + length)])
        offset += 2 + length
        datagram.withUnsafeBytes { raw in
            if RTCPPacketType.isRTCP(raw) {
                if let report = RTCPCompound.parse(raw)?.senderReport, report.ssrc == stream.senderSSRC {
                    stream.receive(report, at: now)
                }
            } else if let (header, payloadOffset) = RTPPacketHeader.parse(raw), header.ssrc == stream.senderSSRC {
                _ = stream.receive(header, payload: datagram[payloadOffset...], at: now)
            }
        }
        now = now.advanced(by: .milliseconds(10))
        stream.advance(at: now)
        feedback.removeAll(keepingCapacity: true)
        stream.writeFeedback(at: now, into: &feedback)
    }
    _ = stream.currentReport
}
