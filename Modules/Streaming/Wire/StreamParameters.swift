/// Audio or video.
@_spi(Receiver) public enum MediaKind: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case audio = 0
    case video = 1

    @_spi(Receiver) public var description: String { self == .audio ? "audio" : "video" }

    /// The RTP payload type Chrome always offers (Docs/spec/cast-streaming.md §1).
    @_spi(Receiver) public var payloadType: UInt8 { self == .audio ? 127 : 96 }
}

/// What both ends agreed for one stream: the OFFER's side (SSRC, key,
/// RTP clock) and the ANSWER's (the receiver's SSRC).
@_spi(Receiver) public struct StreamParameters: Sendable, Hashable {
    @_spi(Receiver) public var kind: MediaKind
    @_spi(Receiver) public var ssrc: UInt32
    /// The receiver's own SSRC in its RTCP for this stream.
    @_spi(Receiver) public var receiverSSRC: UInt32
    @_spi(Receiver) public var payloadType: UInt8
    /// RTP clock rate: 90 kHz video, the sample rate for audio.
    @_spi(Receiver) public var rtpTimebase: Int
    @_spi(Receiver) public var key: StreamKey
    /// The largest RTP packet: ``RTPPacketHeader/maximumPacketSize``, or
    /// ``RTPPacketHeader/maximumIPv6PacketSize`` on an IPv6 path.
    @_spi(Receiver) public var maximumPacketSize = RTPPacketHeader.maximumPacketSize

    /// Payload bytes per packet.
    @_spi(Receiver) public var maximumPayloadSize: Int { self.maximumPacketSize - RTPPacketHeader.reservedHeaderSize }

    @_spi(Receiver) public init(
        kind: MediaKind, ssrc: UInt32, receiverSSRC: UInt32, payloadType: UInt8, rtpTimebase: Int, key: StreamKey
    ) {
        self.kind = kind
        self.ssrc = ssrc
        self.receiverSSRC = receiverSSRC
        self.payloadType = payloadType
        self.rtpTimebase = rtpTimebase
        self.key = key
    }

    /// The RTP timestamp of `time`: ticks of the stream's clock since `epoch`, low 32 bits.
    @_spi(Receiver) public func rtpTimestamp(of time: HostTime, epoch: HostTime) -> UInt32 {
        let nanoseconds = epoch.duration(to: time).inNanoseconds
        let ticks = nanoseconds.multipliedFullWidth(by: Int64(self.rtpTimebase))
        let (quotient, _) = Int64(1_000_000_000).dividingFullWidth(ticks)
        return UInt32(truncatingIfNeeded: quotient)
    }
}
