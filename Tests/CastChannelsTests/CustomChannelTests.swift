import CastChannels
import CastEmulator
import CastTestSupport
@_spi(Receiver) import CastTransport
import NIOConcurrencyHelpers
import Testing

/// A channel in the SDK's subclass style: it keeps what it hears.
final class RecordingChannel: CastChannel, @unchecked Sendable {
    // @unchecked Sendable: restated from CastChannel, as Swift requires. Its one
    // stored property, `log`, is a `let` NIOLockedValueBox, appended to and
    // read only under its lock.
    let log = NIOLockedValueBox<[String]>([])

    override func didReceiveTextMessage(_ message: String) {
        self.log.withLockedValue { $0.append("text:\(message)") }
    }

    override func didReceiveBinaryMessage(_ message: [UInt8]) {
        self.log.withLockedValue { $0.append("binary:\(message)") }
    }

    override func didConnect() {
        self.log.withLockedValue { $0.append("connected") }
    }

    override func didDisconnect() {
        self.log.withLockedValue { $0.append("disconnected") }
    }
}

/// A delegate in the SDK's generic-channel style.
final class RecordingDelegate: GenericChannelDelegate {
    let log = NIOLockedValueBox<[String]>([])

    func channel(_ channel: GenericChannel, didReceiveTextMessage message: String) {
        self.log.withLockedValue { $0.append("text:\(message)") }
    }

    func channel(_ channel: GenericChannel, didReceiveBinaryMessage message: [UInt8]) {
        self.log.withLockedValue { $0.append("binary:\(message)") }
    }

    func channelDidConnect(_ channel: GenericChannel) {
        self.log.withLockedValue { $0.append("connected") }
    }

    func channelDidDisconnect(_ channel: GenericChannel) {
        self.log.withLockedValue { $0.append("disconnected") }
    }
}

@Suite(.timeLimit(.minutes(3))) struct CustomChannelTests {
    static let namespace = "urn:x-cast:com.example.echo"

    /// Makes the emulator echo text as "echo:<text>" and binary reversed, from the app's transport.
    static func echo(on emulator: CastEmulator) {
        emulator.respond(to: Self.namespace, with: echoReplies(to:))
    }

    @Test(arguments: ["", "urn:x-cast:", "com.example.echo", "urn:x-castcom.example", "URN:X-CAST:upper"])
    func namespacesMustStartWithTheCastPrefix(namespace: String) {
        let error = #expect(throws: CastChannelError.self) { try CastChannel(namespace: namespace) }
        #expect(error?.code == .invalidNamespace)
    }

    @Test func aDetachedChannelCannotSend() async throws {
        let channel = try CastChannel(namespace: Self.namespace)
        #expect(!channel.isConnected)
        let error = await caughtError(CastChannelError.self) { try await channel.sendTextMessage("hello") }
        #expect(error?.code == .notConnected)
    }

    @Test func aSubclassHearsTextAndBinaryAndItsConnectionChanges() async throws {
        try await ChannelFixture.with { fixture in
            Self.echo(on: fixture.emulator)
            try await fixture.connection.openVirtualConnection(to: "web-echo")
            let channel = try RecordingChannel(namespace: Self.namespace)
            let messages = channel.messages()
            channel.attach(to: fixture.connection, destinationID: "web-echo", logger: quietLogger)
            #expect(channel.isConnected)
            try await channel.sendTextMessage(#"{"hello":1}"#)
            try await channel.sendBinaryMessage([1, 2, 3])
            let received = await collect(messages, count: 2) { $0 }
            #expect(received == [.string(#"echo:{"hello":1}"#), .binary([3, 2, 1])])
            channel.detach()
            #expect(
                channel.log.withLockedValue { $0 } == [
                    "connected", #"text:echo:{"hello":1}"#, "binary:[3, 2, 1]", "disconnected",
                ])
        }
    }

    @Test func aGenericChannelTellsItsDelegate() async throws {
        try await ChannelFixture.with { fixture in
            Self.echo(on: fixture.emulator)
            try await fixture.connection.openVirtualConnection(to: "web-echo")
            let delegate = RecordingDelegate()
            let channel = try GenericChannel(namespace: Self.namespace)
            channel.delegate = delegate
            let messages = channel.messages()
            channel.attach(to: fixture.connection, destinationID: "web-echo", logger: quietLogger)
            // Subscribed once attached: the stream opens with the current state, `.connected`.
            // (Subscribed before, it opened with the initial `.disconnected`, which the wait
            // below took for the end of the connection: CI under TSan failed on that.)
            let events = channel.connectionEvents()
            try await channel.sendTextMessage("ping")
            _ = await first(messages) { _ in true }
            await fixture.connection.close()
            let changes = await collect(events, count: 2) { $0 }
            #expect(changes == [.connected, .disconnected])
            #expect(delegate.log.withLockedValue { $0 } == ["connected", "text:echo:ping", "disconnected"])
            #expect(!channel.isConnected)
        }
    }

    @Test func messagesFromOtherEndpointsOrNamespacesDoNotReachTheChannel() async throws {
        try await ChannelFixture.with { fixture in
            try await fixture.connection.openVirtualConnection(to: "web-echo")
            let channel = try RecordingChannel(namespace: Self.namespace)
            let messages = channel.messages()
            channel.attach(to: fixture.connection, destinationID: "web-echo", logger: quietLogger)
            let sender = fixture.connection.senderID
            await fixture.emulator.send(
                CastMessage(
                    namespace: Self.namespace, sourceID: "web-other", destinationID: sender, payload: .string("a")))
            await fixture.emulator.send(
                CastMessage(
                    namespace: "urn:x-cast:com.example.other", sourceID: "web-echo", destinationID: sender,
                    payload: .string("b")))
            await fixture.emulator.send(
                CastMessage(namespace: Self.namespace, sourceID: "web-echo", destinationID: "*", payload: .string("c")))
            let only = await first(messages) { _ in true }
            #expect(only == .string("c"))
            channel.detach()
        }
    }

    @Test func aFullSendBufferIsATypedError() async throws {
        try await ChannelFixture.with(
            connection: CastConnectionConfiguration(deviceAuthentication: .off, outboundQueueLimit: 4)
        ) { fixture in
            try await fixture.connection.openVirtualConnection(to: "web-echo")
            let channel = try GenericChannel(namespace: Self.namespace)
            channel.attach(to: fixture.connection, destinationID: "web-echo", logger: quietLogger)
            await fixture.emulator.setReadingPaused(true)
            let large = String(repeating: "x", count: 60_000)
            var failure: CastChannelError?
            var sent = 0
            while failure == nil && sent < 2_000 {
                failure = await caughtError(CastChannelError.self) { try await channel.sendTextMessage(large) }
                sent += 1
            }
            #expect(failure?.code == .sendBufferFull)
            await fixture.emulator.setReadingPaused(false)
            channel.detach()
        }
    }
}
