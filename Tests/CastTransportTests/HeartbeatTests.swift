import CastLogging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOTLS
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct HeartbeatMonitorTests {
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
@Suite(.timeLimit(.minutes(3))) struct HeartbeatMessageTests {
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

@Suite(.timeLimit(.minutes(3))) struct HeartbeatHandlerTests {
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

/// A sender's and a receiver's heartbeat handlers joined in memory, their
/// clocks advanced together: what a real connection does over minutes,
/// checked in milliseconds and at exact instants.
@Suite(.timeLimit(.minutes(3))) struct HeartbeatPairTests {
    /// The sender's and receiver's channels; frames written by one are read by the other.
    struct Pair {
        let sender: EmbeddedChannel
        let receiver: EmbeddedChannel
        /// The heartbeat messages each side wrote, in order.
        var fromSender: [HeartbeatMessage] = []
        var fromReceiver: [HeartbeatMessage] = []

        /// Chrome's timing on the sender; a Chromecast's PING ids and the
        /// emulator's timing on the receiver; `receiverSilenced` hangs it.
        init(receiverSilenced: @escaping @Sendable () -> Bool = { false }) throws {
            func channel(_ handler: HeartbeatHandler) throws -> EmbeddedChannel {
                let channel = EmbeddedChannel()
                try channel.pipeline.syncOperations.addHandler(handler)
                try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
                channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
                return channel
            }
            let timing = HeartbeatConfiguration(pingInterval: .seconds(5), timeout: .seconds(10))
            self.sender = try channel(
                HeartbeatHandler(
                    configuration: timing, addressing: .sender, logger: HeartbeatHandlerTests.logger))
            self.receiver = try channel(
                HeartbeatHandler(
                    configuration: timing,
                    addressing: HeartbeatAddressing(ping: ("Tr@n$p0rt-0", "Tr@n$p0rt-0"), pong: nil),
                    isSilenced: receiverSilenced, logger: HeartbeatHandlerTests.logger))
        }

        /// Moves every frame written so far to the other side, until neither writes more.
        mutating func deliver() throws {
            var moved = true
            while moved {
                moved = false
                for (from, to) in [(self.sender, self.receiver), (self.receiver, self.sender)] {
                    while var frame = try from.readOutbound(as: ByteBuffer.self) {
                        let message = try #require(try CastMessageFramer.nextMessage(from: &frame))
                        if let heartbeat = message.text.flatMap(HeartbeatMessage.init(text:)) {
                            if from === self.sender {
                                self.fromSender.append(heartbeat)
                            } else {
                                self.fromReceiver.append(heartbeat)
                            }
                        }
                        if to.isActive { try to.writeInbound(message) }
                        moved = true
                    }
                }
            }
        }

        /// Advances both clocks by `duration` in steps of 100 ms, delivering after each.
        mutating func run(for duration: Duration) throws {
            let step = Duration.milliseconds(100)
            for _ in 0..<Int(duration / step) {
                self.sender.embeddedEventLoop.advanceTime(by: .milliseconds(100))
                self.receiver.embeddedEventLoop.advanceTime(by: .milliseconds(100))
                try self.deliver()
            }
        }
    }

    /// Two minutes, twelve heartbeat timeouts, with nothing but heartbeats
    /// on the wire: each side PINGs after 5 s of silence, the other
    /// answers, and neither ever declares the other dead. (This replaced a
    /// test that held a real connection for 21 s of wall time.)
    @Test func twoAnsweringSidesKeepTheConnectionUpForMinutes() throws {
        var pair = try Pair()
        try pair.run(for: .seconds(120))
        #expect(pair.sender.isActive)
        #expect(pair.receiver.isActive)
        // Every PING on either side was answered, and PINGs went out for the whole run.
        let senderPings = pair.fromSender.count { $0 == .ping }
        let receiverPings = pair.fromReceiver.count { $0 == .ping }
        #expect(senderPings + receiverPings >= 120 / 5 - 1, "\(pair.fromSender) \(pair.fromReceiver)")
        #expect(pair.fromReceiver.count { $0 == .pong } == senderPings)
        #expect(pair.fromSender.count { $0 == .pong } == receiverPings)
    }

    /// A receiver that hangs after a minute: the sender PINGs once after
    /// 5 s of silence and closes with a typed error 10 s after that PING.
    @Test func aReceiverThatHangsIsDeclaredDeadOneTimeoutAfterTheLastPing() throws {
        let hung = NIOLockedValueBox(false)
        var pair = try Pair(receiverSilenced: { hung.withLockedValue { $0 } })
        try pair.run(for: .seconds(60))
        hung.withLockedValue { $0 = true }
        let before = pair.fromSender.count
        try pair.run(for: .milliseconds(14_900))
        #expect(pair.sender.isActive)
        try pair.run(for: .seconds(1))
        #expect(!pair.sender.isActive)
        #expect(pair.fromSender.dropFirst(before) == [.ping])
        #expect {
            try pair.sender.throwIfErrorCaught()
        } throws: { error in
            (error as? CastTransportError)?.code == .heartbeatTimedOut
        }
    }
}
