/// One compound RTCP packet, as far as Cast Streaming reads it: at most one
/// of each kind (a receiver sends one compound per stream; a later packet
/// of a kind replaces an earlier one). APP and unknown packets are skipped.
/// Each kind's layout and reader are in its own file (``SenderReport``,
/// ``ReceiverReport``, ``ReceiverReferenceTime``, ``PictureLossIndication``,
/// ``CastFeedback``).
@_spi(Receiver) public struct RTCPCompound: Sendable, Hashable {
    @_spi(Receiver) public var senderReport: SenderReport?
    @_spi(Receiver) public var receiverReport: ReceiverReport?
    /// XR receiver reference time (block type 4): the receiver's NTP clock.
    @_spi(Receiver) public var receiverReferenceTime: UInt64?
    /// The SSRC of the XR that carried ``receiverReferenceTime``.
    @_spi(Receiver) public var receiverReferenceTimeAuthor: UInt32?
    /// PLI: the media SSRC whose key frame the receiver asks for.
    @_spi(Receiver) public var pictureLossSSRC: UInt32?
    @_spi(Receiver) public var castFeedback: CastFeedback?

    /// The SSRC of whoever wrote the compound packet: the sender SSRC of its
    /// first packet, which is what Open Screen's sender_packet_router.cc:103,
    /// :113 routes RTCP by.
    @_spi(Receiver) public var authorSSRC: UInt32?

    @_spi(Receiver) public init() {}

    /// Parses a compound packet. Returns `nil` — drop the whole datagram —
    /// when any header is malformed or a packet runs past the end; packets
    /// of unknown type (APP receiver logs among them) are skipped.
    @_spi(Receiver) public static func parse(_ bytes: UnsafeRawBufferPointer) -> RTCPCompound? {
        var compound = RTCPCompound()
        return parse(bytes, into: &compound) ? compound : nil
    }

    /// Parses a compound packet into `compound`, replacing all it held, and
    /// returns whether it was well formed (as ``parse(_:)``). The cast
    /// feedback's loss list and ACK bits reuse the storage of the previous
    /// packet's, so a sender parsing every datagram into one value
    /// allocates nothing per packet.
    @_spi(Receiver) public static func parse(_ bytes: UnsafeRawBufferPointer, into compound: inout RTCPCompound) -> Bool
    {
        var feedback = compound.castFeedback.take()
        compound = RTCPCompound()
        var offset = 0
        guard bytes.count >= 4 else { return false }
        while offset < bytes.count {
            // The common header (RTCPHeader.swift).
            guard bytes.count - offset >= 4, bytes[offset] & 0xC0 == 0x80 else { return false }
            let count = bytes[offset] & 0x1F
            let type = bytes[offset + 1]
            let length = (Int(rtcpLoad16(bytes, offset + 2)) + 1) * 4
            guard offset + length <= bytes.count else { return false }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)])
            if offset == 0, body.count >= 4 { compound.authorSSRC = rtcpLoad32(body, 0) }
            switch type {
            case RTCPPacketType.senderReport:
                guard let report = SenderReport(body: body) else { return false }
                compound.senderReport = report
            case RTCPPacketType.receiverReport:
                guard let report = ReceiverReport(body: body, count: count) else { return false }
                compound.receiverReport = report
            case RTCPPacketType.extendedReport:
                if let time = ReceiverReferenceTime.parse(body: body) {
                    compound.receiverReferenceTime = time
                    compound.receiverReferenceTimeAuthor = rtcpLoad32(body, 0)
                }
            case RTCPPacketType.payloadFeedback where count == 1:
                guard let ssrc = PictureLossIndication.mediaSSRC(body: body) else { return false }
                compound.pictureLossSSRC = ssrc
            case RTCPPacketType.payloadFeedback where count == 15:
                var parsed =
                    feedback.take()
                    ?? CastFeedback(receiverSSRC: 0, senderSSRC: 0, checkpointFrameID: 0, playoutDelay: 0)
                guard CastFeedback.parse(body: body, into: &parsed) else { return false }
                compound.castFeedback = parsed
            default:
                break
            }
            offset += length
        }
        return true
    }
}
