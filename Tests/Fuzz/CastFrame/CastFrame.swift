@_spi(Receiver) import CastTransport
import Foundation
import NIOCore

/// Length-prefixed Cast frames as they arrive on the TLS stream: every
/// message the framer finds, its protobuf decoded, its connection and
/// heartbeat JSON read, until the bytes run out or are refused.
func fuzzCastFrame(_ bytes: [UInt8]) {
    var buffer = ByteBuffer(bytes: bytes)
    for _ in 0..<64 {
        guard let message = try? CastMessageFramer.nextMessage(from: &buffer) else { return }
        if let text = message.text {
            _ = ConnectionMessage(text: text)
            _ = HeartbeatMessage(text: text)
        }
    }
}
