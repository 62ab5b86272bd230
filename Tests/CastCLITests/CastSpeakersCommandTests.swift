import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// `cast speakers` as a user runs it (unprivileged, against a real
/// PulseAudio daemon): the device named with `--device` becomes a sink
/// that `pactl` lists, and Ctrl-C removes it and exits cleanly. What
/// reaches a sink and how volume follows is CastSpeakersTests' part.
@Suite(.timeLimit(.minutes(3))) struct CastSpeakersCommandTests {
    @Test func aDeviceBecomesASinkUntilCtrlC() async throws {
        try await SoundServer.with { sound in
            try await CastCommandLineTests.withEmulator(takesTurn: CastPlayLocalTests.takesTurn) { _, device in
                let listed = NIOLockedValueBox(String?.none)
                let run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"),
                    [
                        "speakers", "--device", device, "--no-mdns", "--audio-server", sound.server, "--grace", "1",
                    ],
                    interruptAfter: .seconds(60),
                    interruptWhen: { stderr in
                        guard stderr.contains("added for") else { return false }
                        // While it runs: what the sound server lists, read by its own client.
                        let sinks = try? CommandOutput.waiting(
                            for: ["pactl", "--server=\(sound.server)", "list", "sinks", "short"])
                        listed.withLockedValue { $0 = sinks?.stdout ?? "" }
                        return true
                    })
                #expect(run.status == 0, "\(run.stderr)")
                let sinkName = "cast.127_0_0_1_\(device.split(separator: ":").last ?? "")"
                #expect(run.stderr.contains("sink \(sinkName) added for 127.0.0.1"), "\(run.stderr)")
                #expect(listed.withLockedValue { $0 }?.contains(sinkName) == true, "\(String(describing: listed))")
                #expect(run.stderr.contains("the sinks are removed"))
                let after = try CommandOutput.waiting(for: [
                    "pactl", "--server=\(sound.server)", "list", "sinks", "short",
                ])
                #expect(!after.stdout.contains("cast."), "\(after.stdout)")
            }
        }
    }

    @Test func noSoundServerAndBadArgumentsHaveTheirExitCodes() async throws {
        let missing = try await CastCommandLineTests.cast(
            "speakers", "--no-mdns", "--audio-server", "unix:/nonexistent/cast-test/native")
        #expect(missing.status == 10, "\(missing.stderr)")
        #expect(missing.stderr.contains("no sound server"), "\(missing.stderr)")
        let grace = try await CastCommandLineTests.cast("speakers", "--grace", "0")
        #expect(grace.status != 0)
        #expect(grace.stderr.contains("--grace must be 1…3600 seconds"), "\(grace.stderr)")
        let group = try await CastCommandLineTests.cast("speakers", "--group", "Both")
        #expect(group.status != 0)
        #expect(group.stderr.contains("--group takes NAME=DEVICE,DEVICE,…, not Both"), "\(group.stderr)")
    }
}
