/// The RTP header with Cast Streaming's own header after it
/// (Docs/spec/cast-streaming.md §2): what every media packet starts with.
///
/// ```
/// 0      0x80                      12  K|R|extension count
/// 1      M | payload type          13  frame id (low 8 bits)
/// 2–3    sequence number           14–15 packet id
/// 4–7    RTP timestamp             16–17 max packet id
/// 8–11   sender SSRC               18  reference frame id (low 8 bits)
///                                  19… extensions, then the payload
/// ```
@_spi(Receiver) public struct RTPPacketHeader: Sendable, Hashable {
    /// Set only on the last packet of a frame.
    @_spi(Receiver) public var marker: Bool
    /// 7 bits: 96 video, 127 audio as Chrome sends.
    @_spi(Receiver) public var payloadType: UInt8
    @_spi(Receiver) public var sequenceNumber: UInt16
    @_spi(Receiver) public var rtpTimestamp: UInt32
    @_spi(Receiver) public var ssrc: UInt32
    @_spi(Receiver) public var isKeyFrame: Bool
    /// Low 8 bits of the frame id.
    @_spi(Receiver) public var frameID: UInt8
    @_spi(Receiver) public var packetID: UInt16
    @_spi(Receiver) public var maxPacketID: UInt16
    /// Low 8 bits of the frame this one references (itself for key frames).
    @_spi(Receiver) public var referenceFrameID: UInt8
    /// The adaptive playout delay extension's value, milliseconds.
    @_spi(Receiver) public var playoutDelay: UInt16?

    /// Bytes before the payload without extensions.
    @_spi(Receiver) public static let baseSize = 19
    /// The largest packet, bytes (IPv4 path MTU less IP and UDP headers).
    @_spi(Receiver) public static let maximumPacketSize = 1_472
    /// The largest packet over IPv6, bytes: its header is 20 bytes longer
    /// (Open Screen cast/streaming/public/environment.cc:81-94, rtp_defines.h:39-40).
    @_spi(Receiver) public static let maximumIPv6PacketSize = 1_452
    /// The header bytes Open Screen reserves in every packet: the base header and one 4-byte extension.
    @_spi(Receiver) public static let reservedHeaderSize = 23
    /// Payload bytes per IPv4 packet: the maximum less the reserved header.
    @_spi(Receiver) public static let maximumPayloadSize = maximumPacketSize - reservedHeaderSize
    /// Type of the adaptive playout delay extension.
    static let playoutDelayExtensionType: UInt16 = 1
    /// The most packets one frame may have (0xFFFF is reserved for "whole frame" in NACKs).
    @_spi(Receiver) public static let maximumPacketCount = 0xFFFF

    @_spi(Receiver) public init(
        marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, rtpTimestamp: UInt32, ssrc: UInt32,
        isKeyFrame: Bool, frameID: UInt8, packetID: UInt16, maxPacketID: UInt16, referenceFrameID: UInt8,
        playoutDelay: UInt16? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.rtpTimestamp = rtpTimestamp
        self.ssrc = ssrc
        self.isKeyFrame = isKeyFrame
        self.frameID = frameID
        self.packetID = packetID
        self.maxPacketID = maxPacketID
        self.referenceFrameID = referenceFrameID
        self.playoutDelay = playoutDelay
    }

    /// The header's size in bytes.
    @_spi(Receiver) public var byteCount: Int { Self.baseSize + (self.playoutDelay == nil ? 0 : 4) }

    /// Writes the header at the start of `buffer` (at least ``byteCount``
    /// bytes) and returns its size.
    @discardableResult
    @_spi(Receiver) public func write(to buffer: UnsafeMutableRawPointer) -> Int {
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        bytes[0] = 0x80
        bytes[1] = (self.marker ? 0x80 : 0) | (self.payloadType & 0x7F)
        Self.store(self.sequenceNumber, at: bytes + 2)
        Self.store(self.rtpTimestamp, at: bytes + 4)
        Self.store(self.ssrc, at: bytes + 8)
        let extensionCount: UInt8 = self.playoutDelay == nil ? 0 : 1
        bytes[12] = (self.isKeyFrame ? 0x80 : 0) | 0x40 | extensionCount
        bytes[13] = self.frameID
        Self.store(self.packetID, at: bytes + 14)
        Self.store(self.maxPacketID, at: bytes + 16)
        bytes[18] = self.referenceFrameID
        guard let delay = self.playoutDelay else { return Self.baseSize }
        Self.store(Self.playoutDelayExtensionType << 10 | 2, at: bytes + 19)
        Self.store(delay, at: bytes + 21)
        return Self.baseSize + 4
    }

    /// Changes the sequence number of a packet already written (retransmissions get new ones).
    @_spi(Receiver) public static func rewriteSequenceNumber(
        _ sequenceNumber: UInt16, in packet: UnsafeMutableRawPointer
    ) {
        Self.store(sequenceNumber, at: packet.assumingMemoryBound(to: UInt8.self) + 2)
    }

    /// Parses a packet's headers; returns the header and where the payload
    /// starts, or `nil` for anything that is not a well-formed Cast RTP packet.
    @_spi(Receiver) public static func parse(_ packet: UnsafeRawBufferPointer) -> (
        header: RTPPacketHeader, payloadOffset: Int
    )? {
        guard packet.count >= Self.baseSize, packet[0] == 0x80 else { return nil }
        let flags = packet[12]
        var offset = flags & 0x40 != 0 ? Self.baseSize : Self.baseSize - 1
        var playoutDelay: UInt16?
        for _ in 0..<(flags & 0x3F) {
            guard offset + 2 <= packet.count else { return nil }
            let field = Self.load16(packet, offset)
            let size = Int(field & 0x3FF)
            offset += 2
            guard offset + size <= packet.count else { return nil }
            if field >> 10 == Self.playoutDelayExtensionType, size == 2 {
                playoutDelay = Self.load16(packet, offset)
            }
            offset += size
        }
        let packetID = Self.load16(packet, 14)
        let maxPacketID = Self.load16(packet, 16)
        guard packetID <= maxPacketID, maxPacketID < 0xFFFF else { return nil }
        let header = RTPPacketHeader(
            marker: packet[1] & 0x80 != 0,
            payloadType: packet[1] & 0x7F,
            sequenceNumber: Self.load16(packet, 2),
            rtpTimestamp: UInt32(Self.load16(packet, 4)) << 16 | UInt32(Self.load16(packet, 6)),
            ssrc: UInt32(Self.load16(packet, 8)) << 16 | UInt32(Self.load16(packet, 10)),
            isKeyFrame: flags & 0x80 != 0,
            frameID: packet[13],
            packetID: packetID,
            maxPacketID: maxPacketID,
            referenceFrameID: flags & 0x40 != 0 ? packet[18] : (flags & 0x80 != 0 ? packet[13] : packet[13] &- 1),
            playoutDelay: playoutDelay
        )
        return (header, offset)
    }

    private static func load16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private static func store(_ value: UInt16, at bytes: UnsafeMutablePointer<UInt8>) {
        bytes[0] = UInt8(value >> 8)
        bytes[1] = UInt8(truncatingIfNeeded: value)
    }

    private static func store(_ value: UInt32, at bytes: UnsafeMutablePointer<UInt8>) {
        for index in 0..<4 {
            bytes[index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index)))
        }
    }
}
