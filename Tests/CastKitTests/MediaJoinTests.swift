import CastEmulator
import CastKit
import CastTestSupport
import Testing

/// A sender that joins media another sender started, against a receiver
/// that behaves as real ones do: no status pushed on CONNECT, broadcasts
/// with only what changed (audit rows 1, 2 and 4).
@Suite(.timeLimit(.minutes(10))) struct MediaJoinTests {
    /// The media app's transport, with a second sender's media client attached.
    static func join(_ fixture: MediaFixture) async throws -> (CastConnection, RemoteMediaClient) {
        let app = try #require(fixture.emulator.runningApplication)
        let connection = fixture.emulator.inMemoryConnection(
            configuration: CastConnectionConfiguration(), logger: quietLogger)
        try await connection.connect()
        try await connection.openVirtualConnection(to: app.transportID)
        let client = RemoteMediaClient()
        client.attach(to: connection, destinationID: app.transportID, logger: quietLogger)
        return (connection, client)
    }

    /// Row 1: a client attached to a running app asks for the status on
    /// connecting (pychromecast media.py:576-578), and a command given at
    /// once waits for it. Before, it failed with `noMediaSession`.
    @Test func aClientJoiningRunningMediaCanCommandAtOnce() async throws {
        try await MediaFixture.with { fixture in
            try await fixture.client.load(MediaLoadRequestData(mediaInformation: movie("joined")))
            await fixture.advance(by: .milliseconds(100)) { $0?.playerState == .playing }
            let (connection, joined) = try await Self.join(fixture)
            let paused = try await joined.pause()
            #expect(paused?.playerState == .paused)
            #expect(joined.mediaStatus?.media?.contentID == "https://media.example/joined.mp4")
            joined.detach()
            await connection.close()
        }
    }

    /// Row 2 on the wire: the emulator broadcasts only what changed (as
    /// conformance 038 and 041), and the other sender's merged status keeps
    /// the rest — the media, the supported commands, the volume.
    @Test func broadcastsCarryOnlyWhatChangedAndTheOtherSenderKeepsTheRest() async throws {
        try await MediaFixture.with { fixture in
            try await fixture.client.load(MediaLoadRequestData(mediaInformation: movie("partial")))
            await fixture.advance(by: .milliseconds(100)) { $0?.playerState == .playing }
            let (connection, joined) = try await Self.join(fixture)
            _ = try await joined.requestStatus()
            let wire = connection.messages(namespace: CastNamespace.media)
            let statuses = joined.events()
            try await fixture.client.pause()
            let broadcast = await first(wire) { message in
                let json = try? JSONValue(parsing: message.text ?? "")
                return json?["type"] == "MEDIA_STATUS" && json?["requestId"] == 0
            }
            let entry = try JSONValue(parsing: try #require(broadcast?.text))["status"]?.arrayValue?.first
            #expect(entry?["playerState"] == "PAUSED")
            #expect(entry?["mediaSessionId"] != nil)
            #expect(entry?["media"] == nil)
            #expect(entry?["supportedMediaCommands"] == nil)
            #expect(entry?["volume"] == nil)
            let merged = await first(statuses) { event in
                if case .statusChanged(let status) = event { status?.playerState == .paused } else { false }
            }
            guard case .statusChanged(let status?)? = merged else {
                Issue.record("the joined client saw no PAUSED status")
                return
            }
            #expect(status.media?.contentID == "https://media.example/partial.mp4")
            #expect(status.supportedMediaCommands.contains([.pause, .seek]))
            #expect(status.volume.level == 1)
            joined.detach()
            await connection.close()
        }
    }

    /// Row 4: LOAD leaves `currentTime` out unless the app sets it, so a live
    /// stream starts at the live edge (CAF `LoadRequestData.currentTime`).
    @Test func loadLeavesCurrentTimeOutUnlessSet() async throws {
        try await MediaFixture.with { fixture in
            let sent = try await fixture.sentJSON("LOAD") {
                try await fixture.client.load(MediaLoadRequestData(mediaInformation: movie("live")))
            }
            #expect(sent?["type"] == "LOAD")
            #expect(sent?["currentTime"] == nil)
        }
    }
}
