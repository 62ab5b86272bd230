/// SR (PT 200, RFC 3550 §6.4.1): a stream's (NTP, RTP) time pair and its
/// counters. Cast senders send no report blocks.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|   RC=0  |    PT=200     |           length=6            |  header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         SSRC of sender                        |  body 0
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |              NTP timestamp, most significant word             |  body 4
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             NTP timestamp, least significant word             |  body 8
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP timestamp                         |  body 12
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     sender's packet count                     |  body 16
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      sender's octet count                     |  body 20
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
@_spi(Receiver) public struct SenderReport: Sendable, Hashable {
    @_spi(Receiver) public var ssrc: UInt32
    @_spi(Receiver) public var ntpTimestamp: UInt64
    @_spi(Receiver) public var rtpTimestamp: UInt32
    @_spi(Receiver) public var packetCount: UInt32
    @_spi(Receiver) public var octetCount: UInt32

    @_spi(Receiver) public init(
        ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
    }

    /// The report in `body` (the packet after its header); `nil` when it is too short.
    init?(body: UnsafeRawBufferPointer) {
        guard body.count >= 24 else { return nil }
        self.init(
            ssrc: rtcpLoad32(body, 0), ntpTimestamp: UInt64(rtcpLoad32(body, 4)) << 32 | UInt64(rtcpLoad32(body, 8)),
            rtpTimestamp: rtcpLoad32(body, 12), packetCount: rtcpLoad32(body, 16), octetCount: rtcpLoad32(body, 20))
    }
}

extension RTCPWriter {
    @_spi(Receiver) public static func appendSenderReport(_ report: SenderReport, to bytes: inout [UInt8]) {
        appendHeader(count: 0, type: RTCPPacketType.senderReport, bodyBytes: 24, to: &bytes)
        append32(report.ssrc, to: &bytes)
        append32(UInt32(truncatingIfNeeded: report.ntpTimestamp >> 32), to: &bytes)
        append32(UInt32(truncatingIfNeeded: report.ntpTimestamp), to: &bytes)
        append32(report.rtpTimestamp, to: &bytes)
        append32(report.packetCount, to: &bytes)
        append32(report.octetCount, to: &bytes)
    }
}
