@_spi(Receiver) import CastStreaming
import Foundation

/// RTCP from a receiver, on the sender: the compound parser, then the engine
/// applying it (ACKs, NACKs, PLI, RTT) with frames in flight on both streams.
func fuzzRTCP(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { RTCPCompound.parse($0) }
    let key = StreamKey(key: Array(repeating: 1, count: 16), ivMask: Array(repeating: 2, count: 16))!
    let start = HostTime(nanoseconds: 1_000_000_000)
    guard
        let engine = try? SenderEngine(
            streams: [
                StreamParameters(
                    kind: .audio, ssrc: 11, receiverSSRC: 12, payloadType: 127, rtpTimebase: 48_000, key: key),
                StreamParameters(
                    kind: .video, ssrc: 500_001, receiverSSRC: 500_002, payloadType: 96, rtpTimebase: 90_000, key: key),
            ], epoch: start, playoutDelay: .milliseconds(400), bitrate: nil, transmit: { _ in })
    else { return }
    let frame = [UInt8](repeating: 7, count: 4_000)
    for index in 0..<3 {
        for kind in [MediaKind.audio, .video] {
            _ = try? frame.withUnsafeBytes { frameBytes in
                try engine.enqueue(
                    frameBytes, kind: kind, isKeyFrame: index == 0,
                    captureTime: start.advanced(by: .milliseconds(33 * index)),
                    now: start.advanced(by: .milliseconds(33 * index)))
            }
        }
    }
    bytes.withUnsafeBytes { engine.handleFeedback($0, arrival: start.advanced(by: .milliseconds(120))) }
    _ = engine.tick(at: start.advanced(by: .milliseconds(200)))
}
