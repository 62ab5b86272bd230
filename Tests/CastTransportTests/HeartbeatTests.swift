import CastLogging
import NIOCore
import NIOEmbedded
import NIOTLS
import Testing

@testable import CastTransport

@Suite struct HeartbeatMonitorTests {
    let configuration = HeartbeatConfiguration(pingInterval: .seconds(5), timeout: .seconds(10))
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func pingsOnceAfterTheIntervalThenDeclaresDeath() {
        var monitor = HeartbeatMonitor(configuration: self.configuration, now: self.start)
        #expect(monitor.nextDeadline == self.start + .seconds(5))
        #expect(monitor.tick(at: self.start + .seconds(4)) == .wait)
        #expect(monitor.tick(at: self.start + .seconds(5)) == .sendPing)
        #expect(monitor.nextDeadline == self.start + .seconds(10))
        #expect(monitor.tick(at: self.start + .seconds(7)) == .wait)
        #expect(monitor.tick(at: self.start + .seconds(10)) == .declareDead)
    }

    /// Audit row 5: as Chrome's keep-alive, a PING written resets the
    /// liveness timer, so the peer has the whole timeout to answer it —
    /// dead 15 s after the last inbound message, not 10.
    @Test func aKeepAliveWrittenGivesThePeerTheWholeTimeoutToAnswer() {
        var monitor = HeartbeatMonitor(configuration: self.configuration, now: self.start)
        #expect(monitor.tick(at: self.start + .seconds(5)) == .sendPing)
        monitor.keepAliveWritten(at: self.start + .seconds(5))
        #expect(monitor.nextDeadline == self.start + .seconds(15))
        #expect(monitor.tick(at: self.start + .seconds(12)) == .wait)
        #expect(monitor.tick(at: self.start + .seconds(15)) == .declareDead)
    }

    @Test func anyInboundMessageResetsBothTimers() {
        var monitor = HeartbeatMonitor(configuration: self.configuration, now: self.start)
        #expect(monitor.tick(at: self.start + .seconds(5)) == .sendPing)
        monitor.inboundReceived(at: self.start + .seconds(9))
        #expect(monitor.tick(at: self.start + .seconds(10)) == .wait)
        #expect(monitor.nextDeadline == self.start + .seconds(14))
        #expect(monitor.tick(at: self.start + .seconds(14)) == .sendPing)
        #expect(monitor.tick(at: self.start + .seconds(18)) == .wait)
        #expect(monitor.tick(at: self.start + .seconds(19)) == .declareDead)
    }
}

/// The exact texts take the fast path; every other spelling of the same JSON
/// still parses, and anything else is not a heartbeat.
@Suite struct HeartbeatMessageTests {
    @Test(arguments: [
        (#"{"type":"PING"}"#, HeartbeatMessage.ping),
        (#"{"type":"PONG"}"#, .pong),
        (#"{ "type" : "PING" }"#, .ping),
        (#"{"type":"pong","extra":1}"#, .pong),
    ])
    func heartbeatTextsAreRead(text: String, expected: HeartbeatMessage) {
        #expect(HeartbeatMessage(text: text) == expected)
    }

    @Test(arguments: [#"{"type":"CLOSE"}"#, #"{"type":"PING""#, "PING", "", #"{"type":1}"#])
    func otherTextsAreNotHeartbeats(text: String) {
        #expect(HeartbeatMessage(text: text) == nil)
    }
}

@Suite struct HeartbeatHandlerTests {
    static let logger = CastLogger(filter: CastLogFilter(minimumLevel: .none)).makeLogger(subsystem: "Test")

    func makeChannel(silenced: Bool = false) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            HeartbeatHandler(
                configuration: HeartbeatConfiguration(pingInterval: .seconds(5), timeout: .seconds(10)),
                addressing: .sender,
                isSilenced: { silenced },
                logger: Self.logger
            )
        )
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        return channel
    }

    func readOutboundMessage(_ channel: EmbeddedChannel) throws -> CastMessage? {
        guard var frame = try channel.readOutbound(as: ByteBuffer.self) else { return nil }
        return try CastMessageFramer.nextMessage(from: &frame)
    }

    @Test func answersPingWithPongAndStopsHeartbeatMessages() throws {
        let channel = try self.makeChannel()
        try channel.writeInbound(HeartbeatMessage.ping.message(from: "receiver-0", to: "sender-0"))
        #expect(
            try self.readOutboundMessage(channel) == HeartbeatMessage.pong.message(from: "sender-0", to: "receiver-0"))
        #expect(try channel.readInbound(as: CastMessage.self) == nil)

        let other = CastMessage(namespace: "urn:x-cast:x", sourceID: "a", destinationID: "b", payload: .string("{}"))
        try channel.writeInbound(other)
        #expect(try channel.readInbound(as: CastMessage.self) == other)
    }

    /// Audit row 14: a Chromecast PINGs as `Tr@n$p0rt-0` → `Tr@n$p0rt-0`;
    /// Chrome still answers and pings `sender-0` → `receiver-0`. Before, the
    /// PONG mirrored the PING's ids and later PINGs went to `Tr@n$p0rt-0`.
    @Test func heartbeatIDsStayChromesWhateverTheReceiverPingsWith() throws {
        let channel = try self.makeChannel()
        try channel.writeInbound(HeartbeatMessage.ping.message(from: "Tr@n$p0rt-0", to: "Tr@n$p0rt-0"))
        #expect(
            try self.readOutboundMessage(channel) == HeartbeatMessage.pong.message(from: "sender-0", to: "receiver-0"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(
            try self.readOutboundMessage(channel) == HeartbeatMessage.ping.message(from: "sender-0", to: "receiver-0"))
    }

    @Test func pingsAfterSilenceAndClosesWithATypedErrorAfterTheTimeout() throws {
        let channel = try self.makeChannel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(try self.readOutboundMessage(channel) == nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(
            try self.readOutboundMessage(channel) == HeartbeatMessage.ping.message(from: "sender-0", to: "receiver-0"))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)  // the PING written gave the peer 10 s more
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
        #expect {
            try channel.throwIfErrorCaught()
        } throws: { error in
            (error as? CastTransportError)?.code == .heartbeatTimedOut
        }
    }

    @Test func inboundTrafficKeepsTheConnectionAlive() throws {
        let channel = try self.makeChannel()
        let other = CastMessage(namespace: "urn:x-cast:x", sourceID: "a", destinationID: "b", payload: .string("{}"))
        for _ in 0..<10 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            try channel.writeInbound(other)
            _ = try channel.readInbound(as: CastMessage.self)
        }
        #expect(channel.isActive)
        #expect(try self.readOutboundMessage(channel) == nil)
    }

    @Test func silencedSideNeitherAnswersNorPings() throws {
        let channel = try self.makeChannel(silenced: true)
        try channel.writeInbound(HeartbeatMessage.ping.message(from: "receiver-0", to: "sender-0"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        #expect(try self.readOutboundMessage(channel) == nil)
    }
}
