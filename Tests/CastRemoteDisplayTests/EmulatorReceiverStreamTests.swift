@_spi(Receiver) import CastStreaming
import Testing

@testable import CastEmulator

/// The emulator's receiving side of one stream, driven packet by packet:
/// the rules it takes from Open Screen's receiver, and when it NACKs.
@Suite(.timeLimit(.minutes(3))) struct EmulatorReceiverStreamTests {
    let key = StreamKey(key: Array(repeating: 1, count: 16), ivMask: Array(repeating: 2, count: 16))!
    let now = HostTime(nanoseconds: 5_000_000_000)

    func makeStream() throws -> ReceiverStream {
        try ReceiverStream(
            kind: .video, senderSSRC: 500_001, payloadType: 96, timebase: 90_000, key: self.key, channels: 2,
            playoutDelay: .milliseconds(400), decodes: false, reference: nil)
    }

    func header(frame: UInt8, packet: UInt16, of count: UInt16) -> RTPPacketHeader {
        RTPPacketHeader(
            marker: packet == count - 1, payloadType: 96, sequenceNumber: packet, rtpTimestamp: 0, ssrc: 500_001,
            isKeyFrame: true, frameID: frame, packetID: packet, maxPacketID: count - 1, referenceFrameID: frame)
    }

    func senderReport() -> SenderReport {
        SenderReport(
            ssrc: 500_001, ntpTimestamp: NTPTime.from(self.now), rtpTimestamp: 0, packetCount: 0, octetCount: 0)
    }

    /// Open Screen's receiver drops packet 0 of a frame until the first Sender
    /// Report (receiver_impl.cc:323-329) and takes the others.
    @Test func packetZeroWaitsForTheFirstSenderReport() throws {
        let stream = try self.makeStream()
        _ = stream.receive(self.header(frame: 0, packet: 0, of: 2), payload: [1, 2], at: self.now)
        _ = stream.receive(self.header(frame: 0, packet: 1, of: 2), payload: [3, 4], at: self.now)
        #expect(stream.currentReport.packetsDroppedBeforeSenderReport == 1)
        #expect(stream.currentReport.packetsReceived == 1)
        stream.receive(self.senderReport(), at: self.now)
        _ = stream.receive(self.header(frame: 0, packet: 0, of: 2), payload: [1, 2], at: self.now)
        #expect(stream.currentReport.packetsReceived == 2)
        #expect(stream.currentReport.framesReceived == 1)
    }

    /// NACKs name only packets known to be missing: gaps below the highest
    /// packet received of the newest frame, not the packets after it, which
    /// may be on their way. Before, every missing packet was NACKed.
    @Test func onlyPacketsKnownMissingAreNACKed() throws {
        let stream = try self.makeStream()
        stream.receive(self.senderReport(), at: self.now)
        for packet: UInt16 in [0, 3] {
            _ = stream.receive(self.header(frame: 0, packet: packet, of: 6), payload: [0], at: self.now)
        }
        #expect(try self.lossFields(stream) == [LossField(frameID: 0, packetID: 1, bitmask: 0b1)])
        // A packet of the next frame arrives: frame 0's tail is missing too.
        _ = stream.receive(self.header(frame: 1, packet: 0, of: 2), payload: [0], at: self.now)
        #expect(
            try self.lossFields(stream) == [
                LossField(frameID: 0, packetID: 1, bitmask: 0b1101)
            ])
    }

    func lossFields(_ stream: ReceiverStream) throws -> [LossField] {
        var bytes: [UInt8] = []
        stream.writeFeedback(at: self.now, into: &bytes)
        let compound = try #require(bytes.withUnsafeBytes { RTCPCompound.parse($0) })
        return try #require(compound.castFeedback).lossFields
    }
}
