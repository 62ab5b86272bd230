/// Cast feedback (PT 206, FMT 15; Docs/spec/cast-streaming.md §4, Open
/// Screen `cast/streaming/rtcp_common.h`): the receiver's checkpoint, its
/// NACKs, and (CST2) the frames it has complete beyond the checkpoint.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |    PT=206     |             length            |  header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         receiver SSRC                         |  body 0
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                          sender SSRC                          |  body 4
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      'C' 'A' 'S' 'T'                          |  body 8
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | checkpoint id | loss count N  |   playout delay (ms)          |  body 12
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   frame id    |           packet id           |    bitmask    |  body 16 + 4i, N times
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      'C' 'S' 'T' '2'                          |  optional
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | feedback count| ACK octets M  |  ACK bit vector, M octets ... |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
@_spi(Receiver) public struct CastFeedback: Sendable, Hashable {
    @_spi(Receiver) public var receiverSSRC: UInt32
    @_spi(Receiver) public var senderSSRC: UInt32
    /// Low 8 bits of the last frame id up to which every frame is complete.
    @_spi(Receiver) public var checkpointFrameID: UInt8
    /// The receiver's current playout delay, milliseconds.
    @_spi(Receiver) public var playoutDelay: UInt16
    @_spi(Receiver) public var lossFields: [LossField]
    /// CST2's wrapping feedback counter; `nil` when there is no CST2 block.
    @_spi(Receiver) public var feedbackCount: UInt8?
    /// CST2 bit vector: bit j of octet i ACKs frame checkpoint + 2 + 8i + j.
    @_spi(Receiver) public var ackBits: [UInt8]

    @_spi(Receiver) public init(
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

    static let castIdentifier: UInt32 = 0x4341_5354  // "CAST"
    static let cst2Identifier: UInt32 = 0x4353_5432  // "CST2"

    /// Reads the feedback in `body` into `feedback`, its arrays emptied
    /// with their capacity kept; `false` when malformed.
    static func parse(body: UnsafeRawBufferPointer, into feedback: inout CastFeedback) -> Bool {
        guard body.count >= 16, rtcpLoad32(body, 8) == Self.castIdentifier else { return false }
        let lossCount = Int(body[13])
        guard body.count >= 16 + 4 * lossCount else { return false }
        feedback.receiverSSRC = rtcpLoad32(body, 0)
        feedback.senderSSRC = rtcpLoad32(body, 4)
        feedback.checkpointFrameID = body[12]
        feedback.playoutDelay = rtcpLoad16(body, 14)
        feedback.feedbackCount = nil
        feedback.lossFields.removeAll(keepingCapacity: true)
        feedback.ackBits.removeAll(keepingCapacity: true)
        for index in 0..<lossCount {
            let field = 16 + 4 * index
            feedback.lossFields.append(
                LossField(frameID: body[field], packetID: rtcpLoad16(body, field + 1), bitmask: body[field + 3]))
        }
        let extended = 16 + 4 * lossCount
        if body.count >= extended + 6, rtcpLoad32(body, extended) == Self.cst2Identifier {
            let octets = Int(body[extended + 5])
            guard body.count >= extended + 6 + octets else { return false }
            feedback.feedbackCount = body[extended + 4]
            feedback.ackBits.append(contentsOf: body[(extended + 6)..<(extended + 6 + octets)])
        }
        return true
    }
}

/// One NACK entry of a Cast feedback packet: packet `packetID` of frame
/// `frameID` is missing, and so is `packetID + 1 + j` for each set bit `j`
/// of `bitmask`. Packet id 0xFFFF means the whole frame.
@_spi(Receiver) public struct LossField: Sendable, Hashable {
    @_spi(Receiver) public var frameID: UInt8
    @_spi(Receiver) public var packetID: UInt16
    @_spi(Receiver) public var bitmask: UInt8

    /// The packet id that names every packet of a frame.
    @_spi(Receiver) public static let wholeFrame: UInt16 = 0xFFFF

    @_spi(Receiver) public init(frameID: UInt8, packetID: UInt16, bitmask: UInt8 = 0) {
        self.frameID = frameID
        self.packetID = packetID
        self.bitmask = bitmask
    }
}

extension RTCPWriter {
    /// Appends Cast feedback; more than 255 loss fields are cut to 255, and
    /// the ACK vector is padded to CST2's sizes (2, 6, 10… ≤ 254 octets).
    @_spi(Receiver) public static func appendCastFeedback(_ feedback: CastFeedback, to bytes: inout [UInt8]) {
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
        append32(CastFeedback.castIdentifier, to: &bytes)
        bytes.append(feedback.checkpointFrameID)
        bytes.append(UInt8(losses.count))
        append16(feedback.playoutDelay, to: &bytes)
        for loss in losses {
            bytes.append(loss.frameID)
            append16(loss.packetID, to: &bytes)
            bytes.append(loss.bitmask)
        }
        guard let count = feedback.feedbackCount else { return }
        append32(CastFeedback.cst2Identifier, to: &bytes)
        bytes.append(count)
        bytes.append(UInt8(ackOctets))
        for index in 0..<ackOctets {
            bytes.append(index < feedback.ackBits.count ? feedback.ackBits[index] : 0)
        }
    }
}
