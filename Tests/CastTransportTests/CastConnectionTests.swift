import CastEmulator
import CastTestSupport
import NIOCore
import NIOPosix
import Testing

@_spi(Receiver) @testable import CastTransport

/// The connection against the emulator: its life over TLS on 127.0.0.1
/// and in memory, what only a socket does (refusal, a silent peer) over
/// the network, the rest in memory.
@Suite(.timeLimit(.minutes(3))) struct CastConnectionTests {
    @Test(arguments: [true, false]) func movesThroughItsStatesAndEndsWhenClosed(overNetwork: Bool) async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection(overNetwork: overNetwork)
            let states = connection.stateUpdates()
            try await connection.connect()
            #expect(await connection.currentState.isConnected)
            await connection.close()
            let seen = await Array(states).map(\.description)
            #expect(seen == ["idle", "connecting", "connected", "disconnected(closed)"])
            #expect(await transportErrorCode { try await connection.connect() } == .alreadyStarted)
            #expect(
                await transportErrorCode {
                    try await connection.send(namespace: "urn:x-cast:x", to: "receiver-0", text: "{}")
                } == .notConnected)
        }
    }

    @Test func refusedConnectionsFailWithATypedError() async throws {
        // Bind then close a listener, so the port is known to be free.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        try await listener.close()
        let connection = CastConnection(host: "127.0.0.1", port: port, logger: EmulatorFixture.quietLogger)
        #expect(await transportErrorCode { try await connection.connect() } == .connectionFailed)
        #expect(await disconnectReason(of: connection) == .connectionFailed)
    }

    @Test func anInMemoryConnectionIsRefusedWhileTheEmulatorIsStopped() async throws {
        try await EmulatorFixture.with { fixture in
            await fixture.emulator.stop()
            let refused = fixture.connection()
            #expect(await transportErrorCode { try await refused.connect() } == .connectionFailed)
            try await fixture.emulator.start()
            let accepted = fixture.connection()
            try await accepted.connect()
            #expect(await accepted.currentState.description == "connected")
            await accepted.close()
        }
    }

    @Test func aPeerThatNeverShakesHandsTimesOut() async throws {
        // A TCP listener that accepts and then says nothing: the TLS handshake never completes.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let connection = CastConnection(
            host: "127.0.0.1",
            port: port,
            configuration: CastConnectionConfiguration(connectTimeout: .milliseconds(300), deviceAuthentication: .off),
            logger: EmulatorFixture.quietLogger
        )
        #expect(await transportErrorCode { try await connection.connect() } == .connectTimedOut)
        try await listener.close()
    }

    @Test func twoConnectionsAtOnceEachGetTheirOwnSenderID() async throws {
        try await EmulatorFixture.with { fixture in
            let events = fixture.emulator.events()
            let first = fixture.connection()
            let second = fixture.connection()
            try await first.connect()
            try await second.connect()
            #expect(first.senderID != second.senderID)
            #expect(fixture.emulator.connectionCount == 2)
            try await first.openVirtualConnection(to: "receiver-0")
            try await second.openVirtualConnection(to: "receiver-0")
            let opened = await collect(events, count: 2) {
                if case .virtualConnectionOpened = $0 { return true }
                return false
            }
            let sources = Set(
                opened.compactMap { event -> String? in
                    if case .virtualConnectionOpened(_, let source, "receiver-0", .strong) = event { return source }
                    return nil
                })
            #expect(sources == [first.senderID, second.senderID])
            await first.close()
            #expect(await second.currentState.isConnected)
            await second.close()
        }
    }
}

/// The first `count` elements of `stream` that satisfy `predicate` (fewer if it ends or 10 s pass).
func collect<Element: Sendable>(
    _ stream: AsyncStream<Element>,
    count: Int,
    where predicate: @escaping @Sendable (Element) -> Bool
) async -> [Element] {
    var collected: [Element] = []
    for _ in 0..<count {
        guard let next = await first(stream, where: predicate) else { break }
        collected.append(next)
    }
    return collected
}
