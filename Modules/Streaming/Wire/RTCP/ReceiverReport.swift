/// RR (PT 201, RFC 3550 §6.4.2): the receiver's SSRC and at most one report
/// block, what it saw of the sender.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  RC=0/1 |    PT=201     |         length=1 or 7         |  header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |  body 0
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 SSRC_1 (SSRC of first source)                 |  body 4
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |  body 8
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |  body 12
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |  body 16
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |  body 20
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |  body 24
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
@_spi(Receiver) public struct ReceiverReport: Sendable, Hashable {
    @_spi(Receiver) public var ssrc: UInt32
    @_spi(Receiver) public var block: ReportBlock?

    @_spi(Receiver) public init(ssrc: UInt32, block: ReportBlock?) {
        self.ssrc = ssrc
        self.block = block
    }

    /// The report in `body`, with the first of its `count` report blocks;
    /// `nil` when the body is shorter than its count says.
    init?(body: UnsafeRawBufferPointer, count: UInt8) {
        guard body.count >= 4 + 24 * Int(count) else { return nil }
        self.init(
            ssrc: rtcpLoad32(body, 0),
            block: count == 0
                ? nil
                : ReportBlock(
                    sourceSSRC: rtcpLoad32(body, 4), fractionLost: body[8],
                    cumulativeLost: rtcpLoad32(body, 8) & 0xFF_FFFF, extendedHighestSequence: rtcpLoad32(body, 12),
                    jitter: rtcpLoad32(body, 16), lastSenderReport: rtcpLoad32(body, 20),
                    delaySinceLastSenderReport: rtcpLoad32(body, 24)))
    }
}

/// A report block of an RR: what the receiver saw of one sender.
@_spi(Receiver) public struct ReportBlock: Sendable, Hashable {
    /// The sender's SSRC.
    @_spi(Receiver) public var sourceSSRC: UInt32
    @_spi(Receiver) public var fractionLost: UInt8
    /// 24 bits.
    @_spi(Receiver) public var cumulativeLost: UInt32
    @_spi(Receiver) public var extendedHighestSequence: UInt32
    @_spi(Receiver) public var jitter: UInt32
    /// The middle 32 bits of the last SR's NTP time (LSR).
    @_spi(Receiver) public var lastSenderReport: UInt32
    /// Time since that SR arrived, 1/65536 s (DLSR).
    @_spi(Receiver) public var delaySinceLastSenderReport: UInt32

    @_spi(Receiver) public init(
        sourceSSRC: UInt32, fractionLost: UInt8 = 0, cumulativeLost: UInt32 = 0, extendedHighestSequence: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.sourceSSRC = sourceSSRC
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost & 0xFF_FFFF
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

extension RTCPWriter {
    @_spi(Receiver) public static func appendReceiverReport(ssrc: UInt32, block: ReportBlock?, to bytes: inout [UInt8])
    {
        appendHeader(
            count: block == nil ? 0 : 1, type: RTCPPacketType.receiverReport, bodyBytes: block == nil ? 4 : 28,
            to: &bytes)
        append32(ssrc, to: &bytes)
        guard let block else { return }
        append32(block.sourceSSRC, to: &bytes)
        append32(UInt32(block.fractionLost) << 24 | block.cumulativeLost & 0xFF_FFFF, to: &bytes)
        append32(block.extendedHighestSequence, to: &bytes)
        append32(block.jitter, to: &bytes)
        append32(block.lastSenderReport, to: &bytes)
        append32(block.delaySinceLastSenderReport, to: &bytes)
    }
}
