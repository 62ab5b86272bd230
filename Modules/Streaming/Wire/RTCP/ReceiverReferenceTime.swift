/// XR (PT 207, RFC 3611) with a receiver reference time block (BT 4,
/// §4.4): the receiver's NTP clock, from which the sender computes the
/// round trip and the receiver's clock offset.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|reserved |    PT=207     |           length=4            |  header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |  body 0
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     BT=4      |   reserved    |       block length = 2        |  body 4
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |              NTP timestamp, most significant word             |  body 8
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             NTP timestamp, least significant word             |  body 12
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Other blocks may come before or after it; they are skipped.
enum ReceiverReferenceTime {
    /// The NTP time of the last well-formed block of type 4 in the XR
    /// `body`; `nil` when there is none.
    static func parse(body: UnsafeRawBufferPointer) -> UInt64? {
        var offset = 4
        var found: UInt64?
        while body.count - offset >= 4 {
            let blockType = body[offset]
            let blockLength = (Int(rtcpLoad16(body, offset + 2)) + 1) * 4
            guard offset + blockLength <= body.count else { return found }
            if blockType == 4, blockLength == 12 {
                found = UInt64(rtcpLoad32(body, offset + 4)) << 32 | UInt64(rtcpLoad32(body, offset + 8))
            }
            offset += blockLength
        }
        return found
    }
}

extension RTCPWriter {
    @_spi(Receiver) public static func appendReceiverReferenceTime(ssrc: UInt32, ntp: UInt64, to bytes: inout [UInt8]) {
        appendHeader(count: 0, type: RTCPPacketType.extendedReport, bodyBytes: 16, to: &bytes)
        append32(ssrc, to: &bytes)
        append32(0x0400_0002, to: &bytes)  // block type 4, reserved, length 2 words
        append32(UInt32(truncatingIfNeeded: ntp >> 32), to: &bytes)
        append32(UInt32(truncatingIfNeeded: ntp), to: &bytes)
    }
}
