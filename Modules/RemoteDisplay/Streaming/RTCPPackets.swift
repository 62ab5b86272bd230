/// The RTCP packets Cast Streaming uses (Docs/spec/cast-streaming.md §4),
/// as values, with their writers and one tolerant parser.

/// SR (PT 200): a stream's (NTP, RTP) time pair and its counters.
package struct SenderReport: Sendable, Hashable {
    package var ssrc: UInt32
    package var ntpTimestamp: UInt64
    package var rtpTimestamp: UInt32
    package var packetCount: UInt32
    package var octetCount: UInt32

    package init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
    }
}

/// A report block of an RR: what the receiver saw of one sender.
package struct ReportBlock: Sendable, Hashable {
    /// The sender's SSRC.
    package var sourceSSRC: UInt32
    package var fractionLost: UInt8
    /// 24 bits.
    package var cumulativeLost: UInt32
    package var extendedHighestSequence: UInt32
    package var jitter: UInt32
    /// The middle 32 bits of the last SR's NTP time (LSR).
    package var lastSenderReport: UInt32
    /// Time since that SR arrived, 1/65536 s (DLSR).
    package var delaySinceLastSenderReport: UInt32

    package init(
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

/// RR (PT 201): the receiver's SSRC and at most one report block.
package struct ReceiverReport: Sendable, Hashable {
    package var ssrc: UInt32
    package var block: ReportBlock?

    package init(ssrc: UInt32, block: ReportBlock?) {
        self.ssrc = ssrc
        self.block = block
    }
}

/// One NACK entry of a Cast feedback packet: packet `packetID` of frame
/// `frameID` is missing, and so is `packetID + 1 + j` for each set bit `j`
/// of `bitmask`. Packet id 0xFFFF means the whole frame.
package struct LossField: Sendable, Hashable {
    package var frameID: UInt8
    package var packetID: UInt16
    package var bitmask: UInt8

    /// The packet id that names every packet of a frame.
    package static let wholeFrame: UInt16 = 0xFFFF

    package init(frameID: UInt8, packetID: UInt16, bitmask: UInt8 = 0) {
        self.frameID = frameID
        self.packetID = packetID
        self.bitmask = bitmask
    }
}

/// Cast feedback (PT 206, FMT 15): the receiver's checkpoint, NACKs, and
/// (CST2) the frames it has complete beyond the checkpoint.
package struct CastFeedback: Sendable, Hashable {
    package var receiverSSRC: UInt32
    package var senderSSRC: UInt32
    /// Low 8 bits of the last frame id up to which every frame is complete.
    package var checkpointFrameID: UInt8
    /// The receiver's current playout delay, milliseconds.
    package var playoutDelay: UInt16
    package var lossFields: [LossField]
    /// CST2's wrapping feedback counter; `nil` when there is no CST2 block.
    package var feedbackCount: UInt8?
    /// CST2 bit vector: bit j of octet i ACKs frame checkpoint + 2 + 8i + j.
    package var ackBits: [UInt8]

    package init(
        receiverSSRC: UInt32, senderSSRC: UInt32, checkpointFrameID: UInt8, playoutDelay: UInt16,
        lossFields: [LossField] = [], feedbackCount: UInt8? = nil, ackBits: [UInt8] = []
    ) {
        self.receiverSSRC = receiverSSRC
        self.senderSSRC = senderSSRC
        self.checkpointFrameID = checkpointFrameID
        self.playoutDelay = playoutDelay
        self.lossFields = lossFields
        self.feedbackCount = feedbackCount
        self.ackBits = ackBits
    }
}

/// One compound RTCP packet, as far as Cast Streaming reads it: at most one
/// of each kind (a receiver sends one compound per stream; a later packet
/// of a kind replaces an earlier one). APP and unknown packets are skipped.
package struct RTCPCompound: Sendable, Hashable {
    package var senderReport: SenderReport?
    package var receiverReport: ReceiverReport?
    /// XR receiver reference time (block type 4): the receiver's NTP clock.
    package var receiverReferenceTime: UInt64?
    /// The SSRC of the XR that carried ``receiverReferenceTime``.
    package var receiverReferenceTimeAuthor: UInt32?
    /// PLI: the media SSRC whose key frame the receiver asks for.
    package var pictureLossSSRC: UInt32?
    package var castFeedback: CastFeedback?

    /// The SSRC of whoever wrote the compound packet: the sender SSRC of its
    /// first packet, which is what Open Screen's sender_packet_router.cc:103,
    /// :113 routes RTCP by.
    package var authorSSRC: UInt32?

    package init() {}
}

/// Packet types.
package enum RTCPPacketType {
    static let senderReport: UInt8 = 200
    static let receiverReport: UInt8 = 201
    static let application: UInt8 = 204
    static let payloadFeedback: UInt8 = 206
    static let extendedReport: UInt8 = 207

    /// Whether a datagram on the shared media port is RTCP rather than RTP
    /// (RFC 5761 §4: second byte 192…223).
    package static func isRTCP(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 8 && datagram[0] & 0xC0 == 0x80 && (192...223).contains(datagram[1])
    }
}

private let castIdentifier: UInt32 = 0x4341_5354  // "CAST"
private let cst2Identifier: UInt32 = 0x4353_5432  // "CST2"

extension RTCPCompound {
    /// Parses a compound packet. Returns `nil` — drop the whole datagram —
    /// when any header is malformed or a packet runs past the end; packets
    /// of unknown type (APP receiver logs among them) are skipped.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> RTCPCompound? {
        var compound = RTCPCompound()
        return parse(bytes, into: &compound) ? compound : nil
    }

    /// Parses a compound packet into `compound`, replacing all it held, and
    /// returns whether it was well formed (as ``parse(_:)``). The cast
    /// feedback's loss list and ACK bits reuse the storage of the previous
    /// packet's, so a sender parsing every datagram into one value
    /// allocates nothing per packet.
    package static func parse(_ bytes: UnsafeRawBufferPointer, into compound: inout RTCPCompound) -> Bool {
        var feedback = compound.castFeedback.take()
        compound = RTCPCompound()
        var offset = 0
        guard bytes.count >= 4 else { return false }
        while offset < bytes.count {
            guard bytes.count - offset >= 4, bytes[offset] & 0xC0 == 0x80 else { return false }
            let count = bytes[offset] & 0x1F
            let type = bytes[offset + 1]
            let length = (Int(load16(bytes, offset + 2)) + 1) * 4
            guard offset + length <= bytes.count else { return false }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)])
            if offset == 0, body.count >= 4 { compound.authorSSRC = load32(body, 0) }
            switch type {
            case RTCPPacketType.senderReport:
                guard body.count >= 24 else { return false }
                compound.senderReport = SenderReport(
                    ssrc: load32(body, 0), ntpTimestamp: UInt64(load32(body, 4)) << 32 | UInt64(load32(body, 8)),
                    rtpTimestamp: load32(body, 12), packetCount: load32(body, 16), octetCount: load32(body, 20))
            case RTCPPacketType.receiverReport:
                guard body.count >= 4 + 24 * Int(count) else { return false }
                compound.receiverReport = ReceiverReport(
                    ssrc: load32(body, 0),
                    block: count == 0
                        ? nil
                        : ReportBlock(
                            sourceSSRC: load32(body, 4), fractionLost: body[8],
                            cumulativeLost: load32(body, 8) & 0xFF_FFFF, extendedHighestSequence: load32(body, 12),
                            jitter: load32(body, 16), lastSenderReport: load32(body, 20),
                            delaySinceLastSenderReport: load32(body, 24)))
            case RTCPPacketType.extendedReport:
                if let time = Self.referenceTime(inExtendedReport: body) {
                    compound.receiverReferenceTime = time
                    compound.receiverReferenceTimeAuthor = load32(body, 0)
                }
            case RTCPPacketType.payloadFeedback where count == 1:
                guard body.count >= 8 else { return false }
                compound.pictureLossSSRC = load32(body, 4)
            case RTCPPacketType.payloadFeedback where count == 15:
                var parsed =
                    feedback.take()
                    ?? CastFeedback(receiverSSRC: 0, senderSSRC: 0, checkpointFrameID: 0, playoutDelay: 0)
                guard Self.castFeedback(body, into: &parsed) else { return false }
                compound.castFeedback = parsed
            default:
                break
            }
            offset += length
        }
        return true
    }

    private static func referenceTime(inExtendedReport body: UnsafeRawBufferPointer) -> UInt64? {
        var offset = 4
        var found: UInt64?
        while body.count - offset >= 4 {
            let blockType = body[offset]
            let blockLength = (Int(load16(body, offset + 2)) + 1) * 4
            guard offset + blockLength <= body.count else { return found }
            if blockType == 4, blockLength == 12 {
                found = UInt64(load32(body, offset + 4)) << 32 | UInt64(load32(body, offset + 8))
            }
            offset += blockLength
        }
        return found
    }

    /// Reads a cast feedback packet into `feedback`, its arrays emptied
    /// with their capacity kept; `false` when malformed.
    private static func castFeedback(_ body: UnsafeRawBufferPointer, into feedback: inout CastFeedback) -> Bool {
        guard body.count >= 16, load32(body, 8) == castIdentifier else { return false }
        let lossCount = Int(body[13])
        guard body.count >= 16 + 4 * lossCount else { return false }
        feedback.receiverSSRC = load32(body, 0)
        feedback.senderSSRC = load32(body, 4)
        feedback.checkpointFrameID = body[12]
        feedback.playoutDelay = load16(body, 14)
        feedback.feedbackCount = nil
        feedback.lossFields.removeAll(keepingCapacity: true)
        feedback.ackBits.removeAll(keepingCapacity: true)
        for index in 0..<lossCount {
            let field = 16 + 4 * index
            feedback.lossFields.append(
                LossField(frameID: body[field], packetID: load16(body, field + 1), bitmask: body[field + 3]))
        }
        let extended = 16 + 4 * lossCount
        if body.count >= extended + 6, load32(body, extended) == cst2Identifier {
            let octets = Int(body[extended + 5])
            guard body.count >= extended + 6 + octets else { return false }
            feedback.feedbackCount = body[extended + 4]
            feedback.ackBits.append(contentsOf: body[(extended + 6)..<(extended + 6 + octets)])
        }
        return true
    }
}

