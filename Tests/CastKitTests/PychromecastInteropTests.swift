import CastEmulator
import CastKit
import CastMediaServer
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// pychromecast, a sender written by others, uses our emulator as it would a
/// real receiver: proof that the emulator speaks the protocol, not just our
/// own reading of it.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: NamespacePair.hasPychromecast, "needs python3 with pychromecast (make setup installs it)"))
struct PychromecastInteropTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/interop/pychromecast_session.py").path

    /// Runs the script in `mode` against `emulator` and returns the JSON it prints last
    /// (after pychromecast's log lines).
    ///
    /// When the script fails, the failure carries the emulator's debug log
    /// and pychromecast's own, so a rare failure can be understood from CI's output.
    static func report(
        _ mode: String, against emulator: CastEmulator, log: EmulatorLog, arguments: [String] = []
    ) async throws -> JSONValue {
        let port = emulator.port
        let output: String
        do {
            // In its turn among the real-time tests: pychromecast's own timeouts assume a machine it shares with no stream.
            output = try await RealTimeTurns.take(.childProcesses) {
                try await onOwnThread {
                    try NamespacePair.run(
                        ["/usr/bin/env", "python3", Self.script, mode, "127.0.0.1", "\(port)"] + arguments)
                }
            }
        } catch {
            throw NamespaceError(message: "\(error)\nthe emulator logged:\n\(log.text)")
        }
        let json = output.split(separator: "\n").last { $0.hasPrefix("{") || $0.hasPrefix("[") }
        return try JSONValue(parsing: String(try #require(json)))
    }

    @Test func pychromecastLaunchesTheDefaultMediaReceiverAndReadsStatusAndVolume() async throws {
        let log = EmulatorLog()
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .chromecast), logger: log.logger)
        try await emulator.start()
        let report = try await Self.report("interop", against: emulator, log: log)

        #expect(report["connected"]?["app_id"] == .string(CastApplicationID.backdrop))
        #expect(report["connected"]?["volume_level"] == 1)
        #expect(report["connected"]?["volume_muted"] == false)

        let running = try #require(emulator.runningApplication)
        #expect(running.application.appID == CastApplicationID.defaultMediaReceiver)
        #expect(report["launched"]?["app_id"] == .string(CastApplicationID.defaultMediaReceiver))
        #expect(report["launched"]?["session_id"] == .string(running.sessionID))
        #expect(report["launched"]?["transport_id"] == .string(running.transportID))
        #expect(report["launched"]?["namespaces"]?.arrayValue?.contains(.string(CastNamespace.media)) == true)

        #expect(report["set_volume"] == 0.4)
        #expect(report["volume"]?["volume_level"] == 0.4)
        #expect(report["volume"]?["volume_muted"] == true)
        #expect(emulator.volume == ReceiverVolume(level: 0.4, isMuted: true))
        await emulator.stop()
    }

    @Test func pychromecastsMediaControllerPlaysPausesSeeksAndChangesTheRate() async throws {
        let log = EmulatorLog()
        let emulator = try CastEmulator(logger: log.logger)
        try await emulator.start()
        let report = try await Self.report("media", against: emulator, log: log)
        await emulator.stop()

        #expect(report["playing"]?["player_state"] == "PLAYING")
        #expect(report["playing"]?["content_id"] == "https://media.example/bbb.mp4")
        #expect(report["playing"]?["content_type"] == "video/mp4")
        #expect(report["playing"]?["supports_pause"] == true)
        #expect(report["playing"]?["supports_seek"] == true)
        #expect(report["paused"]?["player_state"] == "PAUSED")
        #expect(report["seeked"]?["player_state"] == "PLAYING")
        #expect(abs((report["seeked"]?["current_time"]?.doubleValue ?? 0) - 30) < 0.5)
        #expect(report["rate"]?["playback_rate"] == 1.5)
        #expect(report["rate"]?["media_session_id"] == report["playing"]?["media_session_id"])
    }
}

extension PychromecastInteropTests {
    /// pychromecast plays a URL our media server serves, on our emulator
    /// fetching as a receiver does: the server sees the receiver's HEAD and
    /// first bytes, and after pychromecast's seek to the middle, the middle.
    @Test func pychromecastPlaysWhatOurServerServesAndTheSeekFetchesTheMiddle() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 3, count: 1_000_000).write(to: file)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try server.serve(file: file)
        let log = EmulatorLog()
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(fetchesMedia: true), logger: log.logger)
        try await emulator.start()
        let report = try await Self.report("served", against: emulator, log: log, arguments: [url.absoluteString])
        await emulator.stop()
        #expect(report["playing"]?["player_state"] == "PLAYING")
        #expect(report["playing"]?["content_id"] == .string(url.absoluteString))
        #expect(abs((report["seeked"]?["current_time"]?.doubleValue ?? 0) - 50) < 0.5)
        // The seek's fetch runs beside the reply: give it a moment. It starts
        // at the middle, or a little after (the media clock ran on meanwhile).
        let seekFetch = { () -> MediaServerRequest? in
            server.recentRequests.first { request in
                let start = request.range?.dropFirst("bytes=".count).split(separator: "-").first.flatMap { Int($0) }
                return start.map { (500_000..<510_000).contains($0) } ?? false
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while seekFetch() == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let requests = server.recentRequests.map { "\($0.method) \($0.range ?? "-") \($0.status)" }
        #expect(requests.first == "HEAD - 200")
        #expect(requests.contains("GET bytes=0-65535 206"))
        #expect(seekFetch()?.status == 206, "\(requests)")
        await server.stop()
    }

    /// What the emulator cannot fetch, or Cast cannot play, fails the load as receivers fail it.
    @Test func anUnreachableOrUnplayableSourceFailsTheLoadWith104() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString).mkv")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 3, count: 10_000).write(to: file)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let matroska = try server.serve(file: file)
        let configuration = CastEmulatorConfiguration(mediaClock: .manual(), fetchesMedia: true)
        try await SessionFixture.with(emulator: configuration) { fixture in
            let session = try await fixture.manager.startSession(on: fixture.device)
            let client = try #require(session.remoteMediaClient)
            for (url, type) in [
                ("http://127.0.0.1:1/nothing.mp4", "video/mp4"), (matroska.absoluteString, "video/mp4"),
            ] {
                let failure = await #expect(throws: CastMediaError.self) {
                    try await client.load(
                        MediaLoadRequestData(mediaInformation: MediaInformation(contentID: url, contentType: type)))
                }
                #expect(failure?.code == .loadFailed, "\(url)")
                #expect(failure?.detailedErrorCode == 104, "\(url)")
            }
            // The Matroska file was fetched (HEAD and its first bytes); its type failed it.
            #expect(server.recentRequests.map(\.method) == ["HEAD", "GET"])
        }
        await server.stop()
    }
}

/// The emulator's debug log, kept in memory for a failure message.
final class EmulatorLog: Sendable {
    private let lines = Mutex<[String]>([])
    let logger = CastLogger(filter: CastLogFilter(minimumLevel: .debug))

    init() {
        self.logger.addSink(ClosureLogSink { [weak self] record in self?.lines.withLock { $0.append("\(record)") } })
    }

    var text: String { self.lines.withLock { $0.joined(separator: "\n") } }
}
