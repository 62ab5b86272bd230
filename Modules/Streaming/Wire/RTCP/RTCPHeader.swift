/// The header every RTCP packet starts with (RFC 3550 §6.1), the packet
/// types Cast Streaming uses (Docs/spec/cast-streaming.md §4), and the
/// big-endian reads and writes of the packet files beside this one.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  count  |      PT       |             length            |  0
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// `count` is the report count (SR, RR) or feedback message type (FMT,
/// PSFB); `length` is the packet's size in 32-bit words minus one.
@_spi(Receiver) public enum RTCPPacketType {
    static let senderReport: UInt8 = 200
    static let receiverReport: UInt8 = 201
    static let application: UInt8 = 204
    static let payloadFeedback: UInt8 = 206
    static let extendedReport: UInt8 = 207

    /// Whether a datagram on the shared media port is RTCP rather than RTP
    /// (RFC 5761 §4: second byte 192…223).
    @_spi(Receiver) public static func isRTCP(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 8 && datagram[0] & 0xC0 == 0x80 && (192...223).contains(datagram[1])
    }
}

/// Writes RTCP packets by appending to a byte array (reuse one with
/// `removeAll(keepingCapacity:)` to write without allocating). Each packet's
/// writer is in that packet's file.
@_spi(Receiver) public enum RTCPWriter {
    /// Appends the common header of a packet whose body (after the header) is `bodyBytes` long.
    static func appendHeader(count: UInt8, type: UInt8, bodyBytes: Int, to bytes: inout [UInt8]) {
        bytes.append(0x80 | count)
        bytes.append(type)
        append16(UInt16((bodyBytes + 4) / 4 - 1), to: &bytes)
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        append16(UInt16(value >> 16), to: &bytes)
        append16(UInt16(truncatingIfNeeded: value), to: &bytes)
    }
}

/// The big-endian 16 bits at `offset`.
func rtcpLoad16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
}

/// The big-endian 32 bits at `offset`.
func rtcpLoad32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(rtcpLoad16(bytes, offset)) << 16 | UInt32(rtcpLoad16(bytes, offset + 2))
}