/// Writes RTCP packets by appending to a byte array (reuse one with
/// `removeAll(keepingCapacity:)` to write without allocating).
package enum RTCPWriter {
    package static func appendSenderReport(_ report: SenderReport, to bytes: inout [UInt8]) {
        appendHeader(count: 0, type: RTCPPacketType.senderReport, bodyBytes: 24, to: &bytes)
        append32(report.ssrc, to: &bytes)
        append32(UInt32(truncatingIfNeeded: report.ntpTimestamp >> 32), to: &bytes)
        append32(UInt32(truncatingIfNeeded: report.ntpTimestamp), to: &bytes)
        append32(report.rtpTimestamp, to: &bytes)
        append32(report.packetCount, to: &bytes)
        append32(report.octetCount, to: &bytes)
    }

    package static func appendReceiverReport(ssrc: UInt32, block: ReportBlock?, to bytes: inout [UInt8]) {
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

    package static func appendReceiverReferenceTime(ssrc: UInt32, ntp: UInt64, to bytes: inout [UInt8]) {
        appendHeader(count: 0, type: RTCPPacketType.extendedReport, bodyBytes: 16, to: &bytes)
        append32(ssrc, to: &bytes)
        append32(0x0400_0002, to: &bytes)  // block type 4, reserved, length 2 words
        append32(UInt32(truncatingIfNeeded: ntp >> 32), to: &bytes)
        append32(UInt32(truncatingIfNeeded: ntp), to: &bytes)
    }

    package static func appendPictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32, to bytes: inout [UInt8]) {
        appendHeader(count: 1, type: RTCPPacketType.payloadFeedback, bodyBytes: 8, to: &bytes)
        append32(senderSSRC, to: &bytes)
        append32(mediaSSRC, to: &bytes)
    }

    /// Appends Cast feedback; more than 255 loss fields are cut to 255, and
    /// the ACK vector is padded to CST2's sizes (2, 6, 10… ≤ 254 octets).
    package static func appendCastFeedback(_ feedback: CastFeedback, to bytes: inout [UInt8]) {
        let losses = feedback.lossFields.prefix(255)
        var ackOctets = 0
        if feedback.feedbackCount != nil {
            ackOctets = min(max(2, feedback.ackBits.count), 254)
            ackOctets += (4 - (ackOctets + 2) % 4) % 4
            ackOctets = min(ackOctets, 254)
        }
        let cst2Bytes = feedback.feedbackCount == nil ? 0 : 6 + ackOctets
        appendHeader(
            count: 15, type: RTCPPacketType.payloadFeedback, bodyBytes: 16 + 4 * losses.count + cst2Bytes, to: &bytes)
        append32(feedback.receiverSSRC, to: &bytes)
        append32(feedback.senderSSRC, to: &bytes)
        append32(castIdentifier, to: &bytes)
        bytes.append(feedback.checkpointFrameID)
        bytes.append(UInt8(losses.count))
        append16(feedback.playoutDelay, to: &bytes)
        for loss in losses {
            bytes.append(loss.frameID)
            append16(loss.packetID, to: &bytes)
            bytes.append(loss.bitmask)
        }
        guard let count = feedback.feedbackCount else { return }
        append32(cst2Identifier, to: &bytes)
        bytes.append(count)
        bytes.append(UInt8(ackOctets))
        for index in 0..<ackOctets {
            bytes.append(index < feedback.ackBits.count ? feedback.ackBits[index] : 0)
        }
    }

    private static func appendHeader(count: UInt8, type: UInt8, bodyBytes: Int, to bytes: inout [UInt8]) {
        bytes.append(0x80 | count)
        bytes.append(type)
        append16(UInt16((bodyBytes + 4) / 4 - 1), to: &bytes)
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        append16(UInt16(value >> 16), to: &bytes)
        append16(UInt16(truncatingIfNeeded: value), to: &bytes)
    }
}

private func load16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
}

private func load32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(load16(bytes, offset)) << 16 | UInt32(load16(bytes, offset + 2))
}
