import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// pychromecast, a sender written by others, uses our emulator as it would a
/// real receiver: proof that the emulator speaks the protocol, not just our
/// own reading of it.
@Suite(.enabled(if: NamespacePair.hasPychromecast, "needs python3 with pychromecast (make setup installs it)"))
struct PychromecastInteropTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/interop/pychromecast_session.py").path

    /// Runs the script in `mode` against `emulator` and returns the JSON it prints last.
    static func report(_ mode: String, against emulator: CastEmulator) async throws -> JSONValue {
        let port = emulator.port
        let output = try await Task.detached {
            try NamespacePair.run("/usr/bin/env", "python3", Self.script, mode, "127.0.0.1", "\(port)")
        }.value
        return try JSONValue(parsing: try #require(output.split(separator: "\n").last.map(String.init)))
    }

    @Test func pychromecastLaunchesTheDefaultMediaReceiverAndReadsStatusAndVolume() async throws {
        let emulator = try CastEmulator(logger: quietLogger)
        try await emulator.start()
        let report = try await Self.report("interop", against: emulator)

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
        let emulator = try CastEmulator(logger: quietLogger)
        try await emulator.start()
        let report = try await Self.report("media", against: emulator)
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
